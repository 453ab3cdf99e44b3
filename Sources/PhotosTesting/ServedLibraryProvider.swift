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
/// The `photos` command is found as ``PhotosServeProcess`` finds it.
public struct ServedLibraryProvider: LibraryProvider {
    /// The client a handle opened without a client identifier acts for.
    public static let testClient = "conformance"

    public init() {}
    public var description: String { "served (photos serve)" }

    /// A running server and what the tests need of it.
    final class Served: @unchecked Sendable {
        let server: PhotosServeProcess
        let folder: URL
        let cache: URL
        let owner: PHPhotoLibrary
        init(server: PhotosServeProcess, folder: URL, cache: URL, owner: PHPhotoLibrary) {
            (self.server, self.folder, self.cache, self.owner) = (server, folder, cache, owner)
        }
    }

    /// The servers this process runs, by the URL their library is served at.
    static let servers = Mutex<[URL: Served]>([:])

    public func makeLibrary(name: String, scratch: URL) throws -> URL {
        let base = scratch.deletingLastPathComponent()
        let folder = base.appendingPathComponent("\(name).photoslibrary")
        let owner = try PHPhotoLibrary(url: folder, clientIdentifier: nil)
        try owner.setAuthorization(.authorized, for: Self.testClient)
        let server = try PhotosServeProcess(library: folder, arguments: ["--no-gallery", "--shutdown-timeout", "2"])
        let url = server.url
        let served = Served(server: server, folder: folder, cache: base.appendingPathComponent("\(name).cache"), owner: owner)
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
        served.server.stop()
        try? FileManager.default.removeItem(at: served.folder)
        try? FileManager.default.removeItem(at: served.cache)
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
