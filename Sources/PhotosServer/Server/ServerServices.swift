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
    /// The server's own tokens (``PhotosServer/Configuration/sessionTokens``): never in the library, never revoked.
    var sessionTokens: [String: String] { configuration.sessionTokens }
    /// Requests answered by ``CachedImageHandler`` before the router.
    let cachedAnswers = Atomic<Int>(0)
    /// Whether the library committed since the last look (any process).
    private let probe: LibraryCommitProbe
    private let clients = Mutex<[String: PHPhotoLibrary]>([:])

    init(libraryURL: URL, configuration: PhotosServer.Configuration, logger: Logger) throws {
        self.libraryURL = libraryURL
        self.configuration = configuration
        self.logger = logger
        owner = try PHPhotoLibrary(url: libraryURL, clientIdentifier: nil)
        probe = try owner.makeCommitProbe()
        if let reason = owner.unavailabilityReason { throw reason }
        feed = ChangeFeed(library: owner, logger: logger)
        uploads = try Uploads(library: owner)
    }

    /// Empties the per-commit caches (tokens, version resolutions) when the library changed since the last call:
    /// one cheap look (``LibraryCommitProbe``), so the caches are exact for every request without waiting for a
    /// change notification.
    func invalidateIfChanged() {
        let changed = probe.changed()
        guard changed else { return }
        tokens.withLock { $0.removeAll(keepingCapacity: true) }
        resolved.clear()
    }

    /// The client a token acts for, from the cache or the database.
    /// - throws: 503 when the library's database does not answer (the token may be good).
    func client(forToken token: String) throws -> String? {
        if let client = sessionTokens[token] { return client }
        if let client = tokens.withLock({ $0[token] }) { return client }
        let found: String?
        do { found = try owner.checkedClientIdentifier(forAccessToken: token) } catch {
            throw APIError(
                status: .serviceUnavailable, domain: PHPhotosErrorDomain, code: PHPhotosError.Code.libraryVolumeOffline.rawValue,
                message: "the library's database does not answer: \((error as? PHPhotosError)?.localizedDescription ?? "\(error)")",
                headers: [.retryAfter: "5"])
        }
        guard let client = found else { return nil }
        tokens.withLock { tokens in
            if tokens.count > 10_000 { tokens.removeAll() }
            tokens[token] = client
        }
        return client
    }

    /// The client a token acts for when it was checked since the last commit; nil when the database must be asked
    /// (the caller then leaves the request to the router).
    func cachedClient(forToken token: String) -> String? { sessionTokens[token] ?? tokens.withLock { $0[token] } }

    /// The client's handle when it is open already (nil: ``library(for:)`` opens it, blocking).
    func openLibrary(for client: String) -> PHPhotoLibrary? { clients.withLock { $0[client] } }

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
