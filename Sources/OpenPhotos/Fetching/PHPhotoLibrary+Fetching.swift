import Foundation
import Logging
import PhotoLibraryEngine
import PhotoMedia

/// Fetch plumbing shared by the class methods: options → engine scope → fetch result.
///
/// Unusable options trap with a message naming the key (as Apple raises); a library that could not be opened,
/// or a client without read access, gets empty results — never an error with data. A fetch the database fails
/// gets an empty result too (Apple's fetches cannot throw) with the error logged and kept in
/// ``PHFetchResult/fetchError``: never an empty result that looks like a true answer.
extension PHPhotoLibrary {
    private func spec(_ options: PHFetchOptions?) -> FetchOptionsSpec {
        do throws(FetchPredicateError) { return try PHFetchOptions.spec(from: options) } catch { photoKitMisuse(error.description) }
    }

    /// The error of the last fetch made on this thread that failed (set by ``run(_:empty:)``), to put on its result.
    @TaskLocal private static var failureSink: FailureSink?

    private final class FailureSink: @unchecked Sendable {
        var error: PHPhotosError?
    }

    private func run<T>(_ body: () throws -> T, empty: T) -> T {
        do { return try body() } catch let error as FetchPredicateError { photoKitMisuse(error.description) } catch {
            let photosError =
                (error as? LibraryError).map(PHPhotosError.init) ?? PHPhotosError(.internalError, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
            PhotosLog.library.error("fetch failed; returning an empty result: \(photosError.localizedDescription)")
            Self.failureSink?.error = photosError
            return empty
        }
    }

    /// An empty result for a library that could not be opened, with the reason.
    private func unavailable<T>() -> PHFetchResult<T> {
        let result = PHFetchResult<T>()
        if case .failure(let error) = state {
            PhotosLog.library.error("fetch from a library that could not be opened: \(error.message)")
            result.fetchError = PHPhotosError(error)
        }
        return result
    }

    /// Runs a fetch and puts the error of a failed database read on the result it returns.
    private func reportingFailure<T>(_ fetch: () -> PHFetchResult<T>) -> PHFetchResult<T> {
        let sink = FailureSink()
        let result = Self.$failureSink.withValue(sink) { fetch() }
        if let error = sink.error { result.fetchError = error }
        return result
    }

    func fetchAssets(scope: AssetScope, options: PHFetchOptions?) -> PHFetchResult<PHAsset> {
        reportingFailure { fetchAssetsReportingNothing(scope: scope, options: options) }
    }

    private func fetchAssetsReportingNothing(scope: AssetScope, options: PHFetchOptions?) -> PHFetchResult<PHAsset> {
        let spec = spec(options)
        if let remote {
            // The server reads the membership in one transaction and streams its ids; objects load in batches.
            let (ids, version) = run(
                { try remote.fetchAssetIDs(scope: scope, options: spec, searchText: options?.searchText) }, empty: (AssetIDStream([]), 0))
            let result = PHFetchResult<PHAsset>(storage: .assets(remote, ids), library: self, options: options)
            if case .ordered = scope {} else { result.origin = .remote(scope, spec, searchText: options?.searchText) }
            result.version = version
            return result
        }
        guard let engine = engineIfAvailable else { return unavailable() }
        let access = self.access
        // The first page before this returns; the rest of the membership arrives from the same read in the background.
        let (ids, version) = run(
            { try engine.streamAssetIDs(scope: scope, options: spec, access: access) }, empty: (AssetIDStream([]), 0))
        let result = PHFetchResult<PHAsset>(storage: .assets(engine, ids), library: self, options: options)
        if case .ordered = scope {} else { result.origin = .assets(scope, spec, access) }
        result.version = version
        return result
    }

    /// Runs a collection fetch and remembers how, so a change can run it again against the state it describes.
    func refetchable<T>(_ fetch: @escaping (PHPhotoLibrary) -> PHFetchResult<T>) -> PHFetchResult<T> {
        let version = (try? engineIfAvailable?.changeHistoryBounds().current) ?? 0
        let result = fetch(self)
        result.origin = .refetch(fetch)
        result.version = version
        return result
    }

    func fetchAssets(in collection: PHAssetCollection, options: PHFetchOptions?) -> PHFetchResult<PHAsset> {
        fetchAssets(scope: assetScope(of: collection), options: options)
    }

    func assetScope(of collection: PHAssetCollection) -> AssetScope {
        if let identifiers = collection.transientAssetIdentifiers { return .ordered(identifiers) }
        let record = collection.record
        if case .moment(let day, let place) = record.momentKey { return .moment(day: day, place: place) }
        if record.isSmartAlbum { return .smartAlbum(subtype: record.subtype) }
        if let id = record.id { return .album(id) }
        return .ordered([])
    }

    func fetchKeyAssets(in collection: PHAssetCollection, options: PHFetchOptions?) -> PHFetchResult<PHAsset>? {
        if collection.isTransient { return nil }
        let spec = spec(options)
        if let remote {
            var first = spec
            first.fetchLimit = spec.fetchLimit > 0 ? spec.fetchLimit : 1
            let (ids, _) = run(
                { try remote.fetchAssetIDs(scope: assetScope(of: collection), options: first, searchText: nil) }, empty: (AssetIDStream([]), 0))
            return PHFetchResult(storage: .assets(remote, AssetIDStream(ids.all)), library: self, options: options)
        }
        guard let engine = engineIfAvailable else { return nil }
        let ids = run({ try engine.keyAssetIDs(scope: assetScope(of: collection), options: spec, access: access) }, empty: [])
        return PHFetchResult(storage: .assets(engine, AssetIDStream(ids)), library: self, options: options)
    }

    func fetchStoredCollections<T: PHCollection>(_ scope: CollectionScope, entity: FetchEntity, options: PHFetchOptions?) -> PHFetchResult<T> {
        reportingFailure {
            let spec = spec(options)
            if let remote {
                let records = run({ try remote.fetchCollections(scope: scope, entity: entity, options: spec) }, empty: [])
                return PHFetchResult(objects: records.compactMap { makeCollection($0) as? T }, library: self, options: options)
            }
            guard let engine = engineIfAvailable else { return unavailable() }
            let records = run({ try engine.fetchCollections(scope: scope, entity: entity, options: spec, access: access) }, empty: [])
            return PHFetchResult(objects: records.compactMap { makeCollection($0) as? T }, library: self, options: options)
        }
    }

    func makeCollection(_ record: CollectionRecord) -> PHCollection {
        record.kind == .assetCollection
            ? PHAssetCollection(record: record, library: self) : PHCollectionList(record: record, library: self)
    }

    func fetchMomentRecords(_ filter: MomentFilter, options: PHFetchOptions?) -> [CollectionRecord] {
        let spec = spec(options)
        if let remote { return run({ try remote.fetchMoments(filter, options: spec) }, empty: []) }
        guard let engine = engineIfAvailable else { return [] }
        return run({ try engine.fetchMoments(filter, options: spec, access: access) }, empty: [])
    }

    func fetchAssetCollections(type: Int, subtype: PHAssetCollectionSubtype, options: PHFetchOptions?) -> PHFetchResult<PHAssetCollection> {
        if type == 3 {
            return reportingFailure {
                PHFetchResult(
                    objects: fetchMomentRecords(.all, options: options).map { PHAssetCollection(record: $0, library: self) },
                    library: self, options: options)
            }
        }
        var subtypeFilter: Int? = subtype == .any ? nil : subtype.rawValue
        // Ported code often asks for smart albums with an album subtype and still expects smart albums.
        if type == 2, let value = subtypeFilter, value < 200 { subtypeFilter = nil }
        return fetchStoredCollections(.assetCollections(type: type, subtype: subtypeFilter), entity: .assetCollection, options: options)
    }

    func fetchAssetCollections(withLocalIdentifiers identifiers: [String], options: PHFetchOptions?) -> PHFetchResult<PHAssetCollection> {
        let stored: PHFetchResult<PHAssetCollection> = fetchStoredCollections(
            .localIdentifiers(identifiers, kind: .assetCollection), entity: .assetCollection, options: options)
        let momentIDs = identifiers.filter { $0.hasSuffix("/L0/060") }
        if momentIDs.isEmpty { return stored }
        let moments = fetchMomentRecords(.all, options: options).filter { momentIDs.contains($0.localIdentifier) }
        return PHFetchResult(
            objects: stored.allObjects + moments.map { PHAssetCollection(record: $0, library: self) }, library: self, options: options)
    }

    func fetchAssetCollections(containing asset: PHAsset, type: Int, options: PHFetchOptions?) -> PHFetchResult<PHAssetCollection> {
        switch type {
        case 1:
            return fetchStoredCollections(.albumsContaining(assetID: asset.record.id), entity: .assetCollection, options: options)
        case 3:
            let records = fetchMomentRecords(.containingAsset(asset.record.id), options: options)
            return PHFetchResult(objects: records.map { PHAssetCollection(record: $0, library: self) }, library: self, options: options)
        default:
            return PHFetchResult()
        }
    }

    func fetchMoments(in momentList: PHCollectionList?, options: PHFetchOptions?) -> PHFetchResult<PHAssetCollection> {
        var filter = MomentFilter.all
        switch momentList?.record.momentKey {
        case .year(let year): filter = .year(year)
        case .cluster(let month): filter = .month(month)
        case .moment, .none:
            if momentList != nil { return PHFetchResult() }
        }
        return reportingFailure {
            let records = fetchMomentRecords(filter, options: options)
            return PHFetchResult(objects: records.map { PHAssetCollection(record: $0, library: self) }, library: self, options: options)
        }
    }

    func momentLists(subtype: Int?) -> [PHCollectionList] {
        let records: [CollectionRecord]
        if let remote {
            records = run({ try remote.fetchMomentLists(subtype: subtype) }, empty: [])
        } else {
            guard let engine = engineIfAvailable else { return [] }
            records = run({ try engine.fetchMomentLists(subtype: subtype, access: access) }, empty: [])
        }
        return records.map { PHCollectionList(record: $0, library: self) }
    }

    func fetchCollectionLists(type: Int, subtype: Int, options: PHFetchOptions?) -> PHFetchResult<PHCollectionList> {
        if type == 1 {
            return reportingFailure {
                let lists = momentLists(subtype: subtype == PHCollectionListSubtype.any.rawValue ? nil : subtype)
                return PHFetchResult(objects: lists, library: self, options: options)
            }
        }
        if type == PHCollectionListType.folder.rawValue, subtype == PHCollectionListSubtype.rootFolder.rawValue {
            return PHFetchResult(objects: [PHCollectionList.rootFolder(library: self)], library: self, options: options)
        }
        let subtypeFilter = subtype == PHCollectionListSubtype.any.rawValue ? nil : subtype
        return fetchStoredCollections(.collectionLists(type: type, subtype: subtypeFilter), entity: .collectionList, options: options)
    }

    func fetchCollectionLists(withLocalIdentifiers identifiers: [String], options: PHFetchOptions?) -> PHFetchResult<PHCollectionList> {
        let stored: PHFetchResult<PHCollectionList> = fetchStoredCollections(
            .localIdentifiers(identifiers, kind: .collectionList), entity: .collectionList, options: options)
        let root = identifiers.contains(PHCollectionList.rootFolderIdentifier) ? [PHCollectionList.rootFolder(library: self)] : []
        guard identifiers.contains(where: { $0.hasSuffix("/L0/070") }) || !root.isEmpty else { return stored }
        let lists = momentLists(subtype: nil).filter { identifiers.contains($0.localIdentifier) }
        return PHFetchResult(objects: root + stored.allObjects + lists, library: self, options: options)
    }

    func fetchCollectionLists(containing collection: PHCollection, options: PHFetchOptions?) -> PHFetchResult<PHCollectionList> {
        if case .moment(let day, _) = collection.record.momentKey {
            let lists = momentLists(subtype: nil).filter { list in
                switch list.record.momentKey {
                case .year(let year): return day.hasPrefix(year)
                case .cluster(let month): return day.hasPrefix(month)
                default: return false
                }
            }
            return PHFetchResult(objects: lists, library: self, options: options)
        }
        guard let id = collection.record.id else { return PHFetchResult() }
        let parents: PHFetchResult<PHCollectionList> = fetchStoredCollections(.parent(ofCollectionID: id), entity: .collectionList, options: options)
        if parents.count == 0, parents.fetchError == nil, collection.record.isUserAlbum || collection.record.isFolder {
            // A user collection in no folder is at the top level: in the root folder.
            return PHFetchResult(objects: [PHCollectionList.rootFolder(library: self)], library: self, options: options)
        }
        return parents
    }

    func fetchCollections(in list: PHCollectionList, options: PHFetchOptions?) -> PHFetchResult<PHCollection> {
        if let collections = list.transientCollections {
            return PHFetchResult(objects: collections, library: self, options: options)
        }
        if list.isRootFolder {
            return fetchStoredCollections(.children(of: nil), entity: .collection, options: options)
        }
        if list.record.isMomentList {
            let moments = fetchMoments(in: list, options: options)
            return PHFetchResult(objects: moments.allObjects, library: self, options: options)
        }
        guard let id = list.record.id else { return PHFetchResult() }
        return fetchStoredCollections(.children(of: id), entity: .collection, options: options)
    }
}

extension PHPhotoLibrary {
    /// The asset as the library holds it now (nil when it is gone or not visible to this client).
    package func refreshedAsset(_ asset: PHAsset) -> PHAsset? {
        guard access.canRead, let engine = engineIfAvailable, let record = try? engine.asset(localIdentifier: asset.localIdentifier) else {
            return nil
        }
        return PHAsset(record: record, library: self)
    }
}
