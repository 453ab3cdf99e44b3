import Foundation
import OpenPhotos
import PhotosServer
import PhotosTestHarness
import PhotosTesting
import Synchronization
import Testing

/// The live feed over a real socket: server-sent events, resumed after a disconnect with `Last-Event-ID`, deliver
/// every commit exactly once and in order — including commits made while the client was away.
///
/// The server is a `photos serve` process and the commits are this process's, another client's of the library: each
/// step waits for an event with a socket timeout, which a server inside the test process would run into on a busy
/// machine (its tasks wait for cooperative threads that the other tests hold).
@Suite("Change feed")
struct ChangeFeedTests {
    /// A minimal SSE client on a POSIX socket: sends the request and collects the `id:` of each event.
    final class EventStreamClient: @unchecked Sendable {
        private let socket: Int32
        private var buffer = ""

        init(port: Int, token: String, lastEventID: String? = nil) throws {
            guard let socket = connectToLoopback(port: port, receiveTimeout: 20) else { throw POSIXError(.ECONNREFUSED) }
            self.socket = socket
            var request = "GET /v1/changes/stream HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\nAccept: text/event-stream\r\n"
            if let lastEventID { request += "Last-Event-ID: \(lastEventID)\r\n" }
            request += "\r\n"
            _ = request.withCString { send(socket, $0, strlen($0), 0) }
        }

        /// Reads until the stream has said `retry:` (the server subscribed and sent what was missed up to then).
        func waitUntilOpen() async throws { _ = try await blocking { try self.read { $0.contains("retry: 2000") } } }

        /// The ids of the next `count` events.
        func events(_ count: Int) async throws -> [String] {
            try await blocking {
                let text = try self.read { $0.components(separatedBy: "\nid: ").count - 1 >= count }
                let ids = text.components(separatedBy: "\nid: ").dropFirst().map { String($0.prefix { $0 != "\n" && $0 != "\r" }) }
                self.buffer = ""
                return Array(ids.prefix(count))
            }
        }

        /// What the stream sends until its end (the last chunk of a chunked body); throws on a timeout.
        func untilTheEnd() async throws -> String {
            // The last chunk, "0" and an empty line, right after the previous chunk's end.
            try await blocking { try self.read { $0.hasPrefix("0\n\n") || $0.contains("\n0\n\n") } }
        }

        /// Socket reads block: off the cooperative threads, which the other tests need.
        private func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
            }
        }

        private func read(until done: (String) -> Bool) throws -> String {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while !done(buffer) {
                let count = recv(socket, &chunk, chunk.count, 0)
                guard count > 0 else { throw POSIXError(.ETIMEDOUT) }
                // Without the CRs of chunked framing: "\r\n" is one Character, which "\nid: " would not match.
                buffer += String(decoding: chunk[0..<count].filter { $0 != 13 }, as: UTF8.self)
            }
            return buffer
        }

        func close() { Glibc.close(socket) }
    }

    @Test(arguments: LibraryProviders.all) func aClientThatWasAwayCatchesUpExactlyOnceInOrder(_ provider: any LibraryProvider) async throws {
        let library = try TestLibrary(name: "Feed", provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(4)
        try library.library.setAuthorization(.authorized, for: "phone")
        let token = try library.library.createAccessToken(for: "phone").secret
        let (served, serverCache) = Self.ownCache(library.url)
        defer { serverCache.map { try? FileManager.default.removeItem(at: $0) } }
        let server = try PhotosServeProcess(
            library: served, arguments: ["--log-level", "warning", "--no-gallery", "--shutdown-timeout", "1"],
            standardError: library.scratch.appendingPathComponent("serve.log"))
        defer { server.stop() }
        let listening = server.port

        /// Favourites one asset from another handle (another client of the library); returns the token after it.
        /// (On a thread of its own: a change block waits, and the other tests need the cooperative threads.)
        func commit(_ index: Int, favorite: Bool = true) async throws -> String {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(with: Result { try commitNow(index, favorite: favorite) }) }
            }
        }
        @Sendable func commitNow(_ index: Int, favorite: Bool) throws -> String {
            let other = try PHPhotoLibrary(url: library.url, clientIdentifier: nil)
            let options = PHFetchOptions()
            options.photoLibrary = other
            let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [ids[index]], options: options).firstObject)
            try other.performChangesAndWait { PHAssetChangeRequest(for: asset).isFavorite = favorite }
            return other.currentChangeToken.wireForm
        }

        let first = try EventStreamClient(port: listening, token: token)
        try await first.waitUntilOpen()
        let one = try await commit(0)
        #expect(try await first.events(1) == [one])
        first.close()

        // Away: two commits.
        let two = try await commit(1)
        let three = try await commit(2)

        let second = try EventStreamClient(port: listening, token: token, lastEventID: one)
        #expect(try await second.events(2) == [two, three], "what was missed, in order")
        let four = try await commit(3)
        #expect(try await second.events(1) == [four], "then live, with nothing repeated")

        // Revoked while listening: the next commit is not sent; the stream ends instead (its last chunk).
        try library.library.revokeAccessTokens(matching: "phone")
        _ = try await commit(0, favorite: false)
        let rest = try await second.untilTheEnd()
        #expect(!rest.contains("\nid: "), "no event after the revocation: \(rest)")
        second.close()
    }

    /// The library's address for a process of its own: a library in object storage keeps each process's files in a
    /// cache folder of its own (as each node of a cluster has one); the folder to remove afterwards, if any.
    static func ownCache(_ url: URL) -> (URL, URL?) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let index = components.queryItems?.firstIndex(where: { $0.name == "cache" }),
            let cache = components.queryItems?[index].value
        else { return (url, nil) }
        let own = cache + "-serve"
        components.queryItems?[index].value = own
        return (components.url ?? url, URL(fileURLWithPath: own))
    }
}
