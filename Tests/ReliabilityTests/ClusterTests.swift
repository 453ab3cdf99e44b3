import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Synchronization
import Testing

/// Two `photos serve` processes and a `photos worker` over one library on the test command's PostgreSQL and
/// SeaweedFS, each node with a cache folder of its own, as hosts would be: any node answers any request (an upload
/// received by one is imported through the other), a commit through one reaches the other's feed, an edit through
/// one changes what the other serves, the worker makes the renderings, and a node killed mid-upload loses nothing
/// (the client sends the upload again to the other node).
@Suite(
    "Reliability: a cluster of nodes",
    .enabled(
        if: ProcessInfo.processInfo.environment["OPENPHOTOKIT_TEST_POSTGRES"] != nil
            && ProcessInfo.processInfo.environment["OPENPHOTOKIT_TEST_S3_BUCKET"] != nil,
        "no PostgreSQL server and object store (the test command starts them)"))
struct ClusterTests {
    /// The library's address as a node with its own cache folder opens it.
    static func address(base: String, name: String, bucket: String, cache: URL) -> String {
        "\(base)?library=\(name)&files=s3://\(bucket)/\(name)&cache=\(cache.path)"
    }

    /// A `photos serve` process on a free port.
    struct Node {
        let process: ChildProcess
        let port: Int

        init(library: String, log: URL, extra: [String] = []) throws {
            let executable = ReliabilityTests.KillCampaignTests.executable
            process = try ChildProcess(
                executable, ["serve", "--library", library, "--port", "0", "--json", "--log-level", "warning"] + extra, standardError: log)
            var port = 0
            let deadline = Date().addingTimeInterval(60)
            while port == 0, Date() < deadline {
                if let line = String(data: process.standardOutputSoFar, encoding: .utf8)?.split(separator: "\n").first,
                    let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                {
                    port = object["port"] as? Int ?? 0
                }
                usleep(20_000)
            }
            guard port > 0 else {
                process.kill()
                _ = process.wait(samplingMemory: false)
                throw CocoaError(
                    .executableLoad,
                    userInfo: [NSLocalizedDescriptionKey: "photos serve did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")"])
            }
            self.port = port
        }

        func stop() {
            process.kill()
            _ = process.wait(samplingMemory: false)
        }
    }

    /// Uploads `bytes` to a node and answers the upload id (nil: refused or the node is gone).
    static func upload(_ bytes: Data, name: String, port: Int, token: String) -> String? {
        guard let answer = LoopbackHTTP.exchange(port: port, "POST", "/v1/uploads?filename=\(name)", token: token, body: bytes),
            answer.status == 201
        else { return nil }
        return answer.json["upload"] as? String
    }

