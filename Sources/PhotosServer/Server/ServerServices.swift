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
    private let clients = Mutex<[String: PHPhotoLibrary]>([:])

    init(libraryURL: URL, configuration: PhotosServer.Configuration, logger: Logger) throws {
        self.libraryURL = libraryURL
        self.configuration = configuration
        self.logger = logger
        owner = try PHPhotoLibrary(url: libraryURL, clientIdentifier: nil)
        if let reason = owner.unavailabilityReason { throw reason }
        feed = ChangeFeed(library: owner, logger: logger)
        uploads = try Uploads()
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
