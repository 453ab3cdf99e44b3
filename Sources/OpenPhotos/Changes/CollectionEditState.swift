import Foundation
import PhotoLibraryEngine

/// What an album or folder change request records; the two requests share it and differ only in Apple's
/// method names (`addAssets` / `addChildCollections` …).
struct CollectionEditState {
    /// nil: the top level of the user's collections.
    let targetIdentifier: String?
    let kind: CollectionKind
    let isCreation: Bool
    /// The membership the caller fetched, for index-safe edits.
    let snapshot: [String]?
    var newTitle: String?
    var edits: [MembershipEdit] = []

    static func creation(_ identifier: String, kind: CollectionKind, title: String) -> CollectionEditState {
        CollectionEditState(targetIdentifier: identifier, kind: kind, isCreation: true, snapshot: nil, newTitle: title)
    }

    static func change(_ identifier: String?, kind: CollectionKind, snapshot: [String]?) -> CollectionEditState {
        CollectionEditState(targetIdentifier: identifier, kind: kind, isCreation: false, snapshot: snapshot, newTitle: nil)
    }

    /// Index-based edits need as many objects as indexes; Apple raises otherwise.
    static func checkCounts(_ objects: [String], _ indexes: IndexSet, _ method: String) {
        if objects.count != indexes.count {
            photoKitMisuse("\(method): \(objects.count) objects for \(indexes.count) indexes")
        }
    }

    func intents() -> [ChangeIntent] {
        var intents: [ChangeIntent] = []
        if isCreation, let targetIdentifier {
            intents.append(.createCollection(localIdentifier: targetIdentifier, kind: kind, title: newTitle ?? ""))
            if !edits.isEmpty {
                intents.append(.updateCollection(localIdentifier: targetIdentifier, kind: kind, title: nil, edits: edits, snapshot: nil))
            }
        } else if newTitle != nil || !edits.isEmpty {
            intents.append(.updateCollection(localIdentifier: targetIdentifier, kind: kind, title: newTitle, edits: edits, snapshot: snapshot))
        }
        return intents
    }
}