    /// What failed, recorded on the blocking thread and expected empty by the test (issues are the test's task's).
    struct Checks {
        var failures: [String] = []
        mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String, line: Int = #line) {
            if !condition { failures.append("line \(line): \(message())") }
        }
        func need<T>(_ value: T?, _ message: String, line: Int = #line) throws -> T {
            guard let value else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "line \(line): \(message)"]) }
            return value
        }
    }

    @Test(.timeLimit(.minutes(5))) func anyNodeAnswersAnyRequestAndEveryNodeSeesEveryCommit() async throws {
        let failures = try await blockingOffThePool { try Self.cluster() }
        #expect(failures == [])
    }

    static func cluster() throws -> [String] {
        var checks = Checks()
        let environment = ProcessInfo.processInfo.environment
        let base = try checks.need(environment["OPENPHOTOKIT_TEST_POSTGRES"], "no test PostgreSQL")
        let bucket = try checks.need(environment["OPENPHOTOKIT_TEST_S3_BUCKET"], "no test bucket")
        let workspace = try TestMedia.temporaryDirectory("cluster")
        let name = "cluster_\(UUID().uuidString.prefix(8).lowercased())"
        let addressA = address(base: base, name: name, bucket: bucket, cache: workspace.appendingPathComponent("node-a"))
        let addressB = address(base: base, name: name, bucket: bucket, cache: workspace.appendingPathComponent("node-b"))
        let addressW = address(base: base, name: name, bucket: bucket, cache: workspace.appendingPathComponent("worker"))
        let addressOwner = address(base: base, name: name, bucket: bucket, cache: workspace.appendingPathComponent("owner"))
        defer {
            try? LibraryStorage.removeLibrary(at: URL(string: addressOwner)!)
            try? FileManager.default.removeItem(at: workspace)
        }
        let token: String
        do {
            let owner = try PHPhotoLibrary(url: try checks.need(URL(string: addressOwner), "the library's address"), clientIdentifier: nil)
            try owner.setAuthorization(.authorized, for: "phone")
            token = try owner.createAccessToken(for: "phone").secret
        }
        let a = try Node(library: addressA, log: workspace.appendingPathComponent("a.log"), extra: ["--no-background-work"])
        defer { a.stop() }
        let b = try Node(library: addressB, log: workspace.appendingPathComponent("b.log"), extra: ["--no-background-work"])
        defer { b.stop() }

        // B's feed hears of commits made through A.
        let feed = try checks.need(LoopbackHTTP.EventStream(port: b.port, target: "/v1/changes/stream", token: token), "B's change feed did not open")
        defer { feed.close() }

        // Uploaded to A, imported through B (a load balancer sent the two requests to different nodes).
        let photo = workspace.appendingPathComponent("photo.jpg")
        try TestMedia.writeImage(to: photo, width: 320, height: 240)
        let bytes = try Data(contentsOf: photo)
        let uploadID = try checks.need(upload(bytes, name: "IMG_0001.JPG", port: a.port, token: token), "the upload was refused")
        let body = try JSONSerialization.data(withJSONObject: ["uploads": [uploadID]])
        let created = try checks.need(
            LoopbackHTTP.exchange(port: b.port, "POST", "/v1/assets", token: token, body: body, type: "application/json"), "node B did not answer")
        checks.expect(created.status == 200, "\(String(decoding: created.body, as: UTF8.self))")
        let id = try checks.need((created.json["created"] as? [String])?.first, "nothing was created")
        checks.expect(feed.wait(seconds: 30) { $0.data.contains(id) } != nil, "B's feed did not tell of the asset")
        // Imported once: the upload is gone from both nodes.
        let again = try checks.need(
            LoopbackHTTP.exchange(port: a.port, "POST", "/v1/assets", token: token, body: body, type: "application/json"), "node A did not answer")
        checks.expect(again.status == 404, "failed: again.status == 404")

        // An edit through A changes what B serves (its per-commit caches emptied by the commit's notification).
        let first = try checks.need(
            LoopbackHTTP.exchange(port: b.port, "GET", "/v1/assets/\(id)/image?size=64x64", token: token), "node B did not answer")
        checks.expect(first.status == 200, "failed: first.status == 200")
        let mono = Data(#"{"steps":[{"look":{"_0":"mono"}}]}"#.utf8)
        let edited = try checks.need(
            LoopbackHTTP.exchange(port: a.port, "PUT", "/v1/assets/\(id)/edit", token: token, body: mono, type: "application/json"),
            "node A did not answer")
        checks.expect(edited.status == 200, "\(String(decoding: edited.body, as: UTF8.self))")
        let second = try checks.need(
            LoopbackHTTP.exchange(port: b.port, "GET", "/v1/assets/\(id)/image?size=64x64", token: token), "node B did not answer")
        checks.expect(second.status == 200 && second.headers["etag"] != first.headers["etag"], "B served the version before the edit")
        checks.expect(second.body != first.body, "failed: second.body != first.body")

        // The worker makes the renderings of both versions' commits; the queue ends empty.
        let worker = try PhotosCommandLine.run(["worker", "--drain", "--json", "--library", addressW])
        checks.expect(worker.status == 0, "\(worker.stderr)")
        let status = try PhotosCommandLine.run(["worker", "--status", "--json", "--library", addressW])
        checks.expect(
            (try status.json() as? [String: Int]) == ["queued": 0, "claimed": 0, "failed": 0],
            "the queue is not empty: \(status.stdout)")

        // A killed mid-upload: the client sends the photo again to B; one asset, nothing half-made.
        let big = workspace.appendingPathComponent("big.jpg")
        try TestMedia.writeImage(to: big, width: 1600, height: 1200, quality: 100)
        let bigBytes = [UInt8](try Data(contentsOf: big))
        let connection = try checks.need(connectToLoopback(port: a.port, receiveTimeout: 5), "node A did not take the connection")
        let head =
            "POST /v1/uploads?filename=IMG_0002.JPG HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(bigBytes.count)\r\n\r\n"
        checks.expect(
            LoopbackHTTP.send(connection, Array(head.utf8) + bigBytes[..<(bigBytes.count / 2)]),
            "the upload did not start")
        a.stop()
        close(connection)
        let retried = try checks.need(upload(Data(bigBytes), name: "IMG_0002.JPG", port: b.port, token: token), "the upload was refused")
        let createdAgain = try checks.need(
            LoopbackHTTP.exchange(
                port: b.port, "POST", "/v1/assets", token: token, body: try JSONSerialization.data(withJSONObject: ["uploads": [retried]]),
                type: "application/json"), "node B did not answer")
        checks.expect(createdAgain.status == 200, "failed: createdAgain.status == 200")
        let list = try checks.need(LoopbackHTTP.exchange(port: b.port, "GET", "/v1/assets", token: token), "node B did not answer")
        checks.expect((list.json["assets"] as? [Any])?.count == 2, "failed: (list.json[assets] as? [Any])?.count == 2")
        let verify = try PhotosCommandLine.run(["verify", "--json", "--library", addressOwner])
        checks.expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        return checks.failures
    }
}
