import Foundation
import PhotosTestHarness
import PhotosTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the cluster fault tests run: PostgreSQL 15, SeaweedFS and nginx.
enum ClusterFaultTools {
    static var areInstalled: Bool {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":\(NSHomeDirectory())/.local/bin"
        let weed = path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/weed") }
        return weed && FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx")
            && FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/15/bin/postgres")
    }
}

/// A cluster on hosts of its own — network namespaces the test makes: PostgreSQL, SeaweedFS, two `photos serve`
/// nodes and a `photos worker`, with nginx in front (here) — and the faults a cluster meets: a node killed
/// mid-upload, the object store cut off, PostgreSQL crashed and restarted, a node cut off the network. Through them
/// a client that retries as clients do loses nothing, nothing is committed half, and a feed client that reconnects
/// with `Last-Event-ID` (as `EventSource` does) gets every commit once, in order.
@Suite(
    "Reliability: cluster faults on hosts of their own",
    .enabled(if: TestNetwork.isAvailable, "needs root and ip netns"),
    .enabled(if: ClusterFaultTools.areInstalled, "needs PostgreSQL 15, SeaweedFS (weed) and nginx"), .heavy)
struct ClusterFaultTests {
    /// The repository's scripts (the test command runs in the repository).
    static var scripts: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts")
    }

    /// The limit counts the wait for the other heavy tests (the gallery's) too.
    @Test(.timeLimit(.minutes(20))) func aClusterLosesNothingThroughItsFaults() async throws {
        let failures = try await blockingOffThePool { try Self.faults() }
        #expect(failures == [])
    }

    static func faults() throws -> [String] {
        var checks = ClusterTests.Checks()
        func note(_ line: String) { FileHandle.standardError.write(Data("cluster faults: \(line)\n".utf8)) }
        let network = try TestNetwork()
        defer { network.remove() }
        let workspace = try TestMedia.temporaryDirectory("cluster-faults")
        // Kept when something failed: the nodes' logs say why.
        defer { if checks.failures.isEmpty { try? FileManager.default.removeItem(at: workspace) } else { note("logs in \(workspace.path)") } }
        let (db, s3, a, b, w) = (
            try network.addHost("db"), try network.addHost("s3"), try network.addHost("a"), try network.addHost("b"), try network.addHost("w")
        )
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (environment["PATH"] ?? "/usr/bin:/bin") + ":\(NSHomeDirectory())/.local/bin"
        // The hosts' own stores, apart from the test command's (other folders, other addresses).
        var dbEnvironment = environment
        dbEnvironment["OPENPHOTOKIT_PG_DIR"] = workspace.appendingPathComponent("postgres").path
        dbEnvironment["OPENPHOTOKIT_PG_HOST"] = db.address
        var s3Environment = environment
        s3Environment["OPENPHOTOKIT_S3_DIR"] = workspace.appendingPathComponent("seaweedfs").path
        s3Environment["OPENPHOTOKIT_S3_IP"] = s3.address
        // Other ports than the test command's store: SeaweedFS names unix sockets in /tmp by port
        // (`seaweedfs-s3-PORT.sock`, shared by every namespace), and two stores on one name talk to each other's.
        s3Environment["OPENPHOTOKIT_S3_PORT"] = "19433"
        let postgres = scripts.appendingPathComponent("test-postgres.sh").path
        let seaweed = scripts.appendingPathComponent("test-seaweedfs.sh").path
        note("starting the stores")
        let started = try network.shell(on: db, "\(postgres) start", environment: dbEnvironment)
        defer { _ = try? network.shell(on: db, "\(postgres) stop", environment: dbEnvironment) }
        let stored = try network.shell(on: s3, "\(seaweed) start", environment: s3Environment)
        defer { _ = try? network.shell(on: s3, "\(seaweed) stop", environment: s3Environment) }
        guard started.status == 0, stored.status == 0 else {
            let log = (try? String(contentsOf: workspace.appendingPathComponent("seaweedfs/weed.log"), encoding: .utf8)) ?? ""
            return ["the hosts' stores did not start: \(started) \(stored) \(log.suffix(2000))"]
        }

        note("stores started")
        // Every process of the cluster finds the store as the AWS SDKs do, from the environment.
        var nodeEnvironment = environment
        for line in stored.output.split(separator: "\n") where line.hasPrefix("export ") {
            for pair in line.dropFirst(7).split(separator: " ") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { nodeEnvironment[String(parts[0])] = String(parts[1]) }
            }
        }
        let name = "faults"
        func address(_ node: String) -> String {
            "postgres://photos@\(db.address):54329/photos?library=\(name)&files=s3://openphotokit-test/\(name)&cache=\(workspace.appendingPathComponent(node).path)"
        }
        let photos = ReliabilityTests.KillCampaignTests.executable.path
        func command(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let quoted = ([photos] + arguments).map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
            return try network.shell(on: w, quoted, environment: nodeEnvironment)
        }
        checks.expect(try command(["grant", "phone", "readWrite", "--library", address("owner")]).status == 0, "photos grant failed")
        let tokenOutput = try command(["token", "create", "phone", "--json", "--library", address("owner")]).output
        let token = try checks.need(
            (try? JSONSerialization.jsonObject(with: Data(tokenOutput.utf8)) as? [String: Any])?["token"] as? String, "no token: \(tokenOutput)")

        note("library and token made")
        // Two nodes, a worker, and nginx in front of the nodes (here, where the clients are).
        var nodes: [String: ChildProcess] = [:]
        func startNode(_ host: TestNetwork.Host, _ label: String) throws {
            nodes[label] = try network.start(
                on: host, photos,
                [
                    "serve", "--library", address(label), "--host", host.address, "--port", "8080", "--log-level", "warning", "--no-gallery",
                    "--no-background-work",
                ],
                environment: nodeEnvironment, standardError: workspace.appendingPathComponent("\(label).log"))
        }
        func waitForNode(_ host: TestNetwork.Host) -> Bool {
            for _ in 0..<600 {
                if let fd = connectToLoopback(host: host.address, port: 8080, receiveTimeout: 1) {
                    close(fd)
                    return true
                }
                usleep(50_000)
            }
            return false
        }
        try startNode(a, "a")
        try startNode(b, "b")
        defer { for node in nodes.values { node.kill(); _ = node.wait(samplingMemory: false) } }
        let worker = try network.start(
            on: w, photos, ["worker", "--library", address("worker")], environment: nodeEnvironment,
            standardError: workspace.appendingPathComponent("worker.log"))
        defer { worker.kill(); _ = worker.wait(samplingMemory: false) }
        checks.expect(waitForNode(a) && waitForNode(b), "the nodes did not start")
        let proxy = try WebDriver.freePort()
        let nginxFolder = workspace.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: nginxFolder, withIntermediateDirectories: true)
        try """
        daemon off;
        worker_processes 1;
        pid \(nginxFolder.path)/nginx.pid;
        error_log \(nginxFolder.path)/error.log;
        events { worker_connections 256; }
        http {
          access_log off;
          upstream photos { server \(a.address):8080 max_fails=1 fail_timeout=3s; server \(b.address):8080 max_fails=1 fail_timeout=3s; }
          server {
            listen 127.0.0.1:\(proxy);
            client_max_body_size 64m;
            proxy_request_buffering off;
            proxy_buffering off;
            proxy_connect_timeout 2s;
            proxy_read_timeout 60s;
            proxy_next_upstream error timeout;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            location / { proxy_pass http://photos; }
            # A feed whose node went silent is closed after a missed heartbeat (every 15 s): its client reconnects.
            location /v1/changes/stream { proxy_pass http://photos; proxy_read_timeout 20s; }
          }
        }
        """.write(to: nginxFolder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let nginx = try ChildProcess(
            URL(fileURLWithPath: "/usr/sbin/nginx"), ["-c", nginxFolder.appendingPathComponent("nginx.conf").path, "-p", nginxFolder.path])
        defer {
            _ = kill(nginx.pid, SIGTERM)
            _ = nginx.wait(samplingMemory: false)
        }
        var healthy = false
        for _ in 0..<250 where !healthy {
            healthy = LoopbackHTTP.exchange(port: proxy, "GET", "/healthz")?.status == 200
            if !healthy { usleep(20_000) }
        }
        checks.expect(healthy, "nginx did not start")

        note("nodes and nginx started")
        // Feed clients through nginx; commits through it, their tokens kept: each must reach every client once.
        let feeds = (0..<4).map { _ in LoopbackHTTP.ResumingFeed(port: proxy, token: token) }
        defer { for feed in feeds { feed.stop() } }
        var committed: [String] = []
        func commit(_ favorite: Bool, asset: String) -> Int {
            let body = try! JSONSerialization.data(withJSONObject: ["changes": [["op": "updateAsset", "asset": asset, "isFavorite": favorite]]])
            guard let answer = LoopbackHTTP.exchange(port: proxy, "POST", "/v1/changes", token: token, body: body, type: "application/json")
            else { return 0 }
            if answer.status == 200, let made = answer.json["token"] as? String { committed.append(made) }
            return answer.status
        }
        func upload(_ file: URL, _ filename: String) -> LoopbackHTTP.Answer? {
            LoopbackHTTP.exchange(
                port: proxy, "POST", "/v1/uploads?filename=\(filename)", token: token, body: (try? Data(contentsOf: file)) ?? Data())
        }
        func create(_ id: String) -> LoopbackHTTP.Answer? {
            LoopbackHTTP.exchange(
                port: proxy, "POST", "/v1/assets", token: token, body: try! JSONSerialization.data(withJSONObject: ["uploads": [id]]),
                type: "application/json")
        }
        func assetCount() -> Int? {
            (LoopbackHTTP.exchange(port: proxy, "GET", "/v1/assets", token: token)?.json["assets"] as? [Any])?.count
        }
        let photo = workspace.appendingPathComponent("first.jpg")
        try TestMedia.writeImage(to: photo, width: 320, height: 240)
        let first = try checks.need(upload(photo, "IMG_0001.JPG")?.json["upload"] as? String, "the first upload failed")
        let asset = try checks.need((create(first)?.json["created"] as? [String])?.first, "the first asset was not created")
        checks.expect(commit(true, asset: asset) == 200, "a commit failed")

        note("first asset and commit")
        // 1. Node A killed mid-upload (the client had picked it); the client sends the photo again through nginx.
        let big = workspace.appendingPathComponent("big.jpg")
        try TestMedia.writeImage(to: big, width: 1600, height: 1200, quality: 100)
        let bytes = [UInt8](try Data(contentsOf: big))
        if let connection = connectToLoopback(host: a.address, port: 8080, receiveTimeout: 5) {
            let head =
                "POST /v1/uploads?filename=IMG_0002.JPG HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(bytes.count)\r\n\r\n"
            _ = LoopbackHTTP.send(connection, Array(head.utf8) + bytes[..<(bytes.count / 2)])
            nodes["a"]?.kill()
            _ = nodes["a"]?.wait(samplingMemory: false)
            close(connection)
        }
        let retried = try checks.need(upload(big, "IMG_0002.JPG")?.json["upload"] as? String, "the upload sent again failed")
        checks.expect(create(retried)?.status == 200, "the asset of the upload sent again was not created")
        checks.expect(assetCount() == 2, "not two assets after the kill: \(String(describing: assetCount()))")
        try startNode(a, "a")
        checks.expect(waitForNode(a), "node A did not start again")

        note("node kill done")
        // 2. The object store cut off: uploads are refused with 503 and Retry-After, nothing is committed.
        try network.cut(s3)
        let cutAt = Date()
        let refused = upload(photo.deletingLastPathComponent().appendingPathComponent("big.jpg"), "IMG_0003.JPG")
        note("the upload with the store cut off was answered after \(Date().timeIntervalSince(cutAt)) s")
        checks.expect(
            refused?.status == 503 && refused?.headers["retry-after"] != nil, "not 503 + Retry-After: \(String(describing: refused?.status))")
        checks.expect(assetCount() == 2, "something was committed while the store was away")
        try network.restore(s3)
        let third = workspace.appendingPathComponent("third.jpg")
        try TestMedia.writeImage(to: third, width: 300, height: 200)
        var thirdUpload: String?
        for _ in 0..<60 where thirdUpload == nil {
            thirdUpload = upload(third, "IMG_0003.JPG")?.json["upload"] as? String
            if thirdUpload == nil { usleep(500_000) }
        }
        checks.expect(thirdUpload.flatMap(create)?.status == 200, "no upload once the store was back")

        note("store cut done")
        // 3. PostgreSQL crashed and started again: writes are refused meanwhile (503), then the nodes reconnect.
        checks.expect(try network.shell(on: db, "\(postgres) crash", environment: dbEnvironment).status == 0, "PostgreSQL did not stop")
        let during = commit(false, asset: asset)
        checks.expect(during == 503 || during == 0, "a commit while PostgreSQL was down answered \(during)")
        checks.expect(try network.shell(on: db, "\(postgres) start", environment: dbEnvironment).status == 0, "PostgreSQL did not start again")
        var back = false
        for index in 0..<120 where !back {
            back = commit(index % 2 == 0, asset: asset) == 200
            if !back { usleep(500_000) }
        }
        checks.expect(back, "no commit went through once PostgreSQL was back")

        note("PostgreSQL restart done")
        // 4. Node A cut off the network: feed clients on it reconnect through nginx to B; commits go on.
        try network.cut(a)
        for index in 0..<3 {
            let status = commit(index % 2 == 1, asset: asset)
            checks.expect(status == 200, "a commit with node A cut off answered \(status)")
        }
        try network.restore(a)

        note("node cut done")
        // Every commit reached every feed client, once, in order (events of other commits may be between).
        for (index, feed) in feeds.enumerated() {
            checks.expect(feed.wait(seconds: 90, for: Set(committed)), "feed client \(index) missed commits")
            let ids = feed.events.compactMap(\.id)
            checks.expect(Set(ids).count == ids.count, "feed client \(index) got an event twice")
            let order = ids.filter { committed.contains($0) }
            checks.expect(order == committed, "feed client \(index) got the commits out of order")
        }
        checks.expect(feeds.contains { $0.reconnections > 0 }, "no feed client had to reconnect (none was on a failed node)")
        let verify = try command(["verify", "--json", "--library", address("owner")])
        checks.expect(verify.status == 0, "verify: \(verify.output)")
        return checks.failures
    }
}
