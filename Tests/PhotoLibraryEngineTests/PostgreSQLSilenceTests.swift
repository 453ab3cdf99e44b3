import Foundation
import PhotoLibraryEngine
import PhotosTesting
import Testing

/// A database server that goes silent mid-session — the network gone, no reset, no close (a relay that stops passing
/// bytes on, its socket still answering TCP) — ends the wait within the address's bounds as a typed error.
@Suite("PostgreSQL gone silent", .enabled(if: StoreUnderTest.postgresURL != nil))
struct PostgreSQLSilenceTests {
    /// A TCP relay to the test server that, once a line comes on its standard input, swallows everything both ways and
    /// says `silent`.
    static let relay = """
        import socket, sys, threading
        upstream = (sys.argv[1], int(sys.argv[2]))
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        print(listener.getsockname()[1], flush=True)
        silent = threading.Event()
        def hush():
            sys.stdin.readline()
            silent.set()
            print("silent", flush=True)
        threading.Thread(target=hush, daemon=True).start()
        def pump(source, sink):
            try:
                while True:
                    data = source.recv(65536)
                    if not data:
                        break
                    if not silent.is_set():
                        sink.sendall(data)
            except OSError:
                pass
        while True:
            client, _ = listener.accept()
            server = socket.create_connection(upstream)
            threading.Thread(target=pump, args=(client, server), daemon=True).start()
            threading.Thread(target=pump, args=(server, client), daemon=True).start()
        """

    /// Within the bounds, not forever: the time limit is the upper one (the reply deadline is 4 s).
    @Test(.timeLimit(.minutes(1))) func aServerGoneSilentIsATypedErrorWithinTheBounds() async throws {
        let server = try #require(StoreUnderTest.postgresURL.flatMap { URLComponents(string: $0) })
        try await blockingOffThePool { try Self.waitForSilence(server) }
    }

    /// The relay started, a store opened through it, the relay told to pass nothing on, and a read: blocking throughout.
    static func waitForSilence(_ server: URLComponents) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.relay, server.host ?? "127.0.0.1", String(server.port ?? 5432)]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        defer {
            // SIGKILL: the signals the test process blocks stay blocked in its children.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        var lines = PipeLines(output.fileHandleForReading)
        let port = try #require(lines.next().flatMap { Int($0) })

        var components = server
        components.port = port
        let name = "silent_\(UUID().uuidString.prefix(8).lowercased())"
        components.queryItems = [
            URLQueryItem(name: "library", value: name), URLQueryItem(name: "sslmode", value: "disable"),
            URLQueryItem(name: "statement_timeout", value: "2"), URLQueryItem(name: "connect_timeout", value: "2"),
        ]
        let store = try PostgreSQLMetadataStore.open(url: try #require(components.url))
        defer {
            var direct = server
            direct.queryItems = [URLQueryItem(name: "library", value: name)]
            if let url = direct.url { try? PostgreSQLMetadataStore.removeLibrary(url: url) }
        }
        let one: Int64? = try store.read { db in try db.fetchOne(sql: "SELECT 1")?[0] }
        #expect(one == 1)

        input.fileHandleForWriting.write(Data("silence\n".utf8))
        #expect(lines.next() == "silent")
        let start = Date()
        do {
            _ = try store.read { db in try db.fetchOne(sql: "SELECT 2") }
            Issue.record("an answer came through a relay that passes nothing on")
        } catch {
            let error = try #require(error as? LibraryError, "\(error)")
            #expect(error.code == LibraryError.libraryVolumeOffline("").code)
            #expect(error.message.contains("did not answer within 4 s"), "\(error.message)")
        }
        let waited = Date().timeIntervalSince(start)
        #expect(waited >= 3.9, "waited \(waited) s for a bound of 4 s")
    }
}
