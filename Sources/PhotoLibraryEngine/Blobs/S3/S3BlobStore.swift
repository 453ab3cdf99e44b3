import Crypto
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import ObjectStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The blob store of a library whose bytes are in S3-compatible object storage (`files=s3://bucket/prefix`).
///
/// Blobs are filed by content: `<prefix>sha256/<first two digits>/<SHA-256>`, so that a put is idempotent (the same
/// bytes land on the same key, whoever sends them, however often) and the same bytes are stored once (duplicates,
/// an edit's kept previous version). Uploads are checked by the store: each request is signed with the SHA-256 of
/// its body, which for a single put is the blob's own digest. Downloads are hashed on the way and kept only if they
/// are the bytes their key names.
///
/// What a node keeps for itself is in its local folder (``local``): copies of blobs it used (``BlobCache``, bounded,
/// least recently used evicted), cached derivatives, upload and editing areas, writer slots.
///
/// A blob is removed only when no committed row names its digest (``LibraryEngine/removeUnreferenced(_:)`` judges that
/// under the write lock), and a blob put for a transaction is checked to be stored under the same lock, before the
/// rows that name it commit: so a removal and a writer that relies on the same bytes never cross. Blobs that no row
/// names (a writer killed between its upload and its commit) are left for collection.
package struct S3BlobStore: BlobStore {
    package let location: S3Location
    let client: S3Client
    /// This node's own files: derivatives, upload and editing areas.
    package let local: FolderBlobStore
    /// This node's copies of blobs.
    package let cache: BlobCache
    /// Blobs up to this size are sent in one request; larger ones in parts of this size.
    package static let partSize = 16 << 20
    /// How many uploads a preload runs at once.
    static let concurrentUploads = 4
    /// Sizes the store answered, by digest: an object named by its content never changes size, so a file read in
    /// many ranges (a video being scrubbed) asks once. Shared by the process's stores; bounded.
    static let sizes = Mutex<[String: Int64]>([:])

    package init(location: S3Location, local: FolderBlobStore, cacheSize: Int64) {
        self.location = location
        var client = location.client(http: S3EventLoops.http)
        client.timeout = .seconds(300)
        self.client = client
        self.local = local
        self.cache = BlobCache(folder: local.bundle.resourcesURL.appendingPathComponent("cache/blobs"), maximumBytes: cacheSize)
    }

    /// Blobs of the same bytes are one object.
    package var sharesContent: Bool { true }

    package func storedName(of key: BlobKey) -> String {
        location.key("sha256/\(key.sha256.prefix(2))/\(key.sha256)")
    }

    /// The object of `key`; a key whose digest is not a SHA-256 (a damaged row) names none.
    func object(_ key: BlobKey) throws(LibraryError) -> String {
        guard BlobCache.isDigest(key.sha256) else { throw .missingResource("the stored file \(key.path) has no valid SHA-256 to find it by") }
        return storedName(of: key)
    }

    /// Runs one request of the store, blocking; an answer other than the ones `operation` handles is a network error
    /// (the store could not be reached, or refused).
    func request<T: Sendable>(_ what: String, _ operation: @escaping @Sendable (S3Client) async throws -> T) throws(LibraryError) -> T {
        let client = self.client
        do {
            return try S3EventLoops.run { try await operation(client) }
        } catch let error as LibraryError {
            throw error
        } catch {
            throw .networkError("\(what) in \(location.description) failed: \(error)")
        }
    }

    package func size(of key: BlobKey) throws(LibraryError) -> Int64 {
        if let copy = cache.file(for: key.sha256), let size = Self.fileSize(copy) { return size }
        let name = try object(key)
        if let known = Self.sizes.withLock({ $0[storedName(of: key)] }) { return known }
        guard let info = try request("reading the size of \(key.path)", { try await $0.head(key: name) }) else {
            throw .missingResource("the stored file \(key.path) is missing from \(location.description)")
        }
        Self.sizes.withLock { sizes in
            if sizes.count >= 10_000 { sizes.removeAll(keepingCapacity: true) }
            sizes[name] = info.size
        }
        return info.size
    }

    /// One ranged `GET` (or this node's copy): no size asked first.
    package func read(_ key: BlobKey, offset: Int64, count: Int) throws(LibraryError) -> Data {
        guard count > 0, offset >= 0 else { return Data() }
        if cache.file(for: key.sha256) != nil { return try open(key).read(at: offset, count: count) }
        return try get(key, name: try object(key), offset...(offset + Int64(count) - 1))
    }

    /// Bytes of blobs this process has downloaded from object storage — ranges and whole copies, not renderings: what
    /// the benchmarks report (a poster frame read by ranges against the whole movie).
    package static let bytesDownloaded = Atomic<Int64>(0)

    /// The bytes of `range` of the object `name` (fewer at its end; none from past it).
    func get(_ key: BlobKey, name: String, _ range: ClosedRange<Int64>) throws(LibraryError) -> Data {
        let location = self.location
        return try request("reading \(key.path)") { client in
            do {
                let data = try await client.get(key: name, range: range)
                S3BlobStore.bytesDownloaded.add(Int64(data.count), ordering: .relaxed)
                return data
            } catch let error as S3Error where error.status == 416 {
                return Data()  // from the end on: nothing, as a file read there gives
            } catch let error as S3Error where error.status == 404 {
                throw LibraryError.missingResource("the stored file \(key.path) is missing from \(location.description)")
            }
        }
    }

    package func open(_ key: BlobKey) throws(LibraryError) -> any BlobReader {
        if let copy = cache.file(for: key.sha256) { return try FileBlobReader(file: copy, key: key.path) }
        return S3BlobReader(store: self, key: key, name: try object(key), size: try size(of: key))
    }

    package func readSmall(_ key: BlobKey, limit: Int) -> Data? {
        if let copy = cache.file(for: key.sha256) {
            guard let size = Self.fileSize(copy), size <= limit else { return nil }
            return try? Data(contentsOf: copy)
        }
        guard let size = try? size(of: key), size <= limit, let name = try? object(key) else { return nil }
        if size == 0 { return Data() }
        guard let data = try? request("reading \(key.path)", { try await $0.get(key: name) }), data.count <= limit,
            SHA256.hash(data: data).hex == key.sha256
        else { return nil }
        return data
    }

    package func materialize(_ key: BlobKey) throws(LibraryError) -> URL {
        try materialize(key, progress: nil)
    }

    package func isLocal(_ key: BlobKey) -> Bool {
        cache.file(for: key.sha256) != nil
    }

    package func materialize(_ key: BlobKey, progress: (@Sendable (Double) -> Bool)?) throws(LibraryError) -> URL {
        if let copy = cache.file(for: key.sha256) { return copy }
        let name = try object(key)
        let temporary = try cache.temporaryFile()
        let told = progress.map { progress in
            { @Sendable (done: Int64, total: Int64?) -> Bool in progress(total.map { $0 > 0 ? Double(done) / Double($0) : 1 } ?? 0) }
        }
        do {
            try request("downloading \(key.path)") { client in
                do {
                    try await client.download(key: name, to: temporary, sha256: key.sha256, progress: told)
                } catch is CancellationError {
                    throw LibraryError.userCancelled("the download of \(key.path) was stopped")
                } catch let error as S3Error where error.status == 404 {
                    throw LibraryError.missingResource("the stored file \(key.path) is missing from \(location.description)")
                } catch let error as S3Error where error.code == "BadDigest" {
                    throw LibraryError.invalidResource("the stored file \(key.path) in \(location.description) is not the bytes it was stored as")
                }
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
        if let size = Self.fileSize(temporary) { Self.bytesDownloaded.add(size, ordering: .relaxed) }
        return try cache.admit(temporary, sha256: key.sha256)
    }

    /// The object of a derivative: `<prefix>derivatives/<asset>/<name>`, shared by every node (a worker renders once,
    /// every node serves); nil for names that are not plain.
    func derivativeObject(assetUUID: String, name: String?) -> String? {
        guard FolderBlobStore.isPlainName(assetUUID), name.map(FolderBlobStore.isPlainName) ?? true else { return nil }
        return location.key("derivatives/\(assetUUID)/\(name ?? "")")
    }

    /// This node's copy, else the store's (kept here for the next request); nil when neither has it.
    package func derivative(assetUUID: String, name: String) -> Data? {
        if let data = local.derivative(assetUUID: assetUUID, name: name) { return data }
        guard let object = derivativeObject(assetUUID: assetUUID, name: name) else { return nil }
        let data = try? request("reading a rendering") { client -> Data? in
            do { return try await client.get(key: object) } catch let error as S3Error where error.status == 404 { return nil }
        }
        guard let data = data ?? nil else { return nil }
        local.storeDerivative(data, assetUUID: assetUUID, name: name)
        return data
    }

    /// Kept on this node and in the store, for every node. A rendering is made again where storing fails.
    package func storeDerivative(_ data: Data, assetUUID: String, name: String) {
        local.storeDerivative(data, assetUUID: assetUUID, name: name)
        guard let object = derivativeObject(assetUUID: assetUUID, name: name) else { return }
        let digest = SHA256.hash(data: data).hex
        _ = try? request("storing a rendering") { try await $0.put(key: object, body: data, sha256: digest) }
    }

    /// Read from the store by ranges (a node keeps no copy of a video's rendering: it serves what a player asks for).
    package func derivativeFile(assetUUID: String, name: String) -> StoredDerivative? {
        guard let object = derivativeObject(assetUUID: assetUUID, name: name) else { return nil }
        guard let info = try? request("looking for a rendering", { try await $0.head(key: object) }) else { return nil }
        return StoredDerivative(size: info.size, tag: info.etag ?? "\(info.size)", file: nil)
    }

    package func readDerivative(assetUUID: String, name: String, offset: Int64, count: Int) throws(LibraryError) -> Data {
        guard let object = derivativeObject(assetUUID: assetUUID, name: name) else { throw .missingResource("no rendering \(name)") }
        guard count > 0, offset >= 0 else { return Data() }
        return try get(BlobKey(path: name, sha256: ""), name: object, offset...(offset + Int64(count) - 1))
    }

    /// Sent unless the store has it already (a second worker's rendering of the same item is dropped).
    package func storeDerivativeFile(_ file: URL, assetUUID: String, name: String) throws(LibraryError) {
        defer { unlink(file.path) }
        guard let object = derivativeObject(assetUUID: assetUUID, name: name), let size = Self.fileSize(file) else {
            throw .internalError("cannot store the rendering \(name)")
        }
        let (_, digest) = try FileStager.hashFile(file)
        try request("storing a rendering") { client in
            if try await client.head(key: object) != nil { return }
            do { try await Self.send(client, file, size: size, key: BlobKey(path: name, sha256: digest), name: object) } catch let error
                as S3Error where error.status == 412
            {
                return  // stored meanwhile by another worker: that one stays
            }
        }
    }

    /// Stores each blob unless its bytes are there already (a `HEAD`, then a put that takes the key only if it is
    /// free), and takes staged files into this node's cache. Called under the write lock, so that what it finds
    /// stored stays stored until the rows commit (see ``LibraryEngine/removeUnreferenced(_:)``).
    package func put(_ blobs: [(source: BlobSource, key: BlobKey)], placed: inout [BlobKey]) throws(LibraryError) {
        for (source, key) in blobs {
            let name = try object(key)
            switch source {
            case .staged(let file):
                guard let size = Self.fileSize(file) else { throw .missingResource("the staged file for \(key.path) is gone") }
                let stored = try request("looking for \(key.path)") { try await $0.head(key: name) }
                if stored?.size != size {
                    try upload(file, size: size, key: key, name: name)
                }
                // The staged file is the blob's bytes (its digest was taken as it was staged): this node's copy.
                if (try? cache.admit(file, sha256: key.sha256)) == nil { unlink(file.path) }
            case .stored(let existing):
                guard existing.sha256 == key.sha256 else {
                    throw .internalError("\(key.path) was to be \(existing.path)'s bytes under another digest")
                }
                guard try request("looking for \(existing.path)", { try await $0.head(key: name) }) != nil else {
                    throw .missingResource("the stored file \(existing.path) is missing from \(location.description)")
                }
            }
            placed.append(key)
        }
    }

    /// Sends a staged file: in one request, signed with its digest, or in parts checked against it.
    private func upload(_ file: URL, size: Int64, key: BlobKey, name: String) throws(LibraryError) {
        try request("uploading \(key.path)") { client in try await Self.send(client, file, size: size, key: key, name: name) }
    }

    static func send(_ client: S3Client, _ file: URL, size: Int64, key: BlobKey, name: String) async throws {
        do {
            if size <= partSize {
                let body: Data
                // Read on NIO's blocking thread pool: this runs on an event loop of the store's requests.
                do { body = try await NIOThreadPool.singleton.runIfActive { try Data(contentsOf: file) } } catch {
                    throw LibraryError.internalError("cannot read the staged file for \(key.path): \(error)")
                }
                _ = try await client.put(key: name, body: body, sha256: key.sha256, ifNoneMatch: true)
            } else {
                try await client.putMultipart(key: name, file: file, sha256: key.sha256, partSize: partSize)
            }
        } catch let error as S3Error where error.code == "XAmzContentSHA256Mismatch" || error.code == "BadDigest" {
            throw LibraryError.invalidResource("the staged file for \(key.path) changed since it was staged: not stored")
        }
    }

    /// The size and SHA-256 of the stored object, from its bytes as the store sends them (not this node's copy).
    package func digest(of key: BlobKey) throws(LibraryError) -> (size: Int64, sha256: String) {
        let name = try object(key)
        let size = try request("reading the size of \(key.path)") { try await $0.head(key: name) }?.size
        guard let size else { throw .missingResource("the stored file \(key.path) is missing from \(location.description)") }
        let reader = S3BlobReader(store: self, key: key, name: name, size: size)
        var hasher = SHA256()
        var offset: Int64 = 0
        while offset < size {
            let piece = try reader.read(at: offset, count: Self.partSize)
            if piece.isEmpty { break }
            hasher.update(data: piece)
            offset += Int64(piece.count)
        }
        return (offset, hasher.finalize().hex)
    }

    package func storedBlobs() throws(LibraryError) -> [StoredBlob] {
        let prefix = location.key("sha256/")
        return try request("listing \(prefix)") { try await $0.list(prefix: prefix) }.map { object in
            let digest = String(object.key.split(separator: "/").last ?? "")
            return StoredBlob(name: object.key, key: BlobKey(path: object.key, sha256: digest), modified: object.lastModified)
        }
    }

    /// Uploads what is not stored yet (a put that takes the key only if it is free), before the transaction, a few
    /// at a time.
    package func preload(_ staged: [(file: URL, key: BlobKey)]) throws(LibraryError) {
        var work: [(file: URL, size: Int64, key: BlobKey, name: String)] = []
        for (file, key) in staged {
            guard let size = Self.fileSize(file) else { continue }
            work.append((file, size, key, try object(key)))
        }
        guard !work.isEmpty else { return }
        let sending = work
        try request("uploading \(work.count) files") { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = 0
                func start() {
                    let item = sending[next]
                    next += 1
                    group.addTask {
                        if item.size > Self.partSize, try await client.head(key: item.name)?.size == item.size { return }
                        try await Self.send(client, item.file, size: item.size, key: item.key, name: item.name)
                    }
                }
                for _ in 0..<min(Self.concurrentUploads, sending.count) { start() }
                while try await group.next() != nil {
                    if next < sending.count { start() }
                }
            }
        }
    }

    package func abortAbandonedUploads(startedBefore date: Date) -> [String] {
        let prefix = location.key("sha256/")
        let uploads = (try? request("listing uploads in parts") { try await $0.multipartUploads(prefix: prefix) }) ?? []
        var aborted: [String] = []
        for upload in uploads where (upload.initiated ?? .distantPast) <= date {
            if (try? request("ending an upload in parts") { try await $0.abortMultipart(key: upload.key, uploadID: upload.uploadID) }) != nil {
                aborted.append("\(upload.key) (upload \(upload.uploadID))")
            }
        }
        return aborted
    }

    package func abandonedUploadAreas() -> [String] {
        local.abandonedUploadAreas()
    }

    /// Removes the object (and this node's copy). Only for bytes no committed row names, under the write lock.
    package func remove(_ key: BlobKey) {
        guard let name = try? object(key) else { return }
        cache.remove(key.sha256)
        _ = Self.sizes.withLock { $0.removeValue(forKey: name) }
        _ = try? request("removing \(key.path)") { try await $0.delete(key: name) }
    }

    package func removeDerivatives(assetUUID: String, prefix: String?) {
        local.removeDerivatives(assetUUID: assetUUID, prefix: prefix)
        guard let objects = derivativeObject(assetUUID: assetUUID, name: prefix) else { return }
        _ = try? request("removing renderings") { client in
            for object in try await client.list(prefix: objects) { try await client.delete(key: object.key) }
        }
    }

    package func makeUploadArea(label: String) throws(LibraryError) -> ProcessFolder {
        try local.makeUploadArea(label: label)
    }

    static func fileSize(_ file: URL) -> Int64? {
        var info = stat()
        guard stat(file.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}

/// A blob in object storage read in pieces by ranged `GET`s.
final class S3BlobReader: BlobReader {
    let size: Int64
    private let store: S3BlobStore
    private let key: BlobKey
    private let name: String

    init(store: S3BlobStore, key: BlobKey, name: String, size: Int64) {
        self.store = store
        self.key = key
        self.name = name
        self.size = size
    }

    func read(at offset: Int64, count: Int) throws(LibraryError) -> Data {
        guard count > 0, offset >= 0, offset < size else { return Data() }
        return try store.get(key, name: name, offset...min(size - 1, offset + Int64(count) - 1))
    }
}
