import Foundation
import PhotoLibraryEngine

/// A folder of this process for files received and not yet imported (`photos serve`'s uploads), on the library's
/// file system so that importing them is a hard link. It is this process's for as long as this object lives (then
/// removed); if the process dies, the next process that opens the library for writing removes it, and `verify`
/// reports it meanwhile. Package API: OpenPhotoKit's server is its one user.
package final class LibraryUploadsFolder: Sendable {
    package let url: URL
    private let owned: ProcessFolder

    fileprivate init(_ owned: ProcessFolder) {
        self.owned = owned
        url = owned.url
    }

    /// False once this process may have lost the folder (its lock on a library server was lost with its connection,
    /// and another process may sweep it): make a new one.
    package var isOwned: Bool { owned.isOwned }

    /// Removes the folder and what is in it now (a server that stops).
    package func remove() { owned.remove() }
}

extension PHPhotoLibrary {
    /// A new uploads folder of this process (see ``LibraryUploadsFolder``).
    /// - throws: ``PHPhotosError`` when it cannot be made.
    package func makeUploadsFolder() throws -> LibraryUploadsFolder {
        do {
            let engine = try engine()
            return LibraryUploadsFolder(try engine.makeUploadArea(label: "serve"))
        } catch {
            throw PHPhotosError(error)
        }
    }
}

/// OpenPhotoKit: an upload waiting to be imported, shared by every node of a library whose files are in object
/// storage (its bytes are in the store, its record in the library's database). Package API: the server's.
package struct LibrarySharedUpload: Sendable {
    package var id: String
    package var client: String
    /// The name it was sent with.
    package var name: String
    package var size: Int64
    package var sha256: String

    package init(id: String, client: String, name: String, size: Int64, sha256: String) {
        (self.id, self.client, self.name, self.size, self.sha256) = (id, client, name, size, sha256)
    }

    var engineForm: SharedUpload { SharedUpload(id: id, client: client, name: name, size: size, sha256: sha256) }
}

extension PHPhotoLibrary {
    /// Whether uploads are shared by the library's nodes (its files are in object storage): a node records each
    /// upload in the library, and any node imports it.
    package var sharesUploads: Bool { engineIfAvailable?.sharesUploads ?? false }

    /// Stores a received file's bytes in the library's object storage and records the upload.
    package func shareUpload(_ upload: LibrarySharedUpload, file: URL) throws {
        do { try engine().shareUpload(upload.engineForm, file: file) } catch { throw PHPhotosError(error) }
    }

    /// `client`'s shared upload `id`; nil when there is none.
    package func sharedUpload(id: String, client: String) throws -> LibrarySharedUpload? {
        do {
            return try engine().sharedUpload(id: id, client: client).map {
                LibrarySharedUpload(id: $0.id, client: $0.client, name: $0.name, size: $0.size, sha256: $0.sha256)
            }
        } catch { throw PHPhotosError(error) }
    }

    /// A shared upload's bytes as a new file at `destination` (fetched from the store, verified).
    package func fetchSharedUpload(_ upload: LibrarySharedUpload, to destination: URL) throws {
        do { try engine().fetchSharedUpload(upload.engineForm, to: destination) } catch { throw PHPhotosError(error) }
    }

    /// Forgets shared uploads (imported or discarded).
    package func removeSharedUploads(_ ids: [String]) throws {
        do { try engine().removeSharedUploads(ids) } catch { throw PHPhotosError(error) }
    }

    /// Forgets shared uploads older than `age` seconds.
    package func expireSharedUploads(olderThan age: TimeInterval) throws {
        do { try engine().expireSharedUploads(olderThan: age) } catch { throw PHPhotosError(error) }
    }

    /// How many shared uploads `client` has waiting, and their bytes.
    package func sharedUploadTotals(client: String) throws -> (count: Int, bytes: Int64) {
        do { return try engine().sharedUploadTotals(client: client) } catch { throw PHPhotosError(error) }
    }
}
