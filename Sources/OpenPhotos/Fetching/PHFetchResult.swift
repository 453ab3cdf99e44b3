import BlockingThreads
import Foundation
import Logging
import PhotoLibraryEngine
import PhotoMedia

/// An ordered list of assets or collections returned from a Photos fetch method.
///
/// Membership is fixed when the fetch runs: ``count`` and each slot's object identity never change. Objects are
/// loaded lazily in batches around the index you access, and a bounded number of batches is kept; an object
/// loaded again may show newer property values, as on Apple platforms. The result holds 8 bytes per asset plus
/// the cached batches, so a million-asset result stays small.
///
/// Beyond Apple's API, a fetch result is a Swift `RandomAccessCollection`:
/// ```swift
/// for asset in PHAsset.fetchAssets(with: .image, options: nil) { print(asset.localIdentifier) }
/// ```
open class PHFetchResult<ObjectType: AnyObject>: NSObject, NSCopying, @unchecked Sendable {
    enum Storage {
        /// Asset row ids as they arrive from the fetch's read (see `AssetIDStream`); objects loaded on demand from
        /// the library's engine, or from the server of a served library.
        case assets(any AssetRecordSource, AssetIDStream)
        /// Objects already loaded (collections, transient lists).
        case objects([ObjectType])
    }

    struct BatchCache {
        var batches: [Int: [ObjectType]] = [:]
        var recent: [Int] = []
        /// Batches a served library is loading ahead of the reader (their numbers).
        var loadingAhead: Set<Int> = []
    }

    /// How to run the fetch again (for change details).
    enum Origin {
        /// An asset fetch: PhotoKit's change details re-evaluate it incrementally.
        case assets(AssetScope, FetchOptionsSpec, AccessContext)
        /// Any other fetch: run it again (against the state a change describes).
        case refetch((PHPhotoLibrary) -> PHFetchResult<ObjectType>)
        /// An asset fetch of a served library: its change details fetch the membership again from the server.
        case remote(AssetScope, FetchOptionsSpec, searchText: String?)
        /// Transient lists and empty results: no change details.
        case none
    }

    let storage: Storage
    let library: PHPhotoLibrary?
    /// How the result was fetched; set once, right after the fetch, before the result is shared.
    var origin: Origin = .none
    /// The newest transaction of the library the result's membership reflects.
    var version: Int64 = 0
    /// OpenPhotoKit: why this result is empty when the library could not answer the fetch (a database error,
    /// an unreadable library), else nil.
    ///
    /// Apple's fetch methods cannot throw, and neither can these: a fetch that fails returns an empty result, as
    /// PhotoKit does, logs the error (label `OpenPhotoKit`), and keeps it here, so that a caller that must not
    /// mistake a failure for "no photos" (a command line, a server) can tell. Set before the result is returned —
    /// and for a served library also later, when what the result reads after it was returned fails: the rest of its
    /// membership stopped arriving (the result then holds the part that arrived), or a batch of its objects could
    /// not be loaded (those objects read as deleted ones until the batch is loaded again).
    public internal(set) var fetchError: PHPhotosError? {
        get {
            if let error = cacheLock.withLock({ fetchErrorStorage ?? laterError }) { return error }
            if case .assets(_, let ids) = storage, ids.isComplete, let failure = ids.failureReason {
                return (failure as? LibraryError).map(PHPhotosError.init) ?? (failure as? PHPhotosError) ?? PHPhotosError(.networkError)
            }
            return nil
        }
        set { cacheLock.withLock { fetchErrorStorage = newValue } }
    }
    private var fetchErrorStorage: PHPhotosError?
    /// The last failure to load a batch of objects.
    private var laterError: PHPhotosError?
    /// The options the result was fetched with (for change details).
    let fetchOptions: PHFetchOptions?
    /// Guards the batch cache; broadcast when a batch loaded ahead is kept.
    private let cacheLock = NSCondition()
    private var cacheStorage = BatchCache()

    /// Objects loaded per batch.
    static var batchSize: Int { 100 }
    /// Batches kept in memory at most.
    static var maximumCachedBatches: Int { 3 }

    /// An empty fetch result.
    public override init() {
        self.storage = .objects([])
        self.library = nil
        self.fetchOptions = nil
    }

    init(storage: Storage, library: PHPhotoLibrary?, options: PHFetchOptions? = nil) {
        self.storage = storage
        self.library = library
        self.fetchOptions = options?.copy() as? PHFetchOptions
    }

    convenience init(objects: [ObjectType], library: PHPhotoLibrary?, options: PHFetchOptions? = nil) {
        self.init(storage: .objects(objects), library: library, options: options)
    }

    /// The number of objects in the result (constant for the result's lifetime).
    public var count: Int {
        switch storage {
        // Known at once where the store counted the fetch from its tallies; otherwise once every id has arrived.
        case .assets(_, let ids): ids.count
        case .objects(let objects): objects.count
        }
    }

