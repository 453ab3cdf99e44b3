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
