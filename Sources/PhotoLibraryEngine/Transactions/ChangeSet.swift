import Foundation

/// Where a new resource's bytes come from.
package enum ResourceSource: Sendable {
    case file(URL, move: Bool)
    case data(Data)
}

/// A resource added to an asset being created (`PHAssetCreationRequest.addResource`).
package struct ResourceInput: Sendable {
    package var type: Int
    package var source: ResourceSource
    package var originalFilename: String?
    package var uniformTypeIdentifier: String?

    package init(type: Int, source: ResourceSource, originalFilename: String?, uniformTypeIdentifier: String?) {
        self.type = type
        self.source = source
        self.originalFilename = originalFilename
        self.uniformTypeIdentifier = uniformTypeIdentifier
    }
}

/// Writable asset properties; nil means "not changed", `.some(nil)` means "set to nil".
package struct AssetPropertyChanges: Sendable {
    package var creationDate: Date??
    package var location: LocationRecord??
    package var isFavorite: Bool?
    package var isHidden: Bool?

    package init() {}

    package var isEmpty: Bool { creationDate == nil && location == nil && isFavorite == nil && isHidden == nil }
}

/// An edit of an ordered membership list (album assets or folder children), PhotoKit's index semantics.
package enum MembershipEdit: Sendable {
    /// Append (or, without a snapshot, anywhere; we append).
    case add([String])
    /// NSMutableArray `insertObjects:atIndexes:` semantics.
    case insert([String], at: IndexSet)
    case remove([String])
    case removeAt(IndexSet)
    case replace(at: IndexSet, with: [String])
    /// Remove the items, then insert them at `to`, an index computed after the removal.
    case move(at: IndexSet, to: Int)
}

/// One intent collected from a change request inside a change block.
package enum ChangeIntent: Sendable {
    case createAsset(localIdentifier: String, resources: [ResourceInput], properties: AssetPropertyChanges)
    case updateAsset(localIdentifier: String, properties: AssetPropertyChanges)
    case deleteAssets([String])
    case recoverAssets([String])
    case createCollection(localIdentifier: String, kind: CollectionKind, title: String)
    /// `collection == nil` means the top level of user collections.
    case updateCollection(
        localIdentifier: String?, kind: CollectionKind, title: String?, edits: [MembershipEdit], snapshot: [String]?)
    case deleteCollections([String], kind: CollectionKind)
}

extension ChangeIntent {
    var isCollectionCreation: Bool {
        if case .createCollection = self { return true }
        return false
    }
}

/// What a committed transaction did, by local identifier.
package struct CommitSummary: Sendable, Equatable {
    package var insertedAssets: [String] = []
    package var updatedAssets: [String] = []
    package var deletedAssets: [String] = []
    package var insertedCollections: [String] = []
    package var updatedCollections: [String] = []
    package var deletedCollections: [String] = []

    package init() {}
}
