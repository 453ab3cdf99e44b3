import Foundation
import PhotoLibraryEngine

/// A transaction of a served library, told by its change feed: the `PHChange` a remote library's observers get.
///
/// Its answers describe the server's state when they are asked (the feed says what a transaction touched, not the
/// state right after it): an object's details load it again; a fetch result's fetch its membership again and
/// compare — so applying each change in turn keeps a user interface exact, and a change that a later one already
/// showed answers nil.
final class RemoteChange: PHChange, @unchecked Sendable {
    let event: RemoteChangeEvent
    let remote: RemoteLibrary

    init(event: RemoteChangeEvent, library: PHPhotoLibrary, remote: RemoteLibrary) {
        self.event = event
        self.remote = remote
        super.init(servedBy: library)
    }

    override var changeToken: PHPersistentChangeToken {
        PHPersistentChangeToken.fromWireForm(event.token) ?? PHPersistentChangeToken(libraryUUID: "", transaction: 0)
    }

    override func changeDetails<T: PHObject>(for object: T) -> PHObjectChangeDetails<T>? {
        let identifier = object.localIdentifier
        if object is PHAsset {
            let deleted = event.deletedAssets.contains(identifier)
            guard deleted || event.updatedAssets.contains(identifier) || event.insertedAssets.contains(identifier) else { return nil }
            var after: T?
            if !deleted,
                let (ids, _) = try? remote.fetchAssetIDs(scope: .localIdentifiers([identifier]), options: FetchOptionsSpec(), searchText: nil),
                let id = ids.all.first, let record = try? remote.loadAssets([id], extendedMetadata: false).records[id], record.trashedDate == nil
            {
                after = PHAsset(record: record, library: library) as? T
            }
            return PHObjectChangeDetails(
                before: object, after: after, contentChanged: event.contentChangedAssets.contains(identifier), deleted: after == nil)
        }
        let deleted = event.deletedCollections.contains(identifier)
        guard deleted || event.updatedCollections.contains(identifier) else { return nil }
        let record =
            deleted
            ? nil
            : (try? remote.fetchCollections(scope: .localIdentifiers([identifier], kind: nil), entity: .collection, options: FetchOptionsSpec()))?
                .first
        let after = record.flatMap { library.makeCollection($0) as? T }
        return PHObjectChangeDetails(before: object, after: after, contentChanged: false, deleted: after == nil)
    }

    override func changeDetails<T: PHObject>(for fetchResult: PHFetchResult<T>) -> PHFetchResultChangeDetails<T>? {
        let incremental = fetchResult.fetchOptions?.wantsIncrementalChangeDetails ?? true
        switch fetchResult.origin {
        case .remote(let scope, let spec, let searchText):
            guard case .assets(let source, let before) = fetchResult.storage else { return nil }
            var album = false
            if case .album = scope { album = true }
            guard event.touchesAssets || (album && event.touchesCollections) else { return nil }
            guard let (stream, version) = try? remote.fetchAssetIDs(scope: scope, options: spec, searchText: searchText) else { return nil }
            let after = stream.all
            // The updated assets' handles: what the event names by local identifier, found by one fetch.
            var changed = Set<Int64>()
            if !event.updatedAssets.isEmpty,
                let (ids, _) = try? remote.fetchAssetIDs(
                    scope: .localIdentifiers(Array(event.updatedAssets)), options: FetchOptionsSpec(), searchText: nil)
            {
                changed = Set(ids.all)
            }
            let diff = FetchDiff.between(before.all, after, changed: changed.contains)
            guard !diff.isEmpty else { return nil }
            let afterResult = PHFetchResult<T>(
                storage: .assets(source, AssetIDStream(after)), library: fetchResult.library, options: fetchResult.fetchOptions)
            afterResult.origin = fetchResult.origin
            afterResult.version = version
            return PHFetchResultChangeDetails(before: fetchResult, after: afterResult, diff: diff, incremental: incremental)
        case .refetch(let fetch):
            guard event.touchesCollections || event.touchesAssets else { return nil }
            let owner = fetchResult.library ?? library
            let afterResult = fetch(owner)
            afterResult.origin = fetchResult.origin
            let beforeObjects = fetchResult.allObjects
            let afterObjects = afterResult.allObjects
            var beforeRecords: [String: AnyHashable] = [:]
            func key(_ object: T) -> AnyHashable {
                if let collection = object as? PHCollection { return AnyHashable(collection.record) }
                return AnyHashable(object.localIdentifier)
            }
            for object in beforeObjects { beforeRecords[object.localIdentifier] = key(object) }
            var changedIDs = Set<String>()
            for object in afterObjects
            where event.updatedCollections.contains(object.localIdentifier)
                || (beforeRecords[object.localIdentifier].map { $0 != key(object) } ?? false)
            {
                changedIDs.insert(object.localIdentifier)
            }
            let diff = FetchDiff.between(beforeObjects.map(\.localIdentifier), afterObjects.map(\.localIdentifier), changed: changedIDs.contains)
            guard !diff.isEmpty else { return nil }
            return PHFetchResultChangeDetails(before: fetchResult, after: afterResult, diff: diff, incremental: incremental)
        case .assets, .none:
            return nil
        }
    }

    override var description: String {
        "<PHChange: \(event.token) assets +\(event.insertedAssets.count) ~\(event.updatedAssets.count) -\(event.deletedAssets.count) collections +\(event.insertedCollections.count) ~\(event.updatedCollections.count) -\(event.deletedCollections.count)>"
    }
}
