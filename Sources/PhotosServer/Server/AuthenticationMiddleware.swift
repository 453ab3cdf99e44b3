import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OpenPhotos

/// Resolves the bearer token of `/v1` requests to its client's library handle; answers 401 without a valid one.
///
/// The gallery cannot put a header on `<img src>`, `<video>` or `EventSource`, so `POST /v1/session` sets the
/// token as an HttpOnly, SameSite=Strict cookie that is accepted for reads (GET and HEAD) only: a write always
/// needs the header, which another site's page cannot send, so the cookie opens no cross-site request forgery.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = PhotosRequestContext
    let services: ServerServices
    static let cookieName = "photos_token"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/v1/") || request.uri.path == "/v1" else { return try await next(request, context) }
        var token: String?
        if let header = request.headers[.authorization] {
            guard header.lowercased().hasPrefix("bearer ") else { throw APIError.unauthorized("the Authorization header must be Bearer TOKEN") }
            token = String(header.dropFirst(7).trimmingOptionalWhitespace())
        } else if request.method == .get || request.method == .head, let cookie = request.cookies[Self.cookieName] {
            token = cookie.value
        }
        guard let token else { throw APIError.unauthorized("a bearer token is required (photos token create CLIENT)") }
        services.invalidateIfChanged()
        guard let client = services.client(forToken: token) else {
            throw APIError.unauthorized("the token is unknown or was revoked")
        }
        var context = context
        context.session = ClientSession(identifier: client, library: try services.library(for: client))
        return try await next(request, context)
    }
}
