import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OpenPhotos

/// Resolves the bearer token of `/v1` requests to its client's library handle; answers 401 without a valid one.
///
/// The gallery cannot put a header on `<img src>`, `<video>` or `EventSource`, so `POST /v1/session` sets a session
/// token of its own as an HttpOnly, SameSite=Strict cookie. It is accepted for reads (GET and HEAD), and for writes
/// only with `X-Requested-With: OpenPhotoKit` — a header another site's page cannot send without a CORS preflight
/// this server does not grant — so the cookie opens no cross-site request forgery, and the page never holds a token.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = PhotosRequestContext
    let services: ServerServices
    static let cookieName = "photos_token"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/v1/") || request.uri.path == "/v1" else { return try await next(request, context) }
        guard let token = try Self.token(request.headers, method: request.method) else {
            throw APIError.unauthorized("a bearer token is required (photos token create CLIENT)")
        }
        services.invalidateIfChanged()
        // A token checked since the last commit is answered from memory; one that is not asks the database, off the
        // event loop (a database that is slow or restarting must not stall the requests that need it not).
        let client: String
        if let cached = services.cachedClient(forToken: token) {
            client = cached
        } else {
            let services = self.services
            guard let found = try await offload({ try services.client(forToken: token) }) else {
                throw APIError.unauthorized("the token is unknown or was revoked")
            }
            client = found
        }
        var context = context
        let library: PHPhotoLibrary
        if let open = services.openLibrary(for: client) {
            library = open
        } else {
            let services = self.services
            library = try await offload { try services.library(for: client) }
        }
        context.session = ClientSession(identifier: client, library: library)
        return try await next(request, context)
    }

    /// The token a request carries: `Authorization: Bearer …`, or for reads the session cookie.
    /// - throws: 401 for an Authorization header of another scheme.
    static func token(_ headers: HTTPFields, method: HTTPRequest.Method) throws -> String? {
        if let header = headers[.authorization] {
            // The scheme is case-insensitive (RFC 9110 §11.1), compared without lowercasing the header.
            let scheme = header.utf8.prefix(7).map { $0 | 0x20 }
            guard scheme.elementsEqual("bearer ".utf8) else { throw APIError.unauthorized("the Authorization header must be Bearer TOKEN") }
            return String(header.dropFirst(7).trimmingOptionalWhitespace())
        }
        guard method == .get || method == .head || headers[.xRequestedWith] == "OpenPhotoKit" else { return nil }
        return cookie(headers)
    }

    /// The session cookie's value, if the request has one.
    static func cookie(_ headers: HTTPFields) -> String? {
        for field in headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let pair = pair.trimmingOptionalWhitespace()
                guard let equals = pair.firstIndex(of: "="), pair[..<equals] == cookieName else { continue }
                return String(pair[pair.index(after: equals)...])
            }
        }
        return nil
    }
}

extension HTTPField.Name {
    /// The header the gallery's writes carry with the session cookie (not sendable cross-site without a preflight).
    static let xRequestedWith = Self("X-Requested-With")!
    static let xForwardedProto = Self("X-Forwarded-Proto")!
}
