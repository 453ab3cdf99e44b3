import Foundation
import HummingbirdTesting
import PhotosServer
import PhotosTestHarness
import PhotosTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a client can hold of `photos serve` without a token: a connection that trickles its request head, one that
/// says nothing, and more connections than the server allows. Before these limits a few hundred half-sent requests
/// held the server, and at the descriptor limit it stopped answering.
@Suite("Connection limits")
struct ConnectionLimitTests {
    /// Reads until the peer closes or `done` says enough; returns what came (nil: the receive timed out).
    static func receive(_ fd: Int32, until done: (String) -> Bool = { _ in false }) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !done(String(decoding: received, as: UTF8.self)) {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 { return (String(decoding: received, as: UTF8.self), true) }
            if count < 0 { break }
            received += chunk[0..<count]
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    static func send(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count
    }

    @Test func aHeadTrickledByteByByteIsCutOffAtTheHeadTimeout() async throws {
        let fixture = try ServerFixture(name: "Slowloris", configuration: .init(port: 0, requestHeadTimeout: .seconds(1)))
        defer { fixture.library.remove() }
        try await fixture.test { client in
            let port = try #require(client.port)
            let (bytesSent, closedByServer) = try await blockingOffThePool { () throws -> (Int, Bool) in
                guard let fd = connectToLoopback(port: port, receiveTimeout: 1) else { throw POSIXError(.ECONNREFUSED) }
                defer { close(fd) }
                guard Self.send(fd, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ") else { throw POSIXError(.EIO) }
                // One byte every 200 ms for up to 12 s: never idle, never done.
                for sent in 0..<60 {
                    usleep(200_000)
                    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    var peek: UInt8 = 0
                    if poll(&poller, 1, 0) > 0, recv(fd, &peek, 1, Int32(MSG_PEEK)) == 0 { return (sent, true) }
                    if !Self.send(fd, "a") { return (sent, true) }
                }
                return (60, false)
            }
            #expect(closedByServer, "the connection outlived a 12-second trickle")
            #expect(bytesSent < 60)
        }
    }

    @Test func aConnectionThatSaysNothingIsClosed() async throws {
        let fixture = try ServerFixture(name: "Silent", configuration: .init(port: 0, requestHeadTimeout: .seconds(1)))
        defer { fixture.library.remove() }
        try await fixture.test { client in
            let port = try #require(client.port)
            let closed = try await blockingOffThePool { () throws -> Bool in
                guard let fd = connectToLoopback(port: port, receiveTimeout: 30) else { throw POSIXError(.ECONNREFUSED) }
                defer { close(fd) }
                return Self.receive(fd).closed
            }
            #expect(closed, "a silent connection was still open after 30 s")
            // A keep-alive connection after its answer is held the same way, no longer.
            let (answered, closedAfter) = try await blockingOffThePool { () throws -> (String, Bool) in
                guard let fd = connectToLoopback(port: port, receiveTimeout: 30) else { throw POSIXError(.ECONNREFUSED) }
                defer { close(fd) }
                guard Self.send(fd, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n") else { throw POSIXError(.EIO) }
                let answer = Self.receive(fd) { $0.contains("\r\n\r\n") }.text
                return (answer, Self.receive(fd).closed)
            }
            #expect(answered.hasPrefix("HTTP/1.1 200"), "\(answered)")
            #expect(closedAfter)
        }
    }

    @Test func connectionsOverTheLimitAreAnswered503AndPlacesComeBack() async throws {
        let fixture = try ServerFixture(name: "Cap", configuration: .init(port: 0, maximumConnections: 4))
        defer { fixture.library.remove() }
        try await fixture.test { client in
            let port = try #require(client.port)
            let (served, refused, afterwards) = try await blockingOffThePool { () throws -> (Int, String, String) in
                // Connections, each answered once (so each is counted) and kept open, until one is refused (the test
                // client may hold one of the four places itself).
                var open: [Int32] = []
                defer { open.forEach { close($0) } }
                var refused = ""
                for _ in 0..<8 {
                    guard let fd = connectToLoopback(port: port, receiveTimeout: 20) else { throw POSIXError(.ECONNREFUSED) }
                    _ = Self.send(fd, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    let answer = Self.receive(fd) { $0.contains("\r\n\r\n") && $0.contains("}") }.text
                    if answer.hasPrefix("HTTP/1.1 200") {
                        open.append(fd)
                    } else {
                        refused = answer + Self.receive(fd).text
                        close(fd)
                        break
                    }
                }
                let served = open.count
                // One of those served goes: a new connection is served again (once the server has seen it go).
                if let last = open.popLast() { close(last) }
                var afterwards = ""
                for _ in 0..<100 where !afterwards.hasPrefix("HTTP/1.1 200") {
                    guard let fd = connectToLoopback(port: port, receiveTimeout: 20) else { throw POSIXError(.ECONNREFUSED) }
                    _ = Self.send(fd, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    afterwards = Self.receive(fd).text
                    close(fd)
                    if !afterwards.hasPrefix("HTTP/1.1 200") { usleep(50_000) }
                }
                return (served, refused, afterwards)
            }
            #expect((3...4).contains(served), "\(served) connections were served at once with a limit of 4")
            #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
            #expect(refused.lowercased().contains("retry-after: 1"), "\(refused)")
            #expect(refused.contains("too many open connections"), "\(refused)")
            #expect(afterwards.hasPrefix("HTTP/1.1 200"), "\(afterwards)")
        }
    }
}
