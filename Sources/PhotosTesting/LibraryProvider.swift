import Foundation
import OpenPhotos

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

/// A library on a PostgreSQL server: a schema of the database `base` names, its files in a folder beside the
/// scratch folder.
public struct PostgreSQLLibraryProvider: LibraryProvider {
    /// `postgres://user@host:port/database`.
    public let base: String

    public init(base: String) { self.base = base }
    public var description: String { "PostgreSQL" }

    public func makeLibrary(name: String, scratch: URL) throws -> URL {
        let schema =
            "conformance_" + name.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(30) + "_"
            + UUID().uuidString.prefix(8).lowercased()
        let files = scratch.deletingLastPathComponent().appendingPathComponent("\(name).files")
        var components = URLComponents(string: base) ?? URLComponents()
        components.queryItems = [URLQueryItem(name: "library", value: schema), URLQueryItem(name: "files", value: files.path)]
        guard let url = components.url else { throw CocoaError(.fileNoSuchFile) }
        return url
    }

    public func removeLibrary(at url: URL) {
        try? LibraryStorage.removeLibrary(at: url)
    }
}

/// Every kind of library this machine can run the conformance suite against: the embedded store always, and a
/// PostgreSQL server where `OPENPHOTOKIT_TEST_POSTGRES` names one (the test command starts one).
public enum LibraryProviders {
    public static var all: [any LibraryProvider] {
        var providers: [any LibraryProvider] = [LocalLibraryProvider()]
        if let base = ProcessInfo.processInfo.environment["OPENPHOTOKIT_TEST_POSTGRES"], !base.isEmpty {
            providers.append(PostgreSQLLibraryProvider(base: base))
        }
        return providers
    }
}