    /// Whether `index` is in the result; for assets, waits only until that index has arrived (the first object of a
    /// large fetch needs no count).
    private func hasObject(at index: Int) -> Bool {
        switch storage {
        case .assets(_, let ids):
            if let expected = ids.expectedCount { index < expected } else { ids.id(at: index) != nil }
        case .objects(let objects): index >= 0 && index < objects.count
        }
    }

    /// The object at an index. Traps when the index is out of bounds, as Apple's raises.
    open func object(at index: Int) -> ObjectType {
        guard index >= 0, hasObject(at: index) else {
            photoKitMisuse("-[PHFetchResult objectAtIndex:]: index \(index) beyond bounds [0 .. \(count - 1)]")
        }
        switch storage {
        case .objects(let objects):
            return objects[index]
        case .assets(let engine, let ids):
            let batch = index / Self.batchSize
            let cached: ObjectType? = withCache { cache in
                guard let objects = cache.batches[batch] else { return nil }
                if cache.recent.last != batch {
                    cache.recent.removeAll { $0 == batch }
                    cache.recent.append(batch)
                }
                return objects[index - batch * Self.batchSize]
            }
            if let cached { return cached }
            // A batch a served library is loading ahead: wait for it rather than ask the server twice.
            cacheLock.lock()
            while cacheStorage.loadingAhead.contains(batch) { cacheLock.wait() }
            let arrived = cacheStorage.batches[batch]
            cacheLock.unlock()
            if let arrived { return arrived[index - batch * Self.batchSize] }
            let objects = loadBatch(batch, from: engine, ids: ids)
            store(objects, batch: batch)
            // Reading a served library in order: the next batch is asked for while this one is used, so scrolling
            // waits for one round trip at a time at most.
            if engine is RemoteLibrary, ids.id(at: (batch + 1) * Self.batchSize) != nil {
                let next = batch + 1
                let starts = withCache { cache -> Bool in
                    guard cache.batches[next] == nil, !cache.loadingAhead.contains(next) else { return false }
                    cache.loadingAhead.insert(next)
                    return true
                }
                if starts {
                    BlockingThreads.run { [self] in
                        store(loadBatch(next, from: engine, ids: ids), batch: next, ahead: true)
                    }
                }
            }
            return objects[index - batch * Self.batchSize]
        }
    }

    /// The objects of one batch, loaded from the library (or its server).
    /// A batch whose records could not be read is made of deleted objects (kept as any batch is: asked for again
    /// once it is evicted, not at every access), and its error is ``fetchError``'s.
    private func loadBatch(_ batch: Int, from engine: any AssetRecordSource, ids: AssetIDStream) -> [ObjectType] {
        let start = batch * Self.batchSize
        let slice = ids.ids(in: start..<start + Self.batchSize)
        var loaded: (records: [Int64: AssetRecord], extended: [Int64: ExtendedMetadataRecord])?
        do {
            loaded = try engine.loadAssets(slice, extendedMetadata: fetchOptions?.prefetchAssetExtendedMetadata == true)
        } catch {
            PhotosLog.library.error("cannot load objects of a fetch result: \(error.message)")
            cacheLock.withLock { laterError = PHPhotosError(error) }
        }
        let records = loaded?.records ?? [:]
        let extended = loaded?.extended ?? [:]
        let objects = slice.map { id in
            guard let record = records[id] else {
                // A deleted object (or one that could not be read) has no metadata to ask for, asset by asset.
                return PHAsset(
                    record: Self.missingRecord(id), library: library,
                    extendedMetadata: ExtendedMetadataRecord(caption: nil, keywords: [], originalFilename: nil)) as! ObjectType
            }
            return PHAsset(record: record, library: library, extendedMetadata: extended[id]) as! ObjectType
        }
        return objects
    }

    /// Keeps a loaded batch (the least recently used ones beyond the bound go), and wakes readers waiting for it.
    private func store(_ objects: [ObjectType], batch: Int, ahead: Bool = false) {
        cacheLock.lock()
        cacheStorage.batches[batch] = objects
        if ahead {
            cacheStorage.loadingAhead.remove(batch)
            // Loaded ahead of the reader: the least recent of the kept batches but the current one.
            cacheStorage.recent.removeAll { $0 == batch }
            cacheStorage.recent.insert(batch, at: Swift.max(0, cacheStorage.recent.count - 1))
        } else {
            cacheStorage.recent.removeAll { $0 == batch }
            cacheStorage.recent.append(batch)
        }
        while cacheStorage.recent.count > Self.maximumCachedBatches {
            cacheStorage.batches[cacheStorage.recent.removeFirst()] = nil
        }
        cacheLock.broadcast()
        cacheLock.unlock()
    }

    private func withCache<T>(_ body: (inout BatchCache) -> T) -> T {
        cacheLock.lock()
        defer { cacheLock.unlock() }
        return body(&cacheStorage)
    }

