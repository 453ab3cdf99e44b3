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
    /// A handle onto the library at `url` acting for `clientIdentifier` (nil: the owner, or for a served library the
    /// test's own client with full access), as another process or device opens it.
    func openLibrary(at url: URL, clientIdentifier: String?) throws -> PHPhotoLibrary
    /// The owner's handle, where it is not the one ``openLibrary(at:clientIdentifier:)`` gives with nil: for a served
    /// library, the server's library (grants and tokens are the owner's to make).
    func owner(ofLibraryAt url: URL) -> PHPhotoLibrary?
}

extension LibraryProvider {
    public func openLibrary(at url: URL, clientIdentifier: String?) throws -> PHPhotoLibrary {
        try PHPhotoLibrary(url: url, clientIdentifier: clientIdentifier)
    }
    public func owner(ofLibraryAt url: URL) -> PHPhotoLibrary? { nil }
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

    /// A new library name on the server for a test's library `name` (its letters and digits, and a unique tail).
    static func newSchema(for name: String) -> String {
        "conformance_" + name.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(30) + "_" + UUID().uuidString.prefix(8).lowercased()
    }

    public func makeLibrary(name: String, scratch: URL) throws -> URL {
        let schema = PostgreSQLLibraryProvider.newSchema(for: name)
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

/// A library as a cluster has it: its rows on a PostgreSQL server, its files in S3-compatible object storage under a
/// prefix of its own in `bucket` (the endpoint and credentials from the AWS variables), this process's own files in a
/// folder beside the scratch folder.
public struct ObjectStorageLibraryProvider: LibraryProvider {
    /// `postgres://user@host:port/database`.
    public let base: String
    public let bucket: String

    public init(base: String, bucket: String) {
        self.base = base
        self.bucket = bucket
    }
    public var description: String { "PostgreSQL + S3" }

    public func makeLibrary(name: String, scratch: URL) throws -> URL {
        let schema = PostgreSQLLibraryProvider.newSchema(for: name)
        let cache = scratch.deletingLastPathComponent().appendingPathComponent("\(name).node")
        var components = URLComponents(string: base) ?? URLComponents()
        components.queryItems = [
            URLQueryItem(name: "library", value: schema), URLQueryItem(name: "files", value: "s3://\(bucket)/\(schema)"),
            URLQueryItem(name: "cache", value: cache.path),
        ]
        guard let url = components.url else { throw CocoaError(.fileNoSuchFile) }
        return url
    }

    public func removeLibrary(at url: URL) {
        try? LibraryStorage.removeLibrary(at: url)
    }
}

/// Every kind of store this machine can run the suites against: the embedded store always, a PostgreSQL server where
/// `OPENPHOTOKIT_TEST_POSTGRES` names one, and that server with object storage where `OPENPHOTOKIT_TEST_S3_BUCKET`
/// names a bucket too (the test command starts both); ``conformance`` adds a served library.
public enum LibraryProviders {
    /// Every kind of library PhotoKit's public behaviour is checked on: every store (``all``), and a library served
    /// by `photos serve` reached over HTTP (``ServedLibraryProvider``).
    public static var conformance: [any LibraryProvider] { all + [ServedLibraryProvider()] }

    public static var all: [any LibraryProvider] {
        var providers: [any LibraryProvider] = [LocalLibraryProvider()]
        let environment = ProcessInfo.processInfo.environment
        if let base = environment["OPENPHOTOKIT_TEST_POSTGRES"], !base.isEmpty {
            providers.append(PostgreSQLLibraryProvider(base: base))
            if let bucket = environment["OPENPHOTOKIT_TEST_S3_BUCKET"], !bucket.isEmpty {
                providers.append(ObjectStorageLibraryProvider(base: base, bucket: bucket))
            }
        }
        return providers
    }
}
