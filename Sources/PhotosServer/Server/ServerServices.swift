import Foundation
import HTTPTypes
import Logging
import OpenPhotos
import Synchronization

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
    /// Which version hash an image request resolves to, per client and asset: lets a cached thumbnail be served
    /// after one token check, without reading the asset. Emptied by every commit of the library (edits, deletions,
    /// grants), which the owner's handle observes from any process.
    let resolved = ResolutionCache()
    private let clients = Mutex<[String: PHPhotoLibrary]>([:])

    init(libraryURL: URL, configuration: PhotosServer.Configuration, logger: Logger) throws {
        self.libraryURL = libraryURL
        self.configuration = configuration
        self.logger = logger
        owner = try PHPhotoLibrary(url: libraryURL, clientIdentifier: nil)
        if let reason = owner.unavailabilityReason { throw reason }
        feed = ChangeFeed(library: owner, logger: logger)
        uploads = try Uploads()
        resolved.follow(owner)
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

/// Version hashes of (client, asset, version) — see ``ServerServices/resolved``.
final class ResolutionCache: Sendable {
    private let entries = Mutex<[String: String]>([:])
    private let follower = Mutex<Task<Void, Never>?>(nil)

    deinit { follower.withLock { $0?.cancel() } }

    func follow(_ library: PHPhotoLibrary) {
        let task = Task { [weak self] in
            for await _ in library.changes {
                guard let self else { return }
                self.entries.withLock { $0.removeAll(keepingCapacity: true) }
            }
        }
        follower.withLock { $0 = task }
    }

    func get(_ key: String) -> String? { entries.withLock { $0[key] } }

    func put(_ key: String, _ hash: String) {
        entries.withLock { entries in
            if entries.count >= 200_000 { entries.removeAll(keepingCapacity: true) }
            entries[key] = hash
        }
    }
}
