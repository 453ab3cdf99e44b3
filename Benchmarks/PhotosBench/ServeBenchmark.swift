import ArgumentParser
import CommandLineSupport
import Foundation
import Logging
import OpenPhotos
import PhotosServer
import PhotosTestHarness
import PhotosTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `photos-bench serve`: the server's figures, each against its baseline in the same run — thumbnails against nginx
/// serving the same bytes, a timeline page of a 1,000,000-asset library, the feed's delay at 100 clients, uploads
/// against `photos import` of the same files, and the gallery's first painted grid in Chromium.
struct BenchServe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Measure photos serve: thumbnails vs nginx, timeline pages at 1M assets, feed delay, upload vs import, first paint.",
        discussion: "Needs wrk, nginx (nginx-light) and chromium with chromium-driver. Build with -c release.")
    @Option(help: "Assets of the timeline library (synthetic rows).") var assets = 1_000_000
    @Option(help: "Where the timeline library is kept (reused when it has the assets).") var library = "/tmp/openphotokit-bench.photoslibrary"
    @Option(help: "Distinct thumbnails requested in the thumbnail benchmark.") var thumbnails = 200
    @Option(help: "Connected feed clients.") var clients = 100
    @Option(help: "Commits timed in the feed benchmark.") var commits = 50
    @Option(help: "12-MP JPEGs uploaded and imported (0 skips the part).") var photos = 1000
    @Option(help: "Assets of the gallery's first-paint library (0 skips the part).") var galleryAssets = 100_000
    @Option(help: "Seconds of each wrk run.") var duration = 10
    @Option(help: "Alternating runs of the server and of nginx in the thumbnail benchmark (the median of each counts).") var rounds = 3
    @Option(help: "Which parts to run: thumbnails,timeline,feed,upload,paint (default: all).") var parts =
        "thumbnails,timeline,feed,upload,paint"
    @Option(name: .customLong("server-threads"), help: "photos serve's --threads (default: one per core).") var serverThreads: Int?
    @Option(help: "Scratch folder.") var scratch = "/tmp/openphotokit-bench-serve"
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard rounds >= 1 else { throw ValidationError("--rounds is at least 1") }
        guard duration >= 1 else { throw ValidationError("--duration is at least 1") }
    }

    func run() throws {
        // The root command is synchronous: the async work runs in a task while this thread waits.
        let outcome = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let command = self
        Task {
            do { try await command.measure() } catch { outcome.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = outcome.withLock({ $0 }) { throw error }
    }

    func measure() async throws {
        for tool in ["/usr/bin/wrk", "/usr/sbin/nginx"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw CLIError("\(tool) is missing: apt-get install wrk nginx-light")
        }
        let root = URL(fileURLWithPath: scratch)
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var results: [String: Any] = [:]
        let chosen = Set(parts.split(separator: ",").map(String.init))
        if chosen.contains("thumbnails") { results["thumbnails"] = try await thumbnailsAgainstNginx(root) }
        if chosen.contains("timeline") { results["timeline"] = try await timelinePages() }
        if chosen.contains("feed") { results["feed"] = try await feedDelay(root) }
        if chosen.contains("upload"), photos > 0 { results["upload"] = try await uploadAgainstImport(root) }
        if chosen.contains("paint"), galleryAssets > 0, WebDriver.isAvailable { results["firstPaint"] = try await firstPaint(root) }
        if json { printBenchJSON(results) }
    }

    private func log(_ line: String) {
        if !json { print(line) } else { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    // MARK: - Server and wrk

    /// `photos serve` over `url` in its own process (as it runs for its users, so that nothing this process does
    /// takes its threads), logging warnings only (nginx's access log is off too), with a token for a read-write client.
    private func serve(_ url: URL, gallery: Bool = false) async throws -> (port: Int, token: String, server: ChildProcess) {
        let owner = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        try owner.setAuthorization(.authorized, for: "bench")
        let token = try owner.createAccessToken(for: "bench").secret
        let server = try ChildProcess(
            try PhotosBench.photosExecutable(),
            ["serve", "--library", url.path, "--port", "0", "--json", "--log-level", "warning"]
                + (serverThreads.map { ["--threads", String($0)] } ?? []) + (gallery ? [] : ["--no-gallery"]))
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let line = String(data: server.standardOutputSoFar, encoding: .utf8)?.split(separator: "\n").first,
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let port = object["port"] as? Int
            {
                return (port, token, server)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        server.kill()
        _ = server.wait(samplingMemory: false)
        throw CLIError("photos serve did not start within 30 s")
    }

    /// A tool (wrk, curl, photos import) run to its end; its memory is not measured, so the wait is a blocking
    /// `wait4` that takes nothing from the machine.
    private func runChild(_ executable: URL, _ arguments: [String]) throws -> ChildProcess.Outcome {
        try ChildProcess.run(executable, arguments, samplingMemory: false)
    }

    /// Stops a server started by ``serve(_:)`` as its users would (SIGTERM: graceful shutdown) and waits for it.
    @discardableResult
    private func stop(_ server: ChildProcess) -> ChildProcess.Outcome {
        _ = Glibc.kill(server.pid, SIGTERM)
        return server.wait(samplingMemory: false)
    }

    private func wrk(port: Int, paths: [String], token: String?, connections: Int, folder: URL) throws -> WrkResult {
        try WrkResult.run(port: port, paths: paths, token: token, connections: connections, seconds: duration, folder: folder, log: log)
    }

    // MARK: - Thumbnails against nginx

    private func thumbnailsAgainstNginx(_ root: URL) async throws -> [String: Any] {
        let url = root.appendingPathComponent("Thumbnails.photoslibrary")
        let media = root.appendingPathComponent("thumbnail-media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        for index in 0..<thumbnails {
            // Distinct sizes: distinct bytes (the same image twice would be one asset).
            try TestMedia.writeImage(to: media.appendingPathComponent("photo-\(index).jpg"), width: 1600 + index, height: 1200)
        }
        let owner = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        let ids = try owner.importItems(at: [media]).importedLocalIdentifiers.map { $0.replacingOccurrences(of: "/", with: "_") }
        let (port, token, server) = try await serve(url)
        defer { stop(server) }
        // Render each once (the cache the benchmark measures), and keep the same bytes for nginx.
        let docroot = root.appendingPathComponent("nginx/html/t")
        try FileManager.default.createDirectory(at: docroot, withIntermediateDirectories: true)
        let paths = ids.map { "/v1/assets/\($0)/image?size=256x256&mode=fill" }
        for (id, path) in zip(ids, paths) {
            let outcome = try runChild(
                URL(fileURLWithPath: "/usr/bin/curl"),
                [
                    "-sf", "-H", "Authorization: Bearer \(token)", "-o", docroot.appendingPathComponent("\(id).jpg").path,
                    "http://127.0.0.1:\(port)\(path)",
                ])
            guard outcome.status == 0 else { throw CLIError("cannot fetch \(path)") }
        }
        let nginxPort = try WebDriver.freePort()
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
          server {
            listen 127.0.0.1:\(nginxPort);
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
        try await Task.sleep(for: .milliseconds(500))
        // Alternating runs, the median of each: a busy machine's slow spell falls on both, not on one.
        var oursRuns: [WrkResult] = []
        var theirsRuns: [WrkResult] = []
        for _ in 0..<rounds {
            oursRuns.append(try wrk(port: port, paths: paths, token: token, connections: 32, folder: root))
            theirsRuns.append(try wrk(port: nginxPort, paths: ids.map { "/t/\($0).jpg" }, token: nil, connections: 32, folder: root))
        }
        let ours = oursRuns.sorted { $0.requestsPerSecond < $1.requestsPerSecond }[rounds / 2]
        let theirs = theirsRuns.sorted { $0.requestsPerSecond < $1.requestsPerSecond }[rounds / 2]
        let ratio = ours.requestsPerSecond / theirs.requestsPerSecond
        log(
            String(
                format:
                    "thumbnails (256 px, %d distinct, cached, 32 connections, median of %d alternating runs): %.0f req/s, p99 %.2f ms; nginx on the same bytes %.0f req/s, p99 %.2f ms; ratio %.2f× (goal ≥ 0.5×)",
                ids.count, rounds, ours.requestsPerSecond, ours.p99, theirs.requestsPerSecond, theirs.p99, ratio))
        return [
            "server": ours.json, "nginx": theirs.json, "ratio": ratio, "rounds": rounds,
            "serverRuns": oursRuns.map(\.requestsPerSecond), "nginxRuns": theirsRuns.map(\.requestsPerSecond),
        ]
    }

    // MARK: - Timeline pages on a 1M-asset library

    private func timelinePages() async throws -> [String: Any] {
        let url = URL(fileURLWithPath: library)
        if assetCount(ofLibraryAt: url) != assets {
            try? FileManager.default.removeItem(at: url)
            log("timeline: building a \(assets)-asset library…")
            _ = try SyntheticLibrary.insertAssets(into: url, count: assets)
        }
        let (port, token, server) = try await serve(url)
        defer { stop(server) }
        // The first page, and a page half-way through by its cursor (fetched by walking the pages once).
        let first = "/v1/assets?sort=-creationDate&limit=500"
        var path = first
        var middle = first
        var pages = 0
        while pages < assets / 1000 {
            let outcome = try runChild(
                URL(fileURLWithPath: "/usr/bin/curl"), ["-sf", "-H", "Authorization: Bearer \(token)", "http://127.0.0.1:\(port)\(path)"])
            guard let page = try? JSONSerialization.jsonObject(with: outcome.standardOutput) as? [String: Any],
                let cursor = page["nextCursor"] as? String
            else { break }
            path = first + "&cursor=\(cursor)"
            middle = path
            pages += 1
            if pages % 100 == 0 || pages == assets / 1000 { break }
        }
        let head = try wrk(port: port, paths: [first], token: token, connections: 1, folder: URL(fileURLWithPath: scratch))
        let deep = try wrk(port: port, paths: [middle], token: token, connections: 1, folder: URL(fileURLWithPath: scratch))
        log(
            String(
                format:
                    "timeline (%d assets, 500 a page, one client): first page p50 %.2f ms, p99 %.2f ms (%.0f pages/s); page %d by cursor p50 %.2f ms, p99 %.2f ms (goal p99 ≤ 20 ms)",
                assets, head.p50, head.p99, head.requestsPerSecond, pages + 1, deep.p50, deep.p99))
        return ["assets": assets, "firstPage": head.json, "cursorPage": deep.json, "cursorPageNumber": pages + 1]
    }

    // MARK: - Feed delay at 100 clients

    private func feedDelay(_ root: URL) async throws -> [String: Any] {
        let url = root.appendingPathComponent("Feed.photoslibrary")
        let owner = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        let media = root.appendingPathComponent("feed-media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try TestMedia.writeImage(to: media.appendingPathComponent("one.jpg"), width: 64, height: 48)
        let id = try owner.importItems(at: [media]).importedLocalIdentifiers[0]
        let (port, token, server) = try await serve(url)
        defer { stop(server) }
        // Arrivals are kept by token and matched with the commits at the end (an event may arrive before the commit
        // call has returned to say which token it made).
        let arrivals = Mutex<[(token: String, at: ContinuousClock.Instant)]>([])
        let connected = Mutex(0)
        let clock = ContinuousClock()
        for _ in 0..<clients {
            Thread.detachNewThread {
                // No receive timeout (0): a client waits for events as long as the benchmark runs.
                guard let fd = connectToLoopback(port: port, receiveTimeout: 0) else { return }
                let request = "GET /v1/changes/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n"
                _ = request.withCString { send(fd, $0, strlen($0), 0) }
                var buffer = [UInt8](repeating: 0, count: 65536)
                var text = ""
                var opened = false
                while true {
                    let count = recv(fd, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    let now = clock.now
                    text += String(decoding: buffer[0..<count].filter { $0 != 13 }, as: UTF8.self)
                    if !opened, text.contains("retry:") {
                        opened = true
                        connected.withLock { $0 += 1 }
                    }
                    while let range = text.range(of: "\nid: ") {
                        let rest = text[range.upperBound...]
                        guard let end = rest.firstIndex(of: "\n") else { break }
                        let token = String(rest[..<end])
                        arrivals.withLock { $0.append((token, now)) }
                        text = String(rest[end...])
                    }
                }
                close(fd)
            }
        }
        while connected.withLock({ $0 }) < clients { try await Task.sleep(for: .milliseconds(20)) }
        let writer = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        let options = PHFetchOptions()
        options.photoLibrary = writer
        var made: [String: (start: ContinuousClock.Instant, end: ContinuousClock.Instant)] = [:]
        for index in 0..<commits {
            let asset = PHAsset.fetchAssets(withLocalIdentifiers: [id], options: options).firstObject!
            let start = clock.now
            try writer.performChangesAndWait { PHAssetChangeRequest(for: asset).isFavorite = index % 2 == 0 }
            // The token after this commit names its event.
            made[writer.currentChangeToken.wireForm] = (start, clock.now)
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(500))
        func milliseconds(_ duration: Duration) -> Double {
            Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000
        }
        // From the commit's return (the commit is durable then) to the event; and from the call's start, which adds
        // the commit's own time (its fsync).
        var delays: [Double] = []
        var fromStart: [Double] = []
        for arrival in arrivals.withLock({ $0 }) {
            guard let commit = made[arrival.token] else { continue }
            delays.append(milliseconds(arrival.at - commit.end))
            fromStart.append(milliseconds(arrival.at - commit.start))
        }
        let commitTimes = made.values.map { milliseconds($0.end - $0.start) }.sorted()
        delays.sort()
        fromStart.sort()
        func percentile(_ values: [Double], _ p: Double) -> Double {
            values.isEmpty ? .nan : values[min(values.count - 1, Int(Double(values.count) * p))]
        }
        log(
            String(
                format:
                    "feed (%d clients, %d commits, %d events received of %d): commit to event p50 %.2f ms, p99 %.2f ms, max %.2f ms (goal p99 ≤ 50 ms); from the commit call's start p50 %.2f ms, p99 %.2f ms (commits took p50 %.2f ms, max %.2f ms)",
                clients, commits, delays.count, clients * commits, percentile(delays, 0.5), percentile(delays, 0.99), delays.last ?? .nan,
                percentile(fromStart, 0.5), percentile(fromStart, 0.99), percentile(commitTimes, 0.5), commitTimes.last ?? .nan))
        return [
            "clients": clients, "commits": commits, "events": delays.count, "p50Milliseconds": percentile(delays, 0.5),
            "p99Milliseconds": percentile(delays, 0.99), "maxMilliseconds": delays.last ?? 0,
            "fromCallStartP99Milliseconds": percentile(fromStart, 0.99), "commitP50Milliseconds": percentile(commitTimes, 0.5),
            "commitMaxMilliseconds": commitTimes.last ?? 0,
        ]
    }

    // MARK: - Upload against import

    private func uploadAgainstImport(_ root: URL) async throws -> [String: Any] {
        let media = root.appendingPathComponent("twelve-megapixel")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let model = root.appendingPathComponent("model.jpg")
        try TestMedia.writeImage(to: model, width: 4000, height: 3000, quality: 90)
        let bytes = try Data(contentsOf: model)
        // Distinct files (no duplicates): a comment segment with the number after the SOI marker.
        var files: [URL] = []
        for index in 0..<photos {
            let comment = Array("openphotokit benchmark photo \(index)".utf8)
            var data = Data(bytes.prefix(2))
            data.append(contentsOf: [0xFF, 0xFE, UInt8((comment.count + 2) >> 8), UInt8((comment.count + 2) & 0xFF)] + comment)
            data.append(bytes.dropFirst(2))
            let file = media.appendingPathComponent(String(format: "IMG_%04d.JPG", index))
            try data.write(to: file)
            files.append(file)
        }
        let megabytes = Double(bytes.count * photos) / 1e6
        let executable = try PhotosBench.photosExecutable()
        func importOnce(_ round: Int) throws -> (seconds: Double, cpu: Double) {
            // Libraries are removed after the last round: files deleted during the run would slow the creation of
            // the next round's (ext4 skips recently freed inodes), whichever side came next.
            let library = root.appendingPathComponent("Imported-\(round).photoslibrary")
            let importStart = ContinuousClock.now
            let imported = try runChild(executable, ["import", media.path, "--library", library.path, "--json"])
            guard imported.status == 0 else { throw CLIError("photos import failed") }
            return ((ContinuousClock.now - importStart).seconds, imported.cpuSeconds)
        }
        struct UploadRun {
            var seconds = 0.0
            var transferSeconds = 0.0
            var uploads = 0
            var created = 0
            /// Processor time of the server and of the curl children.
            var serverCPU = 0.0
            var clientCPU = 0.0
        }
        func uploadOnce(_ round: Int) async throws -> UploadRun {
            let url = root.appendingPathComponent("Uploaded-\(round).photoslibrary")
            let (port, token, server) = try await serve(url)
            var serverStopped = false
            defer { if !serverStopped { stop(server) } }
            let clientCPU = Mutex(0.0)
            let uploadStart = ContinuousClock.now
            // As a client that sends a folder does: the files in batches of 100, each batch by one curl over four
            // parallel keep-alive connections, streaming each file (as a browser does); a batch is created (imported)
            // as soon as its files are up, while the next batch is sent.
            let answers = root.appendingPathComponent("upload-answers")
            try FileManager.default.createDirectory(at: answers, withIntermediateDirectories: true)
            let creations = DispatchQueue(label: "bench.upload.create")
            let tally = Mutex((uploads: 0, created: 0, failedTransfers: [String](), refused: [String]()))
            var transferSeconds = 0.0
            for start in stride(from: 0, to: files.count, by: 100) {
                let indices = start..<min(start + 100, files.count)
                var lines: [String] = []
                for index in indices {
                    lines += [
                        "url = \"http://127.0.0.1:\(port)/v1/uploads?filename=\(files[index].lastPathComponent)\"",
                        "upload-file = \"\(files[index].path)\"",
                        "request = \"POST\"", "header = \"Authorization: Bearer \(token)\"", "header = \"Expect:\"",
                        "header = \"Content-Type: application/octet-stream\"", "output = \"\(answers.path)/\(index).json\"", "next",
                    ]
                }
                let config = root.appendingPathComponent("uploads-\(start).curl")
                // No `next` after the last one: an empty transfer fails and aborts the others.
                try lines.dropLast().joined(separator: "\n").write(to: config, atomically: true, encoding: .utf8)
                let transfer = try runChild(
                    URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "--stderr", "-", "-Z", "--parallel-max", "4", "-K", config.path])
                clientCPU.withLock { $0 += transfer.cpuSeconds }
                transferSeconds = (ContinuousClock.now - uploadStart).seconds
                let errors = String(decoding: transfer.standardOutput, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("curl:") }
                let batch = indices.compactMap { index -> String? in
                    guard let data = try? Data(contentsOf: answers.appendingPathComponent("\(index).json")),
                        let body = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                    else { return nil }
                    return body["upload"] as? String
                }
                tally.withLock {
                    $0.uploads += batch.count
                    $0.failedTransfers += errors.map(String.init)
                }
                let request = root.appendingPathComponent("create-\(start).json")
                try JSONSerialization.data(withJSONObject: ["uploads": batch]).write(to: request)
                creations.async {
                    let outcome = try? runChild(
                        URL(fileURLWithPath: "/usr/bin/curl"),
                        [
                            "-sf", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json", "--data-binary",
                            "@\(request.path)",
                            "http://127.0.0.1:\(port)/v1/assets",
                        ])
                    clientCPU.withLock { $0 += outcome?.cpuSeconds ?? 0 }
                    let result = outcome.flatMap { try? JSONSerialization.jsonObject(with: $0.standardOutput) as? [String: Any] } ?? [:]
                    tally.withLock {
                        $0.created += (result["created"] as? [Any])?.count ?? 0
                        $0.refused += ((result["failures"] as? [Any]) ?? []).map { "\($0)" }
                    }
                }
            }
            creations.sync {}
            let (uploadCount, created, failedTransfers, refused) = tally.withLock { ($0.uploads, $0.created, $0.failedTransfers, $0.refused) }
            if !failedTransfers.isEmpty {
                log("  upload: curl reported \(failedTransfers.count) failed transfers: \(Set(failedTransfers).sorted().prefix(4))")
            }
            if !refused.isEmpty { log("  upload: \(refused.count) refused: \(refused.prefix(2))") }
            let seconds = (ContinuousClock.now - uploadStart).seconds
            serverStopped = true
            let serverEnd = stop(server)
            return UploadRun(
                seconds: seconds, transferSeconds: transferSeconds, uploads: uploadCount, created: created, serverCPU: serverEnd.cpuSeconds,
                clientCPU: clientCPU.withLock { $0 })
        }
        // Rounds in alternating order (import first, then upload first …), the median of each: whatever the file
        // system or the machine does meanwhile falls on both.
        var imports: [(seconds: Double, cpu: Double)] = []
        var uploadRuns: [UploadRun] = []
        for round in 0..<rounds {
            if round % 2 == 0 {
                imports.append(try importOnce(round))
                uploadRuns.append(try await uploadOnce(round))
            } else {
                uploadRuns.append(try await uploadOnce(round))
                imports.append(try importOnce(round))
            }
        }
        let importRun = imports.sorted { $0.seconds < $1.seconds }[rounds / 2]
        let importSeconds = importRun.seconds
        let upload = uploadRuns.sorted { $0.seconds < $1.seconds }[rounds / 2]
        log(
            String(
                format:
                    "upload (%d 12-MP JPEGs, %.0f MB, batches of 100 over 4 parallel connections, each created while the next is sent; median of %d rounds in alternating order): %.1f s (%d uploads sent in %.1f s, %d created); photos import of the same files %.1f s; ratio %.2f× (goal ≤ 1.3×); processor time: server %.1f s + curl %.1f s against import %.1f s, on %d cores",
                photos, megabytes, rounds, upload.seconds, upload.uploads, upload.transferSeconds, upload.created, importSeconds,
                upload.seconds / importSeconds, upload.serverCPU, upload.clientCPU, importRun.cpu, ProcessInfo.processInfo.activeProcessorCount))
        try? FileManager.default.removeItem(at: media)
        for round in 0..<rounds {
            try? FileManager.default.removeItem(at: root.appendingPathComponent("Imported-\(round).photoslibrary"))
            try? FileManager.default.removeItem(at: root.appendingPathComponent("Uploaded-\(round).photoslibrary"))
        }
        return [
            "photos": photos, "megabytes": megabytes, "uploadSeconds": upload.seconds, "transferSeconds": upload.transferSeconds,
            "importSeconds": importSeconds, "created": upload.created, "ratio": upload.seconds / importSeconds, "rounds": rounds,
            "uploadRuns": uploadRuns.map(\.seconds), "importRuns": imports.map(\.seconds), "serverCPUSeconds": upload.serverCPU,
            "curlCPUSeconds": upload.clientCPU, "importCPUSeconds": importRun.cpu,
        ]
    }

    // MARK: - First painted grid in Chromium

    private func firstPaint(_ root: URL) async throws -> [String: Any] {
        let url = root.appendingPathComponent("Gallery.photoslibrary")
        _ = try SyntheticLibrary.insertAssets(into: url, count: galleryAssets)
        let (port, token, server) = try await serve(url, gallery: true)
        defer { stop(server) }
        let browser = try await WebDriver()
        var times: [Double] = []
        do {
            try await browser.open("http://127.0.0.1:\(port)/")
            try await browser.signIn(token: token)
            try await browser.wait(30, "the grid", until: "return !!document.body.dataset.firstPaint")
            // Signed in (cookie and token kept): each load from navigation to the first painted grid.
            for _ in 0..<5 {
                try await browser.open("http://127.0.0.1:\(port)/")
                try await browser.wait(30, "the grid", until: "return !!document.body.dataset.firstPaint")
                if let value = try await browser.run("return Number(document.body.dataset.firstPaint)") as? Double { times.append(value) }
                if let value = try await browser.run("return Number(document.body.dataset.firstPaint)") as? Int { times.append(Double(value)) }
            }
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
        let sorted = times.sorted()
        let median = sorted.isEmpty ? .nan : sorted[sorted.count / 2]
        log(
            String(
                format:
                    "gallery (%d assets): navigation to the first painted grid in headless Chromium, median of %d loads %.0f ms, worst %.0f ms (goal ≤ 1000 ms)",
                galleryAssets, sorted.count, median, sorted.last ?? .nan))
        return ["assets": galleryAssets, "medianMilliseconds": median, "worstMilliseconds": sorted.last ?? 0, "loads": sorted.count]
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