    /// An asset purged from the library after the fetch: its slot keeps an object that reports the deletion.
    private static func missingRecord(_ id: Int64) -> AssetRecord {
        AssetRecord.deletedPlaceholder(id: id)
    }

    /// The object at an index.
    open subscript(index: Int) -> ObjectType { object(at: index) }

    /// The first object, or nil when the result is empty.
    open var firstObject: ObjectType? { hasObject(at: 0) ? object(at: 0) : nil }
    /// The last object, or nil when the result is empty.
    open var lastObject: ObjectType? { count > 0 ? object(at: count - 1) : nil }

    /// The objects at the given indexes, in index order.
    open func objects(at indexes: IndexSet) -> [ObjectType] { indexes.map { object(at: $0) } }

    /// Whether the result contains an object (compared by local identifier).
    open func contains(_ anObject: ObjectType) -> Bool { index(of: anObject) != NSNotFound }

    /// The lowest index of an object, or `NSNotFound`.
    open func index(of anObject: ObjectType) -> Int {
        index(of: anObject, in: NSRange(location: 0, length: count))
    }

    /// The lowest index of an object within a range, or `NSNotFound`.
    open func index(of anObject: ObjectType, in range: NSRange) -> Int {
        let lower = Swift.max(0, range.location)
        let upper = Swift.min(count, range.location + range.length)
        guard lower < upper else { return NSNotFound }
        switch storage {
        case .assets(_, let ids):
            guard let asset = anObject as? PHAsset else { return NSNotFound }
            // Objects of this result carry their row id; others are matched by identifier.
            if asset.record.id > 0, let found = ids.ids(in: lower..<upper).firstIndex(of: asset.record.id) { return found }
            return NSNotFound
        case .objects(let objects):
            guard let target = anObject as? PHObject else {
                return objects[lower..<upper].firstIndex { $0 === anObject } ?? NSNotFound
            }
            return objects[lower..<upper].firstIndex { ($0 as? PHObject)?.localIdentifier == target.localIdentifier } ?? NSNotFound
        }
    }

    /// Calls a block for each object, in order, until the block sets `stop`.
    open func enumerateObjects(_ block: (ObjectType, Int, UnsafeMutablePointer<ObjCBool>) -> Void) {
        enumerateObjects(options: [], using: block)
    }

    /// Calls a block for each object (`.reverse` enumerates backwards; `.concurrent` is honoured as serial).
    open func enumerateObjects(
        options opts: NSEnumerationOptions = [], using block: (ObjectType, Int, UnsafeMutablePointer<ObjCBool>) -> Void
    ) {
        enumerateObjects(at: IndexSet(integersIn: 0..<count), options: opts, using: block)
    }

    /// Calls a block for the objects at the given indexes.
    open func enumerateObjects(
        at s: IndexSet, options opts: NSEnumerationOptions = [], using block: (ObjectType, Int, UnsafeMutablePointer<ObjCBool>) -> Void
    ) {
        var stop: ObjCBool = false
        let indexes: [Int] = opts.contains(.reverse) ? s.reversed() : Array(s)
        for index in indexes {
            block(object(at: index), index, &stop)
            if stop.boolValue { return }
        }
    }

    /// How many assets of a media type the result holds.
    open func countOfAssets(with mediaType: PHAssetMediaType) -> Int {
        switch storage {
        case .assets(let engine, let ids):
            return (try? engine.countAssets(ids.all, mediaType: mediaType.rawValue)) ?? 0
        case .objects(let objects):
            return objects.reduce(0) { $0 + (($1 as? PHAsset)?.mediaType == mediaType ? 1 : 0) }
        }
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override var description: String {
        "<PHFetchResult: count=\(count)>"
    }

    // MARK: Internal views

    /// Every object (loads them all: for small results only).
    var allObjects: [ObjectType] { (0..<count).map(object(at:)) }

    /// The row ids of an asset result.
    var assetIDs: ContiguousArray<Int64>? {
        if case .assets(_, let ids) = storage { return ids.all }
        return nil
    }

    /// The local identifiers of the objects, in order.
    var localIdentifiers: [String] {
        switch storage {
        case .objects(let objects): return objects.compactMap { ($0 as? PHObject)?.localIdentifier }
        case .assets(let engine, let stream):
            let ids = stream.all
            let records = (try? engine.loadAssets(ids, extendedMetadata: false).records) ?? [:]
            return ids.compactMap { records[$0]?.localIdentifier }
        }
    }

    /// Bytes held by the result's membership (excluding cached objects): used by the benchmark.
    public var membershipByteCount: Int {
        switch storage {
        case .assets(_, let ids): ids.byteCount
        case .objects(let objects): objects.count * MemoryLayout<ObjectType>.stride
        }
    }
}

extension PHFetchResult: RandomAccessCollection {
    public typealias Element = ObjectType
    public typealias Index = Int
    public typealias Indices = Range<Int>
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
}

extension PHFetchResult: NSFastEnumeration {
    public var _fastEnumerationElements: [Any] { allObjects.map { $0 as Any } }
}
