import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One structured log line per request, with Hummingbird's request id (`hb.request.id`), which is also sent back
/// as `X-Request-ID` so that a user's report can be matched with the log. Tokens never appear in logs.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = PhotosRequestContext
    let services: ServerServices

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        response.headers[.requestID] = context.id
        context.logger.info(
            "\(request.method) \(request.uri.path) \(response.status.code)",
            metadata: [
                "http.method": "\(request.method)", "http.path": "\(request.uri.path)", "http.status": "\(response.status.code)",
                "duration_ms": "\(Double(elapsed.components.attoseconds / 1_000_000_000_000) / 1000 + Double(elapsed.components.seconds) * 1000)",
                "client": "\(client(of: request) ?? "-")",
            ])
        return response
    }

    /// The client, from the token the authentication checked further in (its context does not come back out).
    private func client(of request: Request) -> String? {
        guard let token = try? AuthenticationMiddleware.token(request.headers, method: request.method) else { return nil }
        return services.cachedClient(forToken: token)
    }
}

extension HTTPField.Name {
    static let requestID = Self("X-Request-ID")!
}
