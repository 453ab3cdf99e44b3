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

/// `photos-bench remote`: the PhotoKit API against a library `photos serve` serves on loopback (issue 27's figures),
/// each against its baseline in the same run — a fetch of the 1M-asset library, scrolling 10,000 objects against the
/// same requests made with curl, cached thumbnails through `PHCachingImageManager` against the same image requests
/// made with curl, and a change's delay to a remote observer.
struct BenchRemote: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Measure a remote PHPhotoLibrary over photos serve: 1M fetch, scrolling vs curl, cached thumbnails vs curl, observer delay.",
        discussion: "Needs curl. Build with -c release: swift build -c release --product photos-bench && swift build -c release --product photos")
    @Option(help: "Assets of the fetch library (synthetic rows).") var assets = 1_000_000
    @Option(help: "Where the fetch library is kept (reused when it has the assets).") var library = "/tmp/openphotokit-bench.photoslibrary"
    @Option(help: "Objects scrolled in order.") var scroll = 10_000
    @Option(help: "Cached thumbnails requested.") var thumbnails = 500
    @Option(help: "Changes timed to the remote observer.") var changes = 200
    @Option(help: "Runs of each timing (medians).") var repetitions = 5
    @Option(help: "Scratch folder.") var scratch = "/tmp/openphotokit-bench-remote"
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let root = URL(fileURLWithPath: scratch)
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        var results: [String: Any] = [:]
        try fetchAndScroll(root, into: &results)
        try cachedThumbnails(root, into: &results)
        try observerDelay(root, into: &results)
        if json { printBenchJSON([results]) }
    }

    private func log(_ line: String) { if !json { print(line) } }

    /// `photos serve` of `url` on a free loopback port, with a token of an authorized client.
    private func serve(_ url: URL) throws -> (base: String, token: String, server: ChildProcess) {
        let owner = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        try owner.setAuthorization(.authorized, for: "bench")
        let token = try owner.createAccessToken(for: "bench").secret
        let server = try ChildProcess(
            try PhotosBench.photosExecutable(), ["serve", "--library", url.path, "--port", "0", "--json", "--log-level", "warning", "--no-gallery"])
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let line = String(decoding: server.standardOutputSoFar, as: UTF8.self).split(separator: "\n").first,
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let port = object["port"] as? Int
            {
                return ("http://127.0.0.1:\(port)", token, server)
            }
            usleep(20_000)
        }
        server.kill()
        _ = server.wait()
        throw CLIError("photos serve did not start within 30 s")
    }

    private func stop(_ server: ChildProcess) {
        _ = Glibc.kill(server.pid, SIGTERM)
        _ = server.wait()
    }

    /// Seconds of one curl process making the requests of `config` (a curl config file) one after another on one
    /// connection.
    private func curl(_ config: URL) throws -> Double {
        let outcome = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "--fail", "-K", config.path], samplingMemory: false)
        guard outcome.status == 0 else { throw CLIError("curl failed (status \(outcome.status))") }
        return outcome.seconds
    }

    private static func milliseconds(_ start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    // MARK: - 1M fetch and scrolling

    private func fetchAndScroll(_ root: URL, into results: inout [String: Any]) throws {
        let url = URL(fileURLWithPath: library)
        if assetCount(ofLibraryAt: url) != assets {
            try? FileManager.default.removeItem(at: url)
            log("building a \(assets)-asset library…")
            _ = try SyntheticLibrary.insertAssets(into: url, count: assets)
        }
        let (base, token, server) = try serve(url)
        defer { stop(server) }
        let remote = try PHPhotoLibrary(url: URL(string: base)!, accessToken: token, cacheDirectory: root.appendingPathComponent("cache"))
        let options = PHFetchOptions()
        options.photoLibrary = remote
        options.predicate = NSPredicate(format: "mediaType == %d", PHAssetMediaType.image.rawValue)
        options.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: true)]
        // Count and first object, as an app's first screen asks them.
        var fetchTimes: [Double] = []
        var firstObjectTimes: [Double] = []
        var lastObjectTimes: [Double] = []
        var count = 0
        for _ in 0..<max(1, repetitions) {
            let start = ContinuousClock.now
            let result = PHAsset.fetchAssets(with: options)
            _ = result.firstObject
            firstObjectTimes.append(Self.milliseconds(start))
            count = result.count
            fetchTimes.append(Self.milliseconds(start))
            // The rest of the handles arrive behind the count; the next run starts once they all have (each run is
            // one fetch on a quiet machine, not several streams at once).
            _ = result.lastObject
            lastObjectTimes.append(Self.milliseconds(start))
        }
        log(
            String(
                format:
                    "fetch of %d assets (%d images, sorted by date): first object %.1f ms, count and first object %.1f ms (medians of %d; goal ≤ 30 ms); last object (every handle arrived) %.1f ms",
                assets, count, median(firstObjectTimes), median(fetchTimes), max(1, repetitions), median(lastObjectTimes)))
        results["fetch"] = [
            "assets": assets, "matched": count, "firstObjectMs": median(firstObjectTimes), "countAndFirstMs": median(fetchTimes),
            "lastObjectMs": median(lastObjectTimes),
        ]

        // Scrolling: objects 0 ..< scroll in order (batches of 100 by handle), against curl making the same requests.
        let result = PHAsset.fetchAssets(with: options)
        let handles = try self.handles(base: base, token: token, options: options, limit: scroll)
        let config = root.appendingPathComponent("scroll.curl")
        var lines: [String] = []
        for start in stride(from: 0, to: handles.count, by: 100) {
            let batch = handles[start..<min(start + 100, handles.count)]
            let body = "{\"ids\":[\(batch.map(String.init).joined(separator: ","))],\"extendedMetadata\":false}"
            if start > 0 { lines.append("next") }
            lines += [
                "url = \"\(base)/v1/assets/records\"", "header = \"Authorization: Bearer \(token)\"", "header = \"Content-Type: application/json\"",
                // The form the client asks for: the same bytes over the wire.
                "header = \"Accept: application/x-photos-asset-records\"",
                "data = \"\(body.replacingOccurrences(of: "\"", with: "\\\""))\"", "output = \"/dev/null\"",
            ]
        }
        try lines.joined(separator: "\n").write(to: config, atomically: true, encoding: .utf8)
        var ours: [Double] = []
        var theirs: [Double] = []
        for _ in 0..<max(1, repetitions) {
            theirs.append(try curl(config))
            // A collection view has the count before it scrolls (the fetch's own figure, above): the clock runs
            // over the objects only, as curl's runs over the pages only.
            let fresh = PHAsset.fetchAssets(with: options)
            let shown = min(scroll, fresh.count)
            // The count is known before the handles have all arrived; a person scrolls long after they have (the
            // fetch's own row times them): the clock starts once they are in.
            _ = fresh.lastObject
            let start = ContinuousClock.now
            for index in 0..<shown { _ = fresh.object(at: index).localIdentifier }
            ours.append(Self.milliseconds(start) / 1000)
        }
        _ = result
        let ratio = median(ours) / median(theirs)
        log(
            String(
                format: "scrolling %d objects in order: %.3f s; curl making the same %d requests %.3f s → %.2f× (goal ≤ 1.5×)", scroll,
                median(ours), (handles.count + 99) / 100, median(theirs), ratio))
        results["scroll"] = ["objects": scroll, "seconds": median(ours), "curlSeconds": median(theirs), "ratio": ratio]
    }

    /// The first `limit` handles of the fetch, as the server streams them.
    private func handles(base: String, token: String, options: PHFetchOptions, limit: Int) throws -> [Int64] {
        let outcome = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/curl"),
            [
                "-sS", "--fail", "-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json", "--data",
                "{\"predicate\":\"mediaType == 1\",\"sort\":\"creationDate\",\"fetchLimit\":\"\(limit)\"}", "\(base)/v1/assets/ids",
            ], samplingMemory: false)
        let bytes = [UInt8](outcome.standardOutput)
        return stride(from: 0, to: bytes.count - 7, by: 8).map { offset in
            bytes[offset..<offset + 8].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
        }
    }

    // MARK: - Cached thumbnails

    private func cachedThumbnails(_ root: URL, into results: inout [String: Any]) throws {
        let url = root.appendingPathComponent("Thumbnails.photoslibrary")
        let media = root.appendingPathComponent("thumbnail-media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        for index in 0..<thumbnails {
            try TestMedia.writeImage(to: media.appendingPathComponent("photo-\(index).jpg"), width: 800 + index, height: 600)
        }
        let owner = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        _ = try owner.importItems(at: [media])
        let (base, token, server) = try serve(url)
        defer { stop(server) }
        let remote = try PHPhotoLibrary(url: URL(string: base)!, accessToken: token, cacheDirectory: root.appendingPathComponent("thumbs"))
        let options = PHFetchOptions()
        options.photoLibrary = remote
        let assets = PHAsset.fetchAssets(with: options).map { $0 }
        let size = CGSize(width: 256, height: 256)
        let manager = PHCachingImageManager()
        let ahead = PHImageRequestOptions()
        ahead.isNetworkAccessAllowed = true
        manager.startCachingImages(for: assets, targetSize: size, contentMode: .aspectFill, options: ahead)
        manager.waitForCaching()
        // The same image requests, made with curl (the server has rendered them all once).
        let config = root.appendingPathComponent("thumbs.curl")
        var lines: [String] = []
        for (index, asset) in assets.enumerated() {
            let width = Int((Double(asset.pixelWidth) * 256 / Double(asset.pixelHeight)).rounded())
            let id = asset.localIdentifier.replacingOccurrences(of: "/", with: "_")
            if index > 0 { lines.append("next") }
            lines += [
                "url = \"\(base)/v1/assets/\(id)/image?size=\(width)x256&mode=fit&version=current&v=1\"",
                "header = \"Authorization: Bearer \(token)\"", "output = \"/dev/null\"",
            ]
        }
        try lines.joined(separator: "\n").write(to: config, atomically: true, encoding: .utf8)
        _ = try curl(config)
        let request = PHImageRequestOptions()
        request.isSynchronous = true
        request.deliveryMode = .highQualityFormat
        var ours: [Double] = []
        var theirs: [Double] = []
        var delivered = 0
        for _ in 0..<max(1, repetitions) {
            theirs.append(try curl(config))
            let start = ContinuousClock.now
            delivered = 0
            for asset in assets {
                manager.requestImage(for: asset, targetSize: size, contentMode: .aspectFill, options: request) { image, _ in
                    if image != nil { delivered += 1 }
                }
            }
            ours.append(Self.milliseconds(start) / 1000)
        }
        guard delivered == assets.count else { throw CLIError("only \(delivered) of \(assets.count) cached thumbnails were delivered") }
        let ratio = median(theirs) / median(ours)
        log(
            String(
                format: "%d cached 256-px thumbnails through PHCachingImageManager: %.0f/s; the same requests with curl %.0f/s → %.2f× (goal ≥ 0.8×)",
                assets.count, Double(assets.count) / median(ours), Double(assets.count) / median(theirs), ratio))
        results["thumbnails"] = [
            "count": assets.count, "perSecond": Double(assets.count) / median(ours), "curlPerSecond": Double(assets.count) / median(theirs),
            "ratio": ratio,
        ]
    }

    // MARK: - Observer delay

    final class Arrivals: NSObject, PHPhotoLibraryChangeObserver, @unchecked Sendable {
        let condition = NSCondition()
        var count = 0
        var times: [ContinuousClock.Instant] = []
        func photoLibraryDidChange(_ changeInstance: PHChange) {
            condition.lock()
            count += 1
            times.append(.now)
            condition.broadcast()
            condition.unlock()
        }
    }

    private func observerDelay(_ root: URL, into results: inout [String: Any]) throws {
        let url = root.appendingPathComponent("Observed.photoslibrary")
        let media = root.appendingPathComponent("observed-media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try TestMedia.writeImage(to: media.appendingPathComponent("one.jpg"), width: 64, height: 48)
        let owner = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        let id = try owner.importItems(at: [media]).importedLocalIdentifiers[0]
        let (base, token, server) = try serve(url)
        defer { stop(server) }
        let remote = try PHPhotoLibrary(url: URL(string: base)!, accessToken: token, cacheDirectory: root.appendingPathComponent("observed"))
        let arrivals = Arrivals()
        remote.register(arrivals)
        defer { remote.unregisterChangeObserver(arrivals) }
        let options = PHFetchOptions()
        options.photoLibrary = owner
        let asset = PHAsset.fetchAssets(withLocalIdentifiers: [id], options: options).firstObject!
        usleep(300_000)  // the feed connected
        var delays: [Double] = []
        for index in 0..<changes {
            let start = ContinuousClock.now
            try owner.performChangesAndWait { PHAssetChangeRequest(for: asset).isFavorite = index % 2 == 0 }
            arrivals.condition.lock()
            let deadline = Date().addingTimeInterval(10)
            while arrivals.count < index + 1, arrivals.condition.wait(until: deadline) {}
            let arrived = arrivals.times.count > index ? arrivals.times[index] : nil
            arrivals.condition.unlock()
            guard let arrived else { throw CLIError("change \(index) did not reach the remote observer within 10 s") }
            let elapsed = arrived - start
            delays.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
        delays.sort()
        func percentile(_ p: Double) -> Double { delays[min(delays.count - 1, Int(Double(delays.count) * p))] }
        log(
            String(
                format: "a change by another client to the remote observer (%d changes): p50 %.1f ms, p99 %.1f ms, max %.1f ms (goal p99 ≤ 100 ms)",
                changes, percentile(0.5), percentile(0.99), delays.last ?? 0))
        results["observer"] = ["changes": changes, "p50Ms": percentile(0.5), "p99Ms": percentile(0.99), "maxMs": delays.last ?? 0]
    }
}
