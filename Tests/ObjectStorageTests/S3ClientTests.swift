import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import ObjectStorage
import PhotosTesting
import Testing

/// The client against a real S3-compatible store: SeaweedFS started by `scripts/test-seaweedfs.sh` (the test command
/// starts it), which checks every request's signature against its configured identity.
@Suite("S3 client against SeaweedFS", .enabled(if: S3TestStore.endpoint != nil, "needs OPENPHOTOKIT_TEST_S3 (scripts/test-seaweedfs.sh)"))
struct S3ClientTests {
    static var endpoint: URL? { S3TestStore.endpoint }
    static var credentials: S3Credentials {
        let environment = ProcessInfo.processInfo.environment
        return S3Credentials(accessKeyID: environment["AWS_ACCESS_KEY_ID"] ?? "", secretAccessKey: environment["AWS_SECRET_ACCESS_KEY"] ?? "")
    }

    /// A client of a new bucket, and its removal with everything in it.
    static func bucket(_ credentials: S3Credentials = credentials) async throws -> S3Client {
        let client = S3Client(
            endpoint: try #require(endpoint), bucket: "test-\(UUID().uuidString.prefix(8).lowercased())",
            signer: SigV4Signer(credentials: credentials, region: ProcessInfo.processInfo.environment["AWS_REGION"] ?? "us-east-1"))
        try await client.createBucket()
        return client
    }

    static func empty(_ client: S3Client) async throws {
        for object in try await client.list(prefix: "") { try await client.delete(key: object.key) }
        try await client.deleteBucket()
    }

    static func bytes(_ count: Int, seed: UInt8) -> Data {
        var state = UInt32(seed) &+ 1
        return Data(
            (0..<count).map { _ in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            })
    }

    @Test func signedRequestsAreAcceptedAndAWrongSecretIsNot() async throws {
        let client = try await Self.bucket()
        let body = Self.bytes(70_000, seed: 1)
        #expect(try await client.put(key: "photos/a b+c.jpg", body: body) == .stored)
        #expect(try await client.get(key: "photos/a b+c.jpg") == body)

        var wrong = Self.credentials
        wrong.secretAccessKey += "x"
        let impostor = S3Client(
            endpoint: client.endpoint, bucket: client.bucket, signer: SigV4Signer(credentials: wrong, region: client.signer.region))
        await #expect(throws: S3Error.self) { try await impostor.get(key: "photos/a b+c.jpg") }
        do {
            _ = try await impostor.get(key: "photos/a b+c.jpg")
        } catch let error as S3Error {
            #expect(error.status == 403)
            #expect(error.code == "SignatureDoesNotMatch", "\(error)")
        }
        try await Self.empty(client)
    }

    @Test func rangesConditionalPutsAndHeadsAreS3s() async throws {
        let client = try await Self.bucket()
        let original = Self.bytes(1 << 20, seed: 2)
        try await client.put(key: "k", body: original)
        #expect(try await client.get(key: "k", range: 1000...1999) == original[1000...1999])
        #expect(try await client.head(key: "k")?.size == Int64(original.count))

        // If-None-Match: * leaves what is there.
        #expect(try await client.put(key: "k", body: Data("other".utf8), ifNoneMatch: true) == .alreadyThere)
        #expect(try await client.get(key: "k") == original)
        #expect(try await client.put(key: "new", body: Data("new".utf8), ifNoneMatch: true) == .stored)

        #expect(try await client.head(key: "missing") == nil)
        do {
            _ = try await client.get(key: "missing")
            Issue.record("a missing object was read")
        } catch let error as S3Error {
            #expect(error.status == 404 && error.code == "NoSuchKey", "\(error)")
        }
        try await client.delete(key: "k")
        #expect(try await client.head(key: "k") == nil)
        try await Self.empty(client)
    }

