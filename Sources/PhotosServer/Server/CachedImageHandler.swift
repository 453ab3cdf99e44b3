import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Answers `GET /v1/assets/{id}/image` on the event loop, before the router, when the answer is already known: the
/// token's client made the same request since the library's last commit (``ServerServices/resolved``) and the
/// encoded image is in memory, or the client has it (304). A grid of thumbnails scrolled back and forth is mostly
/// that; anything else — a token to check against the database, an image to render, parameters to refuse — goes on
/// to the router unchanged, which answers it the same way (``ImageRoutes``). The answer is the router's, byte for
/// byte, with the request's log line and `X-Request-ID`.
///
/// HTTP/1.1 answers in request order: a request is answered here only while none of the connection's earlier requests
/// waits for its answer from the router (a client that pipelines gets every answer in order).
final class CachedImageHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let services: ServerServices
    private let serverName: String?
    /// Requests passed to the router whose answer has not ended yet.
    private var inFlight = 0
    /// The answer to the request being read, made at its head and sent at its end.
    private var answer: (head: HTTPResponse, body: ByteBuffer?)?

    init(services: ServerServices, serverName: String?) {
        self.services = services
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if inFlight == 0, let known = cachedAnswer(request) {
                answer = known
                return
            }
            inFlight += 1
            context.fireChannelRead(data)
        case .body:
            // A GET answered here has no body (one with a length or chunks is passed on at its head).
            if answer == nil { context.fireChannelRead(data) }
        case .end:
            guard let (head, body) = answer else { return context.fireChannelRead(data) }
            answer = nil
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if let body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { inFlight = max(0, inFlight - 1) }
        context.write(data, promise: promise)
    }

    /// The answer when it is known without the router, else nil.
    private func cachedAnswer(_ request: HTTPRequest) -> (head: HTTPResponse, body: ByteBuffer?)? {
        guard request.method == .get, let target = request.path, target.hasPrefix("/v1/assets/"),
            request.headerFields[.contentLength] == nil || request.headerFields[.contentLength] == "0",
            request.headerFields[.transferEncoding] == nil
        else { return nil }
        let start = ContinuousClock.now
        // The path and query as the router reads them; anything escaped or unusual is left to it.
        let question = target.firstIndex(of: "?")
        let path = target[..<(question ?? target.endIndex)]
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard components.count == 5, components[4] == "image", !components[3].isEmpty,
            !target.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") })
        else { return nil }
        let id = String(components[3])
        var parameters: [Substring: Substring] = [:]
        if let question {
            for pair in target[target.index(after: question)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, ImageRequest.parameters.contains(String(parts[0])), parameters.updateValue(parts[1], forKey: parts[0]) == nil
                else { return nil }
            }
        }
        guard let image = try? ImageRequest({ parameters[Substring($0)].map(String.init) }),
            let token = try? AuthenticationMiddleware.token(request.headerFields, method: request.method)
        else { return nil }
        services.invalidateIfChanged()
        guard let client = services.cachedClient(forToken: token), let resolved = services.resolved.get(image.resolutionKey(client: client, id: id)),
            let (fields, body) = ImageRoutes.answer(request.headerFields, resolved, services.encodedImages)
        else { return nil }
        services.cachedAnswers.add(1, ordering: .relaxed)
        var head = HTTPResponse(status: body == nil ? .notModified : .ok, headerFields: fields)
        let requestID = RequestID().description
        head.headerFields[.requestID] = requestID
        head.headerFields[.date] = HTTPDate.now()
        if let serverName { head.headerFields[.server] = serverName }
        let elapsed = ContinuousClock.now - start
        services.logger.info(
            "GET \(path) \(head.status.code)",
            metadata: [
                "hb.request.id": "\(requestID)", "http.method": "GET", "http.path": "\(path)", "http.status": "\(head.status.code)",
                "duration_ms": "\(Double(elapsed.components.attoseconds / 1_000_000_000_000) / 1000 + Double(elapsed.components.seconds) * 1000)",
                "client": "\(client)",
            ])
        return (head, body)
    }
}

/// The `Date` header's value (RFC 9110's IMF-fixdate), formatted once a second.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((-1, ""))

    static func now() -> String {
        var seconds = time(nil)
        if let cached = cache.withLock({ $0.second == seconds ? $0.text : nil }) { return cached }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let text =
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        cache.withLock { $0 = (seconds, text) }
        return text
    }
}
