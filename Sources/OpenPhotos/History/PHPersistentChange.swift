import Foundation
import PhotoLibraryEngine

/// One committed transaction of the library's persistent history.
public final class PHPersistentChange: NSObject, @unchecked Sendable {
    /// The token right after this change: fetch with it to get the changes that follow.
    public let changeToken: PHPersistentChangeToken
    let entry: JournalEntry

    init(entry: JournalEntry, libraryUUID: String) {
        self.entry = entry
        self.changeToken = PHPersistentChangeToken(libraryUUID: libraryUUID, transaction: entry.id)
    }

    /// OpenPhotoKit: when the change was committed.
    public var date: Date { entry.date }

    /// OpenPhotoKit: the client that made the change (its `PHPhotoLibrary` client identifier); nil for the library's
    /// owner.
    public var clientIdentifier: String? { entry.clientID }

    /// OpenPhotoKit: the assets whose content (not only properties) the change replaced: content edits and reverts.
    /// They are among the updated identifiers of ``changeDetails(for:)``.
    public var contentChangedAssetLocalIdentifiers: Set<String> { Set(entry.changes.contentChangedAssets.map(\.localIdentifier)) }

    /// The inserted, updated and deleted identifiers of one object type.
    public func changeDetails(for objectType: PHObjectType) throws -> PHPersistentObjectChangeDetails {
        let c = entry.changes
        switch objectType {
        case .asset:
            return PHPersistentObjectChangeDetails(
                objectType: .asset, inserted: Set(c.insertedAssets.map(\.localIdentifier)),
                updated: Set(c.updatedAssets.map(\.localIdentifier)), deleted: Set(c.deletedAssets.map(\.localIdentifier)))
        case .assetCollection, .collectionList:
            let kind: CollectionKind = objectType == .assetCollection ? .assetCollection : .collectionList
            func ids(_ list: [CommitSummary.Collection]) -> Set<String> { Set(list.filter { $0.kind == kind }.map(\.localIdentifier)) }
            return PHPersistentObjectChangeDetails(
                objectType: objectType, inserted: ids(c.insertedCollections), updated: ids(c.updatedCollections),
                deleted: ids(c.deletedCollections))
        }
    }

    public override var description: String { "<PHPersistentChange: #\(entry.id) \(entry.date)>" }
}
