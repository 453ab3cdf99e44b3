import Foundation
import PhotoLibraryEngine

/// OpenPhotoKit: where libraries are kept, for the tools that make and remove whole libraries (tests, `photos`).
package enum LibraryStorage {
    /// Whether there is a library at `url`: a `.photoslibrary` folder, or a library on its server.
    /// - throws: ``PHPhotosError`` when the store cannot be reached (never a "no" that would make a new library).
    package static func libraryExists(at url: URL) throws -> Bool {
        do { return try LibraryEngine.libraryExists(at: url) } catch { throw PHPhotosError(error) }
    }

    /// Removes the library at `url` and everything in it — a `.photoslibrary` folder, or a server library's rows
    /// and its files folder.
    /// - throws: ``PHPhotosError`` when the store cannot be reached.
    package static func removeLibrary(at url: URL) throws {
        do { try LibraryEngine.removeLibrary(at: url) } catch { throw PHPhotosError(error) }
    }
}
