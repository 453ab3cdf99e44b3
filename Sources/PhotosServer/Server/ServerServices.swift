import Foundation
import HTTPTypes
import Logging
import OpenPhotos
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif
// `struct stat` is owned by whichever C module first included <sys/stat.h>: in release builds that is Dispatch's.
#if canImport(CDispatch)
    import CDispatch
#endif

/// What every route shares: the library opened as its owner (tokens, history), one handle per client, the image
/// manager and its encoded-image cache, and the change feed.
final class ServerServices: Sendable {
    let libraryURL: URL
    let owner: PHPhotoLibrary
    let configuration: PhotosServer.Configuration
    let logger: Logger
    let imageManager = PHCachingImageManager()
    let encodedImages = EncodedImageCache(capacity: 256 << 20)
    let feed: ChangeFeed
    let uploads: Uploads
    /// What an image request resolves to (ETag and headers), per client, asset, version and parameters: lets a
    /// cached thumbnail be served after one token check, without reading the asset. Emptied by ``invalidateIfChanged()`` after every commit of
    /// the library (edits, deletions, grants) by any process.
    let resolved = ResolutionCache()
    /// The clients of tokens seen since the last commit of the library (any process): a token is checked against the
    /// database once per commit, not per request. Revoking is a commit, so it applies to the next request.
    let tokens = Mutex<[String: String]>([:])
    /// Requests answered by ``CachedImageHandler`` before the router.
    let cachedAnswers = Atomic<Int>(0)
    /// What the database files were at the last look: a commit of any process changes them.
    private let probe: Mutex<DatabaseChangeProbe>
    private let clients = Mutex<[String: PHPhotoLibrary]>([:])

    init(libraryURL: URL, configuration: PhotosServer.Configuration, logger: Logger) throws {
        self.libraryURL = libraryURL
        self.configuration = configuration
        self.logger = logger
        owner = try PHPhotoLibrary(url: libraryURL, clientIdentifier: nil)
        probe = Mutex(DatabaseChangeProbe(libraryURL: libraryURL))
        if let reason = owner.unavailabilityReason { throw reason }
        feed = ChangeFeed(library: owner, logger: logger)
        uploads = try Uploads(library: owner)
    }

    /// Empties the per-commit caches (tokens, version resolutions) when the library changed since the last call:
    /// one read of the log index's header (``DatabaseChangeProbe``), so the caches are exact for every request without
    /// waiting for a change notification.
    func invalidateIfChanged() {
        let changed = probe.withLock { $0.changed() }
        guard changed else { return }
        tokens.withLock { $0.removeAll(keepingCapacity: true) }
        resolved.clear()
    }

    /// The client a token acts for, from the cache or the database.
    func client(forToken token: String) -> String? {
        if let client = tokens.withLock({ $0[token] }) { return client }
        guard let client = owner.clientIdentifier(forAccessToken: token) else { return nil }
        tokens.withLock { tokens in
            if tokens.count > 10_000 { tokens.removeAll() }
            tokens[token] = client
        }
        return client
    }

    /// The client a token acts for when it was checked since the last commit; nil when the database must be asked
    /// (the caller then leaves the request to the router).
    func cachedClient(forToken token: String) -> String? { tokens.withLock { $0[token] } }

    /// The handle a client's requests act through (opened once per client, kept for the server's life).
    func library(for client: String) throws -> PHPhotoLibrary {
        if let open = clients.withLock({ $0[client] }) { return open }
        let library = try PHPhotoLibrary(url: libraryURL, clientIdentifier: client)
        return clients.withLock { clients in
            if let raced = clients[client] { return raced }
            clients[client] = library
            return library
        }
    }
}

/// What an image request resolved to (its ETag, made of the version's hash, and its headers), by client, asset,
/// version and rendering parameters — see ``ServerServices/resolved``.
struct ResolvedImage: Sendable {
    var etag: String
    /// The answer's headers, the ETag among them (without Content-Length).
    var headers: HTTPFields
}

/// Image requests resolved since the last commit of the library — see ``ServerServices/resolved``.
final class ResolutionCache: Sendable {
    private let entries = Mutex<[String: ResolvedImage]>([:])
    func get(_ key: String) -> ResolvedImage? { entries.withLock { $0[key] } }

    func clear() { entries.withLock { $0.removeAll(keepingCapacity: true) } }

    func put(_ key: String, _ resolved: ResolvedImage) {
        entries.withLock { entries in
            if entries.count >= 200_000 { entries.removeAll(keepingCapacity: true) }
            entries[key] = resolved
        }
    }
}

/// Whether a commit became visible in the library's database since the last look, by any process.
///
/// The database is in WAL mode, and a commit becomes visible to readers when its writer updates the header of the
/// log's index (the `-shm` file, <https://www.sqlite.org/walformat.html>): frame count, change counter, checksums
/// and salts. Reading those 48 bytes with `pread` tells exactly whether anything was committed since the last read —
/// one system call without a path to resolve, and neither early (a log write not yet published) nor late. Without
/// the index (a library not in WAL mode) the size, time and inode of the database files (`stat`) stand in.
struct DatabaseChangeProbe: ~Copyable {
    private var index: Int32
    private var header = Header()

    /// The index header's 48 bytes, compared as six words (no allocation per request).
    private struct Header: Equatable {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        static func == (a: Header, b: Header) -> Bool {
            a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
                && a.words.4 == b.words.4 && a.words.5 == b.words.5
        }
    }
    private let indexPath: String
    private let paths: [String]
    private var stamp: [[Int]] = []

    init(libraryURL: URL) {
        let folder = libraryURL.appendingPathComponent("database")
        indexPath = folder.appendingPathComponent("Photos.sqlite-shm").path
        paths = ["Photos.sqlite", "Photos.sqlite-wal"].map { folder.appendingPathComponent($0).path }
        index = open(indexPath, O_RDONLY | O_CLOEXEC)
        _ = changed()
    }

    deinit { if index >= 0 { close(index) } }

    /// True when the database changed since the last call.
    mutating func changed() -> Bool {
        if index >= 0 {
            var now = Header()
            let descriptor = index
            if withUnsafeMutableBytes(of: &now.words, { pread(descriptor, $0.baseAddress, 48, 0) }) == 48 {
                defer { header = now }
                return now != header
            }
            // The index is gone (every connection closed, which this server's own do not): open it again.
            close(index)
            index = open(indexPath, O_RDONLY | O_CLOEXEC)
            return true
        }
        let now = paths.map { path -> [Int] in
            var info = stat()
            guard stat(path, &info) == 0 else { return [] }
            return [Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_ino)]
        }
        defer { stamp = now }
        return now != stamp
    }
}
