import Foundation

/// A kind of photo library the conformance suite runs against: it makes a new, empty library for each test and
/// removes it afterwards. PhotoKit's public behaviour must be the same on every kind (Tests/ConformanceTests).
///
/// The library is named by a URL that `PHPhotoLibrary(url:)` opens — a folder for the embedded store; the server
/// stores of the next issues (PostgreSQL, a served library) give their own URLs — so a second handle onto the same
/// library (another process, another device) is `PHPhotoLibrary(url: library.url)` on every kind.
public protocol LibraryProvider: Sendable, CustomStringConvertible {
    /// A new, empty library's URL, for `PHPhotoLibrary(url:)`; `scratch` is a folder of the test's own beside it.
    func makeLibrary(name: String, scratch: URL) throws -> URL
    /// Removes a library this provider made (its files and rows), and nothing else.
    func removeLibrary(at url: URL)
}

/// The embedded store: SQLite and the files in a `.photoslibrary` folder, beside the scratch folder.
public struct LocalLibraryProvider: LibraryProvider {
    public init() {}
    public var description: String { "SQLite folder" }

    public func makeLibrary(name: String, scratch: URL) throws -> URL {
        scratch.deletingLastPathComponent().appendingPathComponent("\(name).photoslibrary")
    }

    public func removeLibrary(at url: URL) {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Every kind of library this machine can run the conformance suite against: the embedded store always; the
/// server stores join as they are built (each where its server is running).
public enum LibraryProviders {
    public static var all: [any LibraryProvider] { [LocalLibraryProvider()] }
}
