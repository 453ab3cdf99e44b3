import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
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

    func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await server.makeApplication().test(.live, body)
    }
}

extension TestResponse {
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

extension TestClientProtocol {
    @discardableResult
    func call(_ uri: String, _ method: HTTPRequest.Method = .get, token: String? = nil, headers: HTTPFields = [:], json: Any? = nil)
        async throws -> TestResponse
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
