import Foundation
import HTTPTypes
import Hummingbird

/// CORS for the origins `--allow-origin` names (none: CORS off). A request from one of them is answered with that
/// origin — one origin per `Access-Control-Allow-Origin`, as the Fetch standard requires (a list is refused by
/// browsers) — and `Vary: Origin`; a preflight (`OPTIONS` with `Access-Control-Request-Method`) from one of them is
/// answered 204 with every method the API has (GET, HEAD, POST, PUT, PATCH, DELETE) and the request headers it reads
/// (`Authorization`, `Content-Type`, `If-Match`, `If-None-Match`, `Range`, `Last-Event-ID`). Other origins get no CORS
/// headers, so their pages cannot read the answers.
struct CrossOriginMiddleware: RouterMiddleware {
    typealias Context = PhotosRequestContext
    let allowedOrigins: Set<String>

    static let methods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
    static let requestHeaders = "Authorization, Content-Type, If-Match, If-None-Match, Range, Last-Event-ID"
    static let exposedHeaders = "ETag, Content-Range, Content-Length, X-Request-ID, Retry-After, Location"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], allowedOrigins.contains(origin) else {
            var response = try await next(request, context)
            if request.headers[.origin] != nil { response.headers.append(.init(name: .vary, value: "Origin")) }
            return response
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var headers = HTTPFields()
            headers[.accessControlAllowOrigin] = origin
            headers[.accessControlAllowMethods] = Self.methods
            headers[.accessControlAllowHeaders] = Self.requestHeaders
            headers[.accessControlMaxAge] = "600"
            headers[.vary] = "Origin"
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        response.headers.append(.init(name: .vary, value: "Origin"))
        return response
    }
}
