import Foundation
import PhotoLibraryEngine

/// A description of one committed transaction, delivered to ``PHPhotoLibraryChangeObserver``s.
///
/// Ask it about objects and fetch results you hold: the answers describe the library right after this
/// transaction, so applying each change in turn keeps a user interface exact. Both methods return nil when the
/// transaction did not affect what you passed.
open class PHChange: NSObject, @unchecked Sendable {
    /// The transaction, for a library of this process's engine (nil for a served library's: see `RemoteChange`).
    let delivery: ChangeDelivery!
    let library: PHPhotoLibrary
    /// The library as it was right after the transaction (or later: see ``ChangeDelivery/isExact``); nil for a
    /// served library's change.
    let state: LibraryEngine!

    init(delivery: ChangeDelivery, library: PHPhotoLibrary, engine: LibraryEngine) {
        self.delivery = delivery
        self.library = library
        self.state = engine.pinned(to: delivery.state)
    }

    /// A served library's change (`RemoteChange` answers every question itself).
    init(servedBy library: PHPhotoLibrary) {
        self.delivery = nil
        self.library = library
        self.state = nil
    }

    /// OpenPhotoKit: the point in the library's history right after this transaction.
    public var changeToken: PHPersistentChangeToken {
        PHPersistentChangeToken(libraryUUID: state.setting("uuid") ?? "", transaction: delivery.entry.id)
    }

    private var changes: CommitSummary { delivery.entry.changes }

    /// How an asset or collection changed, or nil when the transaction did not change it.
    open func changeDetails<T: PHObject>(for object: T) -> PHObjectChangeDetails<T>? {
        let identifier = object.localIdentifier
        if object is PHAsset {
            let deleted = changes.deletedAssets.contains { $0.localIdentifier == identifier }
            guard
                deleted || changes.updatedAssets.contains(where: { $0.localIdentifier == identifier })
                    || changes.insertedAssets.contains(where: { $0.localIdentifier == identifier })
            else { return nil }
            let record = (try? state.asset(localIdentifier: identifier)) ?? nil
            let after = record.flatMap { $0.trashedDate == nil ? PHAsset(record: $0, library: library) as? T : nil }
            return PHObjectChangeDetails(
                before: object, after: after, contentChanged: changes.contentChanged(identifier), deleted: deleted || after == nil)
        }
        let deleted = changes.deletedCollections.contains { $0.localIdentifier == identifier }
        guard deleted || changes.updatedCollections.contains(where: { $0.localIdentifier == identifier }) else { return nil }
        let record = deleted ? nil : ((try? state.collection(localIdentifier: identifier)) ?? nil)
        let after = record.flatMap { library.makeCollection($0) as? T }
        return PHObjectChangeDetails(before: object, after: after, contentChanged: false, deleted: after == nil)
    }

