import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ServiceLifecycle
import OpenPhotos
import PhotosServer
import PhotosTesting
import Testing

/// A library with a server over it, and tokens for clients at given access levels.
struct ServerFixture {
    let library: TestLibrary
    let server: PhotosServer

    /// A new library of `provider`'s kind (the embedded store unless a test runs on every kind).
    init(name: String = "Server", configuration: PhotosServer.Configuration = .init(port: 0), provider: any LibraryProvider = LocalLibraryProvider())
        throws
    {
        library = try TestLibrary(name: name, provider: provider)
        var logger = Logger(label: "photos.serve.test")
        logger.logLevel = .critical  // request lines would drown the test output
        server = try PhotosServer(libraryURL: library.url, configuration: configuration, logger: logger)
    }

    /// A token for `client`, granted `status` (nil: nothing decided).
    func token(_ client: String, _ status: PHAuthorizationStatus?, accessLevel: PHAccessLevel = .readWrite, selection: [String] = []) throws -> String
    {
        if let status { try library.library.setAuthorization(status, for: client, accessLevel: accessLevel, selection: selection) }
        return try library.library.createAccessToken(for: client).secret
    }

    /// Runs the server on a free port for `body`, with a client connected to it, then stops it gracefully.
    ///
    /// Not `app.test(.live)`: its client gives up on a reply after 20 seconds, and a reply on a machine whose cores
    /// the other tests' processes hold can take longer. This client waits as long as the test's time limit does; a
    /// reply that never comes is that limit's failure.
    func test(_ body: @escaping @Sendable (LiveClient) async throws -> Void) async throws {
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let application = server.makeApplication { port.yield($0) }
        let group = ServiceGroup(
            configuration: .init(services: [application], gracefulShutdownSignals: [], logger: Logger(label: "photos.serve.test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var running = ports.makeAsyncIterator()
            guard let port = await running.next() else { throw CancellationError() }
            let client = TestClient(host: "localhost", port: port, configuration: .init(timeout: LiveClient.replyLimit))
            client.connect()
            do {
                try await body(LiveClient(client: client, port: port))
            } catch {
                try? await client.shutdown()
                await group.triggerGracefulShutdown()
                throw error
            }
            try await client.shutdown()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}

/// A keep-alive connection to a server a test runs, as Hummingbird's live test client without its 20-second limit.
struct LiveClient: Sendable {
    /// Longer than any reply takes on the busiest machine the suite runs on; what is slower has hung.
    static let replyLimit = Duration.seconds(600)

    let client: TestClient
    let port: Int?

    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> ServerResponse {
        var headers = headers
        headers[.connection] = "keep-alive"
        let response = try await client.execute(TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body))
        return ServerResponse(head: response.head, body: response.body ?? ByteBuffer())
    }
}

/// A server's whole reply.
struct ServerResponse: Sendable {
    let head: HTTPResponse
    let body: ByteBuffer
    var status: HTTPResponse.Status { head.status }
    var headers: HTTPFields { head.headerFields }
}

extension ServerResponse {
    var json: [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else { return [:] }
        return object
    }

    var bytes: [UInt8] { Array(body.readableBytesView) }

    /// The error body's domain and code.
    var error: (domain: String, code: Int)? {
        guard let error = json["error"] as? [String: Any], let domain = error["domain"] as? String, let code = error["code"] as? Int else {
            return nil
        }
        return (domain, code)
    }
}

extension LiveClient {
    @discardableResult
    func call(_ uri: String, _ method: HTTPRequest.Method = .get, token: String? = nil, headers: HTTPFields = [:], json: Any? = nil)
        async throws -> ServerResponse
    {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json {
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
            headers[.contentType] = "application/json"
        }
        return try await execute(uri: uri, method: method, headers: headers, body: body)
    }
}

/// The URL form of a local identifier (`/` as `_`).
func urlID(_ localIdentifier: String) -> String { localIdentifier.replacingOccurrences(of: "/", with: "_") }