    @Test func multipartUploadsStoreTheWholeFile() async throws {
        let client = try await Self.bucket()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("s3-multipart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let content = Self.bytes(12 << 20 + 123, seed: 3)
        try content.write(to: file)
        try await client.putMultipart(key: "videos/big.mov", file: file, partSize: 5 << 20)
        let stored = try await client.get(key: "videos/big.mov")
        #expect(stored.count == content.count)
        #expect(SHA256.hash(data: stored) == SHA256.hash(data: content))
        #expect(try await client.list(prefix: "videos/").map(\.size) == [Int64(content.count)])
        try await Self.empty(client)
    }

    @Test func listingPagesThroughEveryKeyInOrder() async throws {
        let client = try await Self.bucket()
        let keys = (0..<7).map { "p/\($0)" } + ["q/0"]
        for key in keys { try await client.put(key: key, body: Data(key.utf8)) }
        #expect(try await client.list(prefix: "p/", pageSize: 3).map(\.key) == (0..<7).map { "p/\($0)" })
        #expect(try await client.list(prefix: "", pageSize: 2).count == 8)
        try await Self.empty(client)
    }

    /// A presigned URL reads the object without credentials, and only as signed.
    @Test func presignedURLsReadOnlyWhatTheySigned() async throws {
        let client = try await Self.bucket()
        let body = Self.bytes(5_000, seed: 4)
        try await client.put(key: "shared.jpg", body: body)
        try await client.put(key: "private.jpg", body: Data("secret".utf8))
        let url = client.presignedURL(key: "shared.jpg", expires: 600)

        func fetch(_ url: URL) async throws -> (UInt, Data) {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
            let buffer = try await response.body.collect(upTo: 1 << 24)
            return (response.status.code, Data(buffer.readableBytesView))
        }
        let (status, bytes) = try await fetch(url)
        #expect(status == 200 && bytes == body)
        let otherKey = try #require(URL(string: url.absoluteString.replacingOccurrences(of: "shared.jpg", with: "private.jpg")))
        #expect(try await fetch(otherKey).0 == 403)
        // The signature's last hex digit changed (to another one: it was replaced by itself one time in sixteen).
        var tampered = url.absoluteString
        let last = tampered.removeLast()
        tampered += last == "0" ? "1" : "0"
        #expect(try await fetch(try #require(URL(string: tampered))).0 == 403)
        try await Self.empty(client)
    }
}

/// The test store the run was given.
enum S3TestStore {
    static var endpoint: URL? { ProcessInfo.processInfo.environment["OPENPHOTOKIT_TEST_S3"].flatMap { URL(string: $0) } }
}

/// Retries: a store that answers "later" is asked again after a growing delay; one that cannot be reached is an error
/// after the policy's attempts, never a hang.
@Suite("S3 client retries")
struct S3RetryTests {
    /// An HTTP server that answers 503 (with S3's `SlowDown`) to its first `failures` requests, then 200 `done`; it
    /// prints its port, then the number of requests it had when each is answered.
    static let flaky = """
        import http.server, sys
        failures = int(sys.argv[1])
        count = 0
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                global count
                count += 1
                if count <= failures:
                    body = b"<?xml version='1.0'?><Error><Code>SlowDown</Code><Message>later</Message></Error>"
                    self.send_response(503)
                else:
                    body = b"done"
                    self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                print(count, flush=True)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    /// The flaky server with its port read, and its lines after that (off the cooperative pool: reading blocks).
    static func startFlaky(failures: Int) async throws -> (process: (handle: Process, lines: PipeLines), port: Int) {
        try await blockingOffThePool { try launchFlaky(failures: failures) }
    }

    static func launchFlaky(failures: Int) throws -> (process: (handle: Process, lines: PipeLines), port: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", flaky, String(failures)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var lines = PipeLines(output.fileHandleForReading)
        guard let port = lines.next().flatMap({ Int($0) }) else {
            stop((process, lines))
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the flaky server did not start"])
        }
        return ((process, lines), port)
    }

    /// SIGKILL: the signals the test process blocks stay blocked in its children.
    static func stop(_ process: (handle: Process, lines: PipeLines)) {
        kill(process.handle.processIdentifier, SIGKILL)
        process.handle.waitUntilExit()
    }

    static func client(port: Int, attempts: Int) throws -> S3Client {
        var client = S3Client(
            endpoint: try #require(URL(string: "http://127.0.0.1:\(port)")), bucket: "b",
            signer: SigV4Signer(credentials: S3Credentials(accessKeyID: "a", secretAccessKey: "s"), region: "us-east-1"))
        client.retry.attempts = attempts
        client.retry.initialDelay = .milliseconds(20)
        return client
    }

    @Test func aBusyStoreIsAskedAgain() async throws {
        let (process, port) = try await Self.startFlaky(failures: 2)
        defer { Self.stop(process) }
        let lines = process.lines

        #expect(try await Self.client(port: port, attempts: 4).get(key: "k") == Data("done".utf8))
        let counts = try await blockingOffThePool { [lines] in
            var lines = lines
            return [lines.next(), lines.next(), lines.next()]
        }
        #expect(counts == ["1", "2", "3"], "two 503s, then the answer")
    }

    @Test func aStoreBusyForLongerThanThePolicyIsItsError() async throws {
        let (process, port) = try await Self.startFlaky(failures: 5)
        defer { Self.stop(process) }
        let lines = process.lines
        do {
            _ = try await Self.client(port: port, attempts: 3).get(key: "k")
            Issue.record("a store that kept answering 503 gave an object")
        } catch let error as S3Error {
            #expect(error.status == 503 && error.code == "SlowDown", "\(error)")
        }
        let counts = try await blockingOffThePool { [lines] in
            var lines = lines
            return [lines.next(), lines.next(), lines.next()]
        }
        #expect(counts == ["1", "2", "3"], "three attempts")
    }

    /// A closed port: refused at once each time, an error after the attempts (the time limit catches a hang).
    @Test(.timeLimit(.minutes(2))) func aStoreThatCannotBeReachedIsAnErrorAfterTheAttempts() async throws {
        do {
            _ = try await Self.client(port: 1, attempts: 3).get(key: "k")
            Issue.record("a read from a closed port succeeded")
        } catch let error as S3Error {
            #expect(error.code == "Unreachable", "\(error)")
        }
    }
}