    /// How a fetch result changed, or nil when the transaction did not change its membership, order or objects.
    ///
    /// Transient collections' results get no details (compute them with
    /// ``PHFetchResultChangeDetails/init(from:to:changedObjects:)``).
    open func changeDetails<T: PHObject>(for fetchResult: PHFetchResult<T>) -> PHFetchResultChangeDetails<T>? {
        let incremental = fetchResult.fetchOptions?.wantsIncrementalChangeDetails ?? true
        switch fetchResult.origin {
        case .none, .remote:
            return nil
        case .assets(let scope, let spec, let access):
            guard case .assets(let live, let before) = fetchResult.storage else { return nil }
            // A result fetched after this transaction already shows it.
            guard fetchResult.version < delivery.entry.id else { return nil }
            let albumID: Int64?
            if case .album(let id) = scope { albumID = id } else { albumID = nil }
            func editsAlbum(_ collections: [CommitSummary.Collection]) -> Bool {
                guard let albumID else { return false }
                return collections.contains { (try? state.collectionID(localIdentifier: $0.localIdentifier)) == albumID }
            }
            guard !changes.touchedAssetIDs.isEmpty || editsAlbum(changes.updatedCollections) else { return nil }
            // Everything between the result's version and the state: usually just this transaction; more when the
            // result missed transactions (nobody asked about it then) or several commits of another process share
            // one state. Only the touched rows are read again when all of them are known and the order of the
            // untouched ones cannot have changed.
            let span = changes(since: fetchResult.version)
            let rowLocal = incremental && span.map { !editsAlbum($0.updatedCollections) } ?? false
            let updated = Set((span ?? changes).updatedAssets.map(\.id))
            guard
                let (after, diff) = try? state.assetFetchChange(
                    before: before.all, scope: scope, options: spec, access: access, touched: rowLocal ? span?.touchedAssetIDs : nil,
                    updated: updated),
                !diff.isEmpty
            else { return nil }
            let afterResult = PHFetchResult<T>(
                storage: .assets(live, AssetIDStream(after)), library: fetchResult.library, options: fetchResult.fetchOptions)
            afterResult.origin = fetchResult.origin
            afterResult.version = delivery.stateVersion
            return PHFetchResultChangeDetails(before: fetchResult, after: afterResult, diff: diff, incremental: incremental)
        case .refetch(let fetch):
            guard fetchResult.version < delivery.entry.id else { return nil }
            let owner = fetchResult.library ?? library
            let afterResult = PinnedEngine.$current.withValue(PinnedEngine(library: owner, engine: state)) { fetch(owner) }
            afterResult.origin = fetchResult.origin
            afterResult.version = delivery.stateVersion
            let beforeObjects = fetchResult.allObjects
            let afterObjects = afterResult.allObjects
            var beforeRecords: [String: AnyHashable] = [:]
            for object in beforeObjects { beforeRecords[object.localIdentifier] = Self.recordKey(object) }
            let updated = Set(changes.updatedCollections.map(\.localIdentifier))
            var changedIDs = Set<String>()
            for object in afterObjects
            where updated.contains(object.localIdentifier)
                || (beforeRecords[object.localIdentifier].map { $0 != Self.recordKey(object) } ?? false)
            {
                changedIDs.insert(object.localIdentifier)
            }
            let diff = FetchDiff.between(beforeObjects.map(\.localIdentifier), afterObjects.map(\.localIdentifier), changed: changedIDs.contains)
            guard !diff.isEmpty else { return nil }
            return PHFetchResultChangeDetails(before: fetchResult, after: afterResult, diff: diff, incremental: incremental)
        }
    }

    /// What changed after `version` up to the state this change is described against, as one summary (nil when the
    /// history between them is too long to be worth reading, or no longer kept).
    private func changes(since version: Int64) -> CommitSummary? {
        if version == delivery.entry.id - 1, delivery.isExact { return changes }
        let count = delivery.stateVersion - version
        guard count > 0, count <= 1_000, let entries = try? state.journalEntries(after: version, limit: Int(count)) else { return nil }
        var union = CommitSummary()
        for entry in entries { union.merge(entry.changes) }
        return union
    }

    private static func recordKey(_ object: PHObject) -> AnyHashable {
        if let collection = object as? PHCollection { return collection.record }
        if let asset = object as? PHAsset { return asset.record }
        return object.localIdentifier
    }

    open override var description: String {
        let c = changes
        return
            "<PHChange: transaction \(delivery.entry.id) assets +\(c.insertedAssets.count) ~\(c.updatedAssets.count) -\(c.deletedAssets.count) collections +\(c.insertedCollections.count) ~\(c.updatedCollections.count) -\(c.deletedCollections.count)>"
    }
}

/// While a change runs a collection fetch again, the library's fetches read the state the change describes.
struct PinnedEngine: Sendable {
    let library: PHPhotoLibrary
    let engine: LibraryEngine

    @TaskLocal static var current: PinnedEngine?
}
