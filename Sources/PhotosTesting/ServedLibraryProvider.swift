import Foundation
import OpenPhotos
import Synchronization

/// A library served by `photos serve`: an embedded library in a folder beside the scratch folder, a `photos serve`
/// process over it on a free loopback port, and handles that reach it only through HTTP
/// (`PHPhotoLibrary(url: http://127.0.0.1:…, accessToken:)`), as an app on another machine does.
///
/// Handles act as clients with tokens: ``openLibrary(at:clientIdentifier:)`` with nil gives the test's own client,
/// granted full access; another identifier gives that client, with what the owner granted it. The owner's handle
/// (``owner(ofLibraryAt:)``) is the server's library opened in this process, as the person who runs the server has
/// it: grants and tokens are made there.
///
/// The `photos` command is found at `$OPENPHOTOKIT_PHOTOS_COMMAND`, else among the build's products beside the
/// running tests, else on the `PATH`.
public struct ServedLibraryProvider: LibraryProvider {
    /// The client a handle opened without a client identifier acts for.
    public static let testClient = "conformance"

    public init() {}
    public var description: String { "served (photos serve)" }

    /// A running server and what the tests need of it.
    final class Served: @unchecked Sendable {
        let process: Process
        let folder: URL
        let cache: URL
        let owner: PHPhotoLibrary
        init(process: Process, folder: URL, cache: URL, owner: PHPhotoLibrary) {
            (self.process, self.folder, self.cache, self.owner) = (process, folder, cache, owner)
        }
    }

    /// The servers this process runs, by the URL their library is served at.
    static let servers = Mutex<[URL: Served]>([:])

    public func makeLibrary(name: String, scratch: URL) throws -> URL {
        let base = scratch.deletingLastPathComponent()
        let folder = base.appendingPathComponent("\(name).photoslibrary")
        let owner = try PHPhotoLibrary(url: folder, clientIdentifier: nil)
        try owner.setAuthorization(.authorized, for: Self.testClient)
        let process = Process()
        process.executableURL = try Self.photosCommand()
        process.arguments = ["serve", "--library", folder.path, "--port", "0", "--json", "--no-gallery", "--shutdown-timeout", "2"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try process.run()
        // The first line says where it listens: {"host":…,"port":…,"url":"http://127.0.0.1:…/"}.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { break }
            line.append(more)
        }
        struct Listening: Decodable { let url: String }
        guard let listening = try? JSONDecoder().decode(Listening.self, from: line.prefix { $0 != UInt8(ascii: "\n") }),
            let url = URL(string: listening.url)
        else {
            process.terminate()
            process.waitUntilExit()
            throw CocoaError(
                .executableLoad,
                userInfo: [NSLocalizedDescriptionKey: "photos serve did not start: \(String(decoding: line, as: UTF8.self))"])
        }
        let served = Served(process: process, folder: folder, cache: base.appendingPathComponent("\(name).cache"), owner: owner)
        Self.servers.withLock { $0[url] = served }
        return url
    }

    public func openLibrary(at url: URL, clientIdentifier: String?) throws -> PHPhotoLibrary {
        guard let served = Self.servers.withLock({ $0[url] }) else { return try PHPhotoLibrary(url: url, clientIdentifier: clientIdentifier) }
        let client = clientIdentifier ?? Self.testClient
        let token = try served.owner.createAccessToken(for: client).secret
        return try PHPhotoLibrary(url: url, accessToken: token, cacheDirectory: served.cache.appendingPathComponent(client))
    }

    public func owner(ofLibraryAt url: URL) -> PHPhotoLibrary? {
        Self.servers.withLock { $0[url] }?.owner
    }

    public func removeLibrary(at url: URL) {
        guard let served = Self.servers.withLock({ $0.removeValue(forKey: url) }) else { return }
        served.process.terminate()
        served.process.waitUntilExit()
        try? FileManager.default.removeItem(at: served.folder)
        try? FileManager.default.removeItem(at: served.cache)
    }

    /// The `photos` command this provider runs.
    static func photosCommand() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["OPENPHOTOKIT_PHOTOS_COMMAND"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        if let built = BuiltProducts.find("photos") { return built }
        for entry in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(entry)).appendingPathComponent("photos")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the photos command was not found (set OPENPHOTOKIT_PHOTOS_COMMAND)"])
    }
}

/// The products of the build the running tests belong to.
public enum BuiltProducts {
    /// The executable `name` beside the running test bundle or executable (or in a folder above it), if there is one.
    public static func find(_ name: String) -> URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent(name)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isFolder), !isFolder.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }
}
