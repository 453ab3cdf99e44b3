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
///
/// It also answers `Expect: 100-continue` (RFC 9110 §10.1.1), which curl and other clients send before a large body
/// and then wait up to a second for: `100 Continue` goes out as the request is passed to the router — at once, or,
/// when earlier requests of the connection still wait for their answers, right after the last of them.
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
    /// A `100 Continue` owed to the last request once the answers before it are written.
    private var continueOwed = false

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
            if request.headerFields[.expect]?.lowercased() == "100-continue" {
                if inFlight == 0 { writeContinue(context: context) } else { continueOwed = true }
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
        guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        inFlight = max(0, inFlight - 1)
        context.write(data, promise: promise)
        if continueOwed && inFlight == 1 {
            continueOwed = false
            writeContinue(context: context)
        }
    }

    private func writeContinue(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
    }

    /// The answer when it is known without the router, else nil.
    private func cachedAnswer(_ request: HTTPRequest) -> (head: HTTPResponse, body: ByteBuffer?)? {
        guard request.method == .get, let target = request.path, target.hasPrefix("/v1/assets/"),
            request.headerFields[.contentLength] == nil || request.headerFields[.contentLength] == "0",
            request.headerFields[.transferEncoding] == nil
        else { return nil }
        let start = ContinuousClock.now
        // The path and query as the router reads them; anything escaped or unusual is left to it. (Byte by byte:
        // `Character` operations cost more than the rest of the answer.)
        let bytes = target.utf8
        guard !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return nil }
        let idStart = bytes.index(bytes.startIndex, offsetBy: 11)  // after "/v1/assets/"
        guard let idEnd = bytes[idStart...].firstIndex(of: UInt8(ascii: "/")), idEnd > idStart else { return nil }
        let afterID = bytes.index(after: idEnd)
        let question = bytes[afterID...].firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
        guard bytes[afterID..<question].elementsEqual("image".utf8) else { return nil }
        let id = String(target[idStart..<idEnd])
        let path = target[..<question]
        var parameters: [Substring: Substring] = [:]
        if question < bytes.endIndex {
            var start = bytes.index(after: question)
            while start < bytes.endIndex {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
                guard let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")) else { return nil }
                let name = target[start..<equals]
                guard ImageRequest.parameters.contains(String(name)),
                    parameters.updateValue(target[bytes.index(after: equals)..<end], forKey: name) == nil
                else { return nil }
                start = end < bytes.endIndex ? bytes.index(after: end) : end
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
