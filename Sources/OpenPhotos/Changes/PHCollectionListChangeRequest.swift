import Foundation
import PhotoLibraryEngine

/// A request to create, delete, rename or rearrange a folder (collection list), inside a change block.
open class PHCollectionListChangeRequest: PHChangeRequest, @unchecked Sendable {
    /// nil: the top level of the user's collections.
    let targetIdentifier: String?
    let isCreation: Bool
    let snapshot: [String]?
    var newTitle: String?
    var edits: [MembershipEdit] = []

    /// Creates a creation request (used by the factory method; not for direct use).
    public required init(_creatingListWithIdentifier identifier: String, title: String) {
        self.targetIdentifier = identifier
        self.isCreation = true
        self.snapshot = nil
        self.newTitle = title
        super.init()
    }

    private init(target: String?, snapshot: [String]?) {
        self.targetIdentifier = target
        self.isCreation = false
        self.snapshot = snapshot
        super.init()
    }

    /// A request to create a folder with a title.
    open class func creationRequestForCollectionList(withTitle title: String) -> Self {
        self.init(_creatingListWithIdentifier: LocalIdentifier.newCollectionList(), title: title)
    }

    /// A placeholder for the folder a creation request creates.
    open var placeholderForCreatedCollectionList: PHObjectPlaceholder {
        PHObjectPlaceholder(localIdentifier: targetIdentifier ?? "", library: context.library)
    }

    /// Requests that folders be deleted, with every collection inside them (not their assets).
    open class func deleteCollectionLists(_ collectionLists: any NSFastEnumeration) {
        _ = FixedIntentRequest([.deleteCollections(collectionLists.photoObjects.map(\.localIdentifier), kind: .collectionList)])
    }

    /// A request to change a folder; nil when it cannot be changed (moment lists, transient lists).
    public convenience init?(for collectionList: PHCollectionList) {
        self.init(for: collectionList, childCollections: nil)
    }

    /// A request to change a folder with the children you fetched, for index-safe edits.
    public convenience init?(for collectionList: PHCollectionList, childCollections: PHFetchResult<PHCollection>?) {
        guard collectionList.canPerform(.addContent) else { return nil }
        self.init(target: collectionList.localIdentifier, snapshot: childCollections?.localIdentifiers)
    }

    /// A request to rearrange, add or remove collections at the top level of the user's albums and folders.
    public convenience init?(forTopLevelCollectionListUserCollections childCollections: PHFetchResult<PHCollection>?) {
        self.init(target: nil, snapshot: childCollections?.localIdentifiers)
    }

    /// The folder's title.
    open var title: String {
        get { newTitle ?? "" }
        set {
            checkInsideBlock()
            newTitle = newValue
        }
    }

    /// Adds collections (a collection has one parent: it leaves its previous folder).
    open func addChildCollections(_ collections: any NSFastEnumeration) {
        edit(.add(collections.photoObjects.map(\.localIdentifier)))
    }

    /// Inserts collections at indexes.
    open func insertChildCollections(_ collections: any NSFastEnumeration, at indexes: IndexSet) {
        let ids = collections.photoObjects.map(\.localIdentifier)
        if ids.count != indexes.count {
            photoKitMisuse("insertChildCollections: \(ids.count) collections for \(indexes.count) indexes")
        }
        edit(.insert(ids, at: indexes))
    }

    /// Removes collections from the folder (they move to the top level).
    open func removeChildCollections(_ collections: any NSFastEnumeration) {
        edit(.remove(collections.photoObjects.map(\.localIdentifier)))
    }

    /// Removes the collections at indexes.
    open func removeChildCollections(at indexes: IndexSet) {
        edit(.removeAt(indexes))
    }

    /// Replaces the collections at indexes.
    open func replaceChildCollections(at indexes: IndexSet, withChildCollections collections: any NSFastEnumeration) {
        let ids = collections.photoObjects.map(\.localIdentifier)
        if ids.count != indexes.count {
            photoKitMisuse("replaceChildCollections: \(ids.count) collections for \(indexes.count) indexes")
        }
        edit(.replace(at: indexes, with: ids))
    }

    /// Moves the collections at indexes to `toIndex`, computed after removing them.
    open func moveChildCollections(at indexes: IndexSet, to toIndex: Int) {
        edit(.move(at: indexes, to: toIndex))
    }

    private func edit(_ edit: MembershipEdit) {
        checkInsideBlock()
        edits.append(edit)
    }

    override func intents() -> [ChangeIntent] {
        var intents: [ChangeIntent] = []
        if isCreation, let targetIdentifier {
            intents.append(.createCollection(localIdentifier: targetIdentifier, kind: .collectionList, title: newTitle ?? ""))
            if !edits.isEmpty {
                intents.append(.updateCollection(localIdentifier: targetIdentifier, kind: .collectionList, title: nil, edits: edits, snapshot: nil))
            }
        } else if newTitle != nil || !edits.isEmpty {
            intents.append(
                .updateCollection(localIdentifier: targetIdentifier, kind: .collectionList, title: newTitle, edits: edits, snapshot: snapshot))
        }
        return intents
    }
}
