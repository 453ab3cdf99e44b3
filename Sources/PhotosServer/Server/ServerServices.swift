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
    /// What the database files were at the last look: a commit of any process changes them.
    private let stamp: Mutex<LibraryStamp>
    /// The files the stamp is made of, built once (building URLs per request cost more than the `stat`s).
    private let stampPaths: [String]
    private let clients = Mutex<[String: PHPhotoLibrary]>([:])

    init(libraryURL: URL, configuration: PhotosServer.Configuration, logger: Logger) throws {
        self.libraryURL = libraryURL
        self.configuration = configuration
        self.logger = logger
        owner = try PHPhotoLibrary(url: libraryURL, clientIdentifier: nil)
        stampPaths = LibraryStamp.paths(libraryURL)
        stamp = Mutex(LibraryStamp(stampPaths))
        if let reason = owner.unavailabilityReason { throw reason }
        feed = ChangeFeed(library: owner, logger: logger)
        uploads = try Uploads(libraryURL: libraryURL)
    }

    /// Empties the per-commit caches (tokens, version resolutions) when the library changed since the last call:
    /// two `stat` calls, so the caches are exact for every request without waiting for a change notification.
    func invalidateIfChanged() {
        let now = LibraryStamp(stampPaths)
        let changed = stamp.withLock { stamp in
            defer { stamp = now }
            return stamp != now
        }
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

/// The identity of the library database's files (main file and write-ahead log): size, modification time, inode.
/// Every commit appends to the log, so any commit by any process changes it.
struct LibraryStamp: Equatable {
    var files: [[Int]]

    static func paths(_ libraryURL: URL) -> [String] {
        ["database/Photos.sqlite", "database/Photos.sqlite-wal"].map { libraryURL.appendingPathComponent($0).path }
    }

    init(_ paths: [String]) {
        files = paths.map { path in
            var info = stat()
            guard stat(path, &info) == 0 else { return [] }
            return [Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_ino)]
        }
    }
}
