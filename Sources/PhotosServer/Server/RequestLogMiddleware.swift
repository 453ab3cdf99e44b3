import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One structured log line per request, with Hummingbird's request id (`hb.request.id`), which is also sent back
/// as `X-Request-ID` so that a user's report can be matched with the log, and the client's address (`client_ip`: the
/// connection's peer, or — when the peer is one of ``PhotosServer/Configuration/trustedProxies`` — the address that
/// proxy put last in `X-Forwarded-For`). Tokens never appear in logs.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = PhotosRequestContext
    let services: ServerServices
    let trustedProxies: Set<String>

    /// The client's address: the peer's, or what a trusted proxy says it forwarded for.
    static func clientAddress(forwardedFor forwarded: String?, peer: String?, trustedProxies: Set<String>) -> String {
        guard let peer else { return "-" }
        guard trustedProxies.contains(peer), let forwarded else { return peer }
        // The proxy appends the address it saw: the last entry is the one it vouches for.
        let last = forwarded.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return last.isEmpty || last.count > 64 ? peer : last
    }

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
                "client_ip":
                    "\(Self.clientAddress(forwardedFor: request.headers[.xForwardedFor], peer: context.peerAddress, trustedProxies: trustedProxies))",
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
    static let xForwardedFor = Self("X-Forwarded-For")!
}
