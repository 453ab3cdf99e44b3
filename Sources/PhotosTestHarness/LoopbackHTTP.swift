import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP/1.1 to a `photos serve` (or nginx in front of it) on loopback, one exchange per connection — for tests and
/// benchmarks that run servers as processes and must see exactly what a client sees, a server killed midway included.
public enum LoopbackHTTP {
    /// An answer: its status, headers (names lowercased) and body.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data

        /// The body as a JSON object.
        public var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }
    }

    /// Sends one request (`Connection: close`) and reads the whole answer; nil when nothing listens or the server
    /// closed the connection before answering.
    public static func exchange(
        port: Int, _ method: String, _ target: String, token: String? = nil, body: Data = Data(), type: String? = nil,
        headers extra: [String: String] = [:], receiveTimeout: Int = 60
    ) -> Answer? {
        guard let fd = connectToLoopback(port: port, receiveTimeout: receiveTimeout) else { return nil }
        defer { close(fd) }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let type { head += "Content-Type: \(type)\r\n" }
        for (name, value) in extra { head += "\(name): \(value)\r\n" }
        guard send(fd, Array(head.utf8) + [13, 10] + body) else { return nil }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        return parse(received)
    }

    /// Sends all of `bytes`; false when the connection broke.
    public static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// An answer read whole (a body of `Content-Length` bytes, or chunked, or to the end).
    static func parse(_ received: [UInt8]) -> Answer? {
        guard let end = received.indices.dropLast(3).first(where: { received[$0..<$0 + 4] == [13, 10, 13, 10] }) else { return nil }
        let lines = String(decoding: received[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines[0].split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(received[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            var decoded: [UInt8] = []
            var index = 0
            while let lineEnd = body[index...].indices.dropLast().first(where: { body[$0] == 13 && body[$0 + 1] == 10 }),
                let size = Int(String(decoding: body[index..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16), size > 0,
                lineEnd + 2 + size <= body.count
            {
                decoded += body[(lineEnd + 2)..<(lineEnd + 2 + size)]
                index = lineEnd + 2 + size + 2
                if index >= body.count { break }
            }
            body = decoded
        }
        return Answer(status: status, headers: headers, body: Data(body))
    }

    /// A server-sent event stream read on a thread of its own: every event's `id` and `data`, with the time it
    /// arrived, until ``close()``.
    public final class EventStream: Sendable {
        /// One event as it arrived.
        public struct Event: Sendable {
            public var id: String?
            public var data: String
            /// `DispatchTime.now()` when its last line arrived, in nanoseconds.
            public var arrived: UInt64
        }

        private let fd: Int32
        private let state = Mutex<(events: [Event], ended: Bool)>(([], false))

        /// Opens `target` (`/v1/changes/stream`) with the token, and `Last-Event-ID` when given; nil when the server
        /// did not answer 200.
        public init?(port: Int, target: String, token: String, lastEventID: String? = nil) {
            guard let fd = connectToLoopback(port: port, receiveTimeout: 1) else { return nil }
            var head = "GET \(target) HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nAuthorization: Bearer \(token)\r\n"
            if let lastEventID { head += "Last-Event-ID: \(lastEventID)\r\n" }
            guard LoopbackHTTP.send(fd, Array((head + "\r\n").utf8)) else {
                Glibc.close(fd)
                return nil
            }
            self.fd = fd
            let thread = Thread { [self] in
                var buffer: [UInt8] = []
                var headRead = false
                var chunk = [UInt8](repeating: 0, count: 16384)
                var current: (id: String?, data: [String]) = (nil, [])
                while !self.state.withLock({ $0.ended }) {
                    let count = recv(fd, &chunk, chunk.count, 0)
                    if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { break }
                    if count < 0 { continue }
                    buffer += chunk[0..<count]
                    if !headRead {
                        guard let end = buffer.indices.dropLast(3).first(where: { buffer[$0..<$0 + 4] == [13, 10, 13, 10] }) else { continue }
                        buffer.removeFirst(end + 4)
                        headRead = true
                    }
                    // Chunked framing: its size lines are not `id:` or `data:` lines, and the events' own lines stay whole.
                    while let newline = buffer.firstIndex(of: 10) {
                        let line = String(decoding: buffer[..<newline], as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
                        buffer.removeFirst(newline + 1)
                        if line.hasPrefix("id:") {
                            current.id = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
                        } else if line.hasPrefix("data:") {
                            current.data.append(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
                        } else if line.isEmpty, !current.data.isEmpty {
                            let event = Event(
                                id: current.id, data: current.data.joined(separator: "\n"), arrived: DispatchTime.now().uptimeNanoseconds)
                            self.state.withLock { $0.events.append(event) }
                            current = (nil, [])
                        }
                    }
                }
                self.state.withLock { $0.ended = true }
            }
            thread.start()
        }

        /// The events so far.
        public var events: [Event] { state.withLock { $0.events } }
        /// Whether the stream ended (the server closed it, or ``close()``).
        public var ended: Bool { state.withLock { $0.ended } }

        /// Waits (up to `seconds`) until an event satisfies `condition`; returns it.
        public func wait(seconds: Double, for condition: (Event) -> Bool) -> Event? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let event = events.first(where: condition) { return event }
                usleep(2_000)
            }
            return events.first(where: condition)
        }

        /// Stops reading and closes the connection.
        public func close() {
            state.withLock { $0.ended = true }
            shutdown(fd, Int32(SHUT_RDWR))
        }

        deinit { Glibc.close(fd) }
    }
}

extension LoopbackHTTP {
    /// A feed client as a browser's `EventSource` is: when its stream ends (the server or a proxy closed it, the
    /// node went away), it connects again with `Last-Event-ID` — so every event should arrive once, in order,
    /// whatever happened between. Keeps every event it got, duplicates included (what a test checks).
    public final class ResumingFeed: Sendable {
        private let state = Mutex<(events: [EventStream.Event], reconnections: Int, stopped: Bool)>(([], 0, false))

        /// Follows `target` at 127.0.0.1:`port` (a proxy in front of the nodes) until ``stop()``.
        public init(port: Int, target: String = "/v1/changes/stream", token: String) {
            Thread.detachNewThread { [self] in
                var last: String?
                var first = true
                while !state.withLock({ $0.stopped }) {
                    guard let stream = EventStream(port: port, target: target, token: token, lastEventID: last) else {
                        usleep(200_000)
                        continue
                    }
                    if !first { state.withLock { $0.reconnections += 1 } }
                    first = false
                    var taken = 0
                    while !stream.ended, !state.withLock({ $0.stopped }) {
                        let events = stream.events
                        if events.count > taken {
                            let new = Array(events[taken...])
                            taken = events.count
                            last = new.last?.id ?? last
                            state.withLock { $0.events += new }
                        }
                        usleep(2_000)
                    }
                    let rest = Array(stream.events.dropFirst(taken))
                    last = rest.last?.id ?? last
                    state.withLock { $0.events += rest }
                    stream.close()
                    usleep(200_000)
                }
            }
        }

        /// Every event so far, in arrival order.
        public var events: [EventStream.Event] { state.withLock { $0.events } }
        /// How many times it connected again.
        public var reconnections: Int { state.withLock { $0.reconnections } }

        /// Waits (up to `seconds`) until events with all of `ids` arrived; whether they did.
        public func wait(seconds: Double, for ids: Set<String>) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if ids.isSubset(of: Set(events.compactMap(\.id))) { return true }
                usleep(10_000)
            }
            return ids.isSubset(of: Set(events.compactMap(\.id)))
        }

        public func stop() { state.withLock { $0.stopped = true } }
    }
}
