import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `photos-bench cluster`: two `photos serve` nodes over one library on PostgreSQL and object storage, behind nginx —
/// cached thumbnails through the balancer against nginx serving the same bytes from a folder, and the delay from a
/// commit through node A to its event on node B's feed.
struct BenchCluster: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract: "Measure two photos serve nodes behind nginx: thumbnails against nginx's own, commit on A to event on B.",
        discussion: """
            Over the PostgreSQL server and the S3-compatible store the test command starts (eval "$(scripts/test-postgres.sh
            start)"; eval "$(scripts/test-seaweedfs.sh start)"), each node with a cache folder of its own. A `photos worker`
            makes the renderings first (its time is reported). Needs wrk and nginx (nginx-light). Build with -c release:
            swift build -c release --product photos-bench --product photos
            """)
    @Option(help: "The PostgreSQL server (default: $OPENPHOTOKIT_TEST_POSTGRES).") var store: String?
    @Option(help: "The bucket (default: $OPENPHOTOKIT_TEST_S3_BUCKET).") var bucket: String?
    @Option(help: "Distinct thumbnails requested.") var thumbnails = 200
    @Option(help: "Commits timed from node A to node B's feed.") var commits = 200
    @Option(help: "Seconds of each wrk run.") var duration = 10
    @Option(help: "Alternating runs of the balanced nodes and of nginx (the median of each counts).") var rounds = 3
    @Option(name: .customLong("server-threads"), help: "Each node's --threads (default: one per core).") var serverThreads: Int?
    @Option(help: "Scratch folder.") var scratch = "/tmp/openphotokit-bench-cluster"
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let base = store ?? environment["OPENPHOTOKIT_TEST_POSTGRES"], !base.isEmpty else {
            throw ValidationError("name a PostgreSQL server: --store, or OPENPHOTOKIT_TEST_POSTGRES (scripts/test-postgres.sh start)")
        }
        guard let bucket = bucket ?? environment["OPENPHOTOKIT_TEST_S3_BUCKET"], !bucket.isEmpty else {
            throw ValidationError("name a bucket: --bucket, or OPENPHOTOKIT_TEST_S3_BUCKET (scripts/test-seaweedfs.sh start)")
        }
        for tool in ["/usr/bin/wrk", "/usr/sbin/nginx", "/usr/bin/curl"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw CLIError("\(tool) is missing: apt-get install wrk nginx-light curl")
        }
        let root = URL(fileURLWithPath: scratch)
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let name = "bench_cluster_\(UUID().uuidString.prefix(8).lowercased())"
        func address(_ node: String) -> String {
            "\(base)?library=\(name)&files=s3://\(bucket)/\(name)&cache=\(root.appendingPathComponent(node).path)"
        }
        guard let ownerURL = URL(string: address("owner")) else { throw CLIError("bad address") }
        defer { try? LibraryStorage.removeLibrary(at: ownerURL) }
        var results: [String: Any] = ["thumbnails": thumbnails, "commits": commits]

        // The library: distinct photos, a token, and the renderings made by a worker.
        let media = root.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        for index in 0..<thumbnails {
            try TestMedia.writeImage(to: media.appendingPathComponent("photo-\(index).jpg"), width: 1600 + index, height: 1200)
        }
        let owner = try PHPhotoLibrary(url: ownerURL, clientIdentifier: nil)
        let ids = try owner.importItems(at: [media]).importedLocalIdentifiers.map { $0.replacingOccurrences(of: "/", with: "_") }
        try owner.setAuthorization(.authorized, for: "bench")
        let token = try owner.createAccessToken(for: "bench").secret
        let photos = try PhotosBench.photosExecutable()
        let workStart = ContinuousClock.now
        let worker = try ChildProcess.run(photos, ["worker", "--drain", "--json", "--library", address("worker")], samplingMemory: false)
        guard worker.status == 0 else { throw CLIError("photos worker failed") }
        let workSeconds = (ContinuousClock.now - workStart).seconds
        results["workerSeconds"] = workSeconds
        log(String(format: "worker: renderings of %d photos in %.2f s (%.1f photos/s)", ids.count, workSeconds, Double(ids.count) / workSeconds))

        // Two nodes, and nginx: a balancer in front of both, and a folder of the same bytes.
        let a = try node(photos, address("node-a"), log: root.appendingPathComponent("a.log"))
        defer { stop(a.process) }
        let b = try node(photos, address("node-b"), log: root.appendingPathComponent("b.log"))
        defer { stop(b.process) }
        let paths = ids.map { "/v1/assets/\($0)/image?size=256x256&mode=fill" }
        let docroot = root.appendingPathComponent("nginx/html/t")
        try FileManager.default.createDirectory(at: docroot, withIntermediateDirectories: true)
        for (id, path) in zip(ids, paths) {
            // Each node answers each once (its cache then holds it); nginx gets the bytes.
            for port in [a.port, b.port] {
                let file = port == a.port ? docroot.appendingPathComponent("\(id).jpg").path : "/dev/null"
                let fetched = try ChildProcess.run(
                    URL(fileURLWithPath: "/usr/bin/curl"),
                    ["-sf", "-H", "Authorization: Bearer \(token)", "-o", file, "http://127.0.0.1:\(port)\(path)"],
                    samplingMemory: false)
                guard fetched.status == 0 else { throw CLIError("cannot fetch \(path) from port \(port)") }
            }
        }
        let (balancer, folder) = (try WebDriver.freePort(), try WebDriver.freePort())
        let prefix = root.appendingPathComponent("nginx")
        try """
        daemon off;
        worker_processes auto;
        pid \(prefix.path)/nginx.pid;
        error_log \(prefix.path)/error.log;
        events { worker_connections 1024; }
        http {
          access_log off;
          sendfile on;
          tcp_nopush on;
          types { image/jpeg jpg; }
          upstream photos { server 127.0.0.1:\(a.port); server 127.0.0.1:\(b.port); keepalive 64; }
          server {
            listen 127.0.0.1:\(balancer);
            location / {
              proxy_pass http://photos;
              proxy_http_version 1.1;
              proxy_set_header Connection "";
              proxy_set_header X-Forwarded-For $remote_addr;
            }
          }
          server {
            listen 127.0.0.1:\(folder);
            root \(prefix.path)/html;
            location / { etag on; add_header Cache-Control "private, max-age=31536000, immutable"; }
          }
        }
        """.write(to: prefix.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let nginx = try ChildProcess(
            URL(fileURLWithPath: "/usr/sbin/nginx"), ["-c", prefix.appendingPathComponent("nginx.conf").path, "-p", prefix.path])
        defer {
            // SIGTERM: the master stops its workers (SIGKILL would leave them running, orphaned).
            _ = Glibc.kill(nginx.pid, SIGTERM)
            _ = nginx.wait(samplingMemory: false)
        }
        var ready = false
        for _ in 0..<250 where !ready {
            ready = LoopbackHTTP.exchange(port: folder, "GET", "/t/\(ids[0]).jpg")?.status == 200
            if !ready { usleep(20_000) }
        }
        guard ready else { throw CLIError("nginx did not start: \(prefix.path)/error.log") }

        // 1. Cached thumbnails through the balancer, against nginx's folder (alternating runs, the median of each).
        var oursRuns: [WrkResult] = []
        var theirsRuns: [WrkResult] = []
        for _ in 0..<rounds {
            oursRuns.append(try WrkResult.run(port: balancer, paths: paths, token: token, connections: 32, seconds: duration, folder: root, log: log))
            theirsRuns.append(
                try WrkResult.run(
                    port: folder, paths: ids.map { "/t/\($0).jpg" }, token: nil, connections: 32, seconds: duration, folder: root, log: log))
        }
        let ours = oursRuns.sorted { $0.requestsPerSecond < $1.requestsPerSecond }[rounds / 2]
        let theirs = theirsRuns.sorted { $0.requestsPerSecond < $1.requestsPerSecond }[rounds / 2]
        let ratio = ours.requestsPerSecond / theirs.requestsPerSecond
        results["thumbnailsThroughBalancer"] = ours.json
        results["nginxFolder"] = theirs.json
        results["thumbnailRatio"] = ratio
        log(
            String(
                format:
                    "thumbnails (256 px, %d distinct, cached, two nodes behind nginx, 32 connections, median of %d): %.0f req/s, p99 %.2f ms; nginx serving the same bytes %.0f req/s, p99 %.2f ms; ratio %.2f× (goal ≥ 0.5×)",
                ids.count, rounds, ours.requestsPerSecond, ours.p99, theirs.requestsPerSecond, theirs.p99, ratio))

        // 2. A commit through A, its event on B's feed.
        let feed = LoopbackHTTP.EventStream(port: b.port, target: "/v1/changes/stream", token: token)
        guard let feed else { throw CLIError("node B's feed did not open") }
        defer { feed.close() }
        usleep(200_000)
        var delays: [Double] = []
        var afterAnswer: [Double] = []
        let asset = ids[0]
        for index in 0..<commits {
            let body = try JSONSerialization.data(withJSONObject: [
                "changes": [["op": "updateAsset", "asset": asset, "isFavorite": index % 2 == 0]]
            ])
            let sent = DispatchTime.now().uptimeNanoseconds
            guard let answer = LoopbackHTTP.exchange(port: a.port, "POST", "/v1/changes", token: token, body: body, type: "application/json"),
                answer.status == 200, let made = answer.json["token"] as? String
            else { throw CLIError("a commit through node A failed") }
            let answered = DispatchTime.now().uptimeNanoseconds
            guard let event = feed.wait(seconds: 10, for: { $0.id == made }) else { throw CLIError("node B's feed missed commit \(index)") }
            delays.append(Double(event.arrived - min(event.arrived, sent)) / 1e6)
            afterAnswer.append((Double(event.arrived) - Double(answered)) / 1e6)
        }
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
        }
        results["commitToEvent"] = [
            "p50Milliseconds": percentile(delays, 0.5), "p99Milliseconds": percentile(delays, 0.99), "maxMilliseconds": delays.max() ?? 0,
            "afterAnswerP99Milliseconds": percentile(afterAnswer, 0.99),
        ]
        log(
            String(
                format:
                    "commit through node A (request sent) to its event on node B's feed, %d commits: p50 %.2f ms, p99 %.2f ms, max %.2f ms (goal p99 ≤ 100 ms); from A's answer: p99 %.2f ms",
                commits, percentile(delays, 0.5), percentile(delays, 0.99), delays.max() ?? 0, percentile(afterAnswer, 0.99)))
        if json { printBenchJSON(results) }
    }

    private func log(_ line: String) {
        if !json { print(line) } else { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// A `photos serve` node in its own process, leaving the background work to the worker.
    private func node(_ photos: URL, _ address: String, log: URL) throws -> (port: Int, process: ChildProcess) {
        let process = try ChildProcess(
            photos,
            ["serve", "--library", address, "--port", "0", "--json", "--log-level", "warning", "--no-gallery", "--no-background-work"]
                + (serverThreads.map { ["--threads", String($0)] } ?? []),
            standardError: log)
        for _ in 0..<1500 {
            if let line = String(data: process.standardOutputSoFar, encoding: .utf8)?.split(separator: "\n").first,
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let port = object["port"] as? Int
            {
                return (port, process)
            }
            usleep(20_000)
        }
        stop(process)
        throw CLIError("photos serve did not start within 30 s: \(log.path)")
    }

    private func stop(_ process: ChildProcess) {
        _ = Glibc.kill(process.pid, SIGTERM)
        _ = process.wait(samplingMemory: false)
    }
}
