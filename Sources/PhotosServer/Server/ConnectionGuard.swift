import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What one client can hold of the server: connections, and time between requests.
///
/// A request's head must arrive whole within ``PhotosServer/Configuration/requestHeadTimeout`` of the connection's
/// start or of the end of the answer before it — a client that sends its head a byte at a time, or opens a connection
/// and says nothing, is disconnected then, whatever it trickles (an idle keep-alive connection ends the same way).
/// Bodies and answers have no such bound (an upload from a phone may be slow, the change feed lasts hours): a body
/// that stops arriving for ``PhotosServer/Configuration/idleTimeout`` ends its connection (Hummingbird's idle
/// handler). At most ``PhotosServer/Configuration/maximumConnections`` connections are open at once, and never more
/// than the process's descriptor limit leaves room for: one more is answered `503 Service Unavailable` with
/// `Retry-After` and closed.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The open connections of one server, shared by its connections' guards.
    final class Counter: Sendable {
        let maximum: Int
        private let open = Atomic<Int>(0)
        init(maximum: Int) { self.maximum = maximum }
        /// Takes a place; false when none is left (the place is not taken).
        func take() -> Bool {
            let now = open.wrappingAdd(1, ordering: .relaxed).newValue
            if now <= maximum { return true }
            open.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        func give() { open.wrappingSubtract(1, ordering: .relaxed) }
        var count: Int { open.load(ordering: .relaxed) }
    }

    private let counter: Counter
    private let headTimeout: TimeAmount
    private let logger: Logger
    private var counted = false
    private var refused = false
    private var started = false
    /// Requests whose head arrived and whose answer has not ended.
    private var inFlight = 0
    private var deadline: Scheduled<Void>?

    init(counter: Counter, headTimeout: TimeAmount, logger: Logger) {
        self.counter = counter
        self.headTimeout = headTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    private func start(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        if counter.take() {
            counted = true
            arm(context: context, after: headTimeout)
        } else {
            // Over the limit: the first request is answered 503 (a client sees why), or the connection closes soon.
            refused = true
            logger.warning("connection refused: \(counter.maximum) connections are open (--max-connections)")
            arm(context: context, after: .seconds(2))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if counted {
            counted = false
            counter.give()
        }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        if counted {
            counted = false
            counter.give()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused {
            if case .head = unwrapInboundIn(data) { refuse(context: context) }
            return
        }
        if case .head = unwrapInboundIn(data) {
            inFlight += 1
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            inFlight = max(0, inFlight - 1)
            if inFlight == 0 { arm(context: context, after: headTimeout) }
        }
        context.write(data, promise: promise)
    }

    private func arm(context: ChannelHandlerContext, after delay: TimeAmount) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: delay) { channel.close(promise: nil) }
    }

    private func refuse(context: ChannelHandlerContext) {
        var head = HTTPResponse(status: .serviceUnavailable)
        head.headerFields[.retryAfter] = "1"
        head.headerFields[.connection] = "close"
        head.headerFields[.contentType] = "application/json"
        var body = context.channel.allocator.buffer(capacity: 128)
        body.writeString(
            #"{"error":{"code":503,"domain":"OpenPhotoKit.HTTP","message":"the server has too many open connections; retry shortly"}}"#)
        head.headerFields[.contentLength] = String(body.readableBytes)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

extension ConnectionGuard {
    /// Raises this process's soft descriptor limit to its hard limit, and returns how many connections fit in it with
    /// room left for the library's own files (the database, uploads being written, images being read).
    static func connectionsTheDescriptorLimitAllows() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let descriptors = limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)
        return max(16, descriptors / 2 - 64)
    }
}
