import ArgumentParser
import CommandLineSupport
import Foundation
import ObjectStorage
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Synchronization
import PhotoMedia
import PhotoLibraryEngine

#if canImport(Glibc)
    import Glibc
#endif

struct BenchObjects: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objects",
        abstract: "Measure a library whose files are in object storage against the store used directly.",
        discussion: """
            Against the S3-compatible store the AWS variables name (the test command's SeaweedFS: eval "$(scripts/test-seaweedfs.sh
            start)"), in --bucket: (1) `photos import` of generated 12-MP JPEGs into a library with files=s3://… against
            boto3 uploading the same files to the same store, one after another as import does; (2) a 256-px thumbnail
            of an original only in the store (downloaded, then rendered) against one whose copy this node has; (3) the
            first MiB of a video by range through `photos serve` (a node without a copy: streamed from the store)
            against the same range straight from the store (a presigned GET), both with curl.
            Build with -c release: swift build -c release --product photos-bench --product photos
            """)
    @Option(help: "Generated 12-MP JPEGs.") var files = 1000
    @Option(help: "Working folder (the generated JPEGs are reused).") var directory = "/tmp/openphotokit-bench-objects"
    @Option(help: "The bucket (default: $OPENPHOTOKIT_TEST_S3_BUCKET).") var bucket: String?
    @Option(help: "Thumbnails timed cold and warm.") var thumbnails = 20
    @Option(help: "Ranged requests timed each way.") var ranges = 30
    @Option(help: "Megabytes of the movie whose poster frame is read by ranges (0 skips it).") var movieMegabytes = 200
    @Flag(help: "Only the poster frame part.") var posterOnly = false
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        guard let bucket = bucket ?? ProcessInfo.processInfo.environment["OPENPHOTOKIT_TEST_S3_BUCKET"], !bucket.isEmpty else {
            throw ValidationError("name a bucket: --bucket, or OPENPHOTOKIT_TEST_S3_BUCKET (scripts/test-seaweedfs.sh start)")
        }
        let root = URL(fileURLWithPath: directory)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        if posterOnly {
            let poster = try posterFrameByRanges(root: root, bucket: bucket)
            if json { printBenchJSON(poster) }
            return
        }
        let jpegs = root.appendingPathComponent("jpegs")
        try BenchImport.generate(files, into: jpegs)
        let run = UUID().uuidString.prefix(8).lowercased()
        let folder = root.appendingPathComponent("Objects.photoslibrary")
        try? FileManager.default.removeItem(at: folder)
        guard let url = URL(string: "file://\(folder.path)?files=s3://\(bucket)/bench-\(run)") else { throw CLIError("bad folder") }
        let store = try S3Location("s3://\(bucket)/").client()
        defer {
            try? LibraryStorage.removeLibrary(at: url)
            try? Self.empty(store, prefix: "bench-\(run)-boto3/")
        }
        var results: [String: Any] = ["files": files]
        let photos = try PhotosBench.photosExecutable()

        // 1. Import against boto3's uploads of the same files.
        sync()
        let imported = try BenchImport.measure(photos, ["import", "--recursive", "--json", "--library", url.absoluteString, jpegs.path])
        guard imported.status == 0 else { throw CLIError("photos import failed: \(String(decoding: imported.output, as: UTF8.self))") }
        sync()
        let uploaded = try BenchImport.measure(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", Self.boto3Upload, jpegs.path, bucket, "bench-\(run)-boto3/"])
        guard uploaded.status == 0 else { throw CLIError("the boto3 baseline failed (pip install boto3)") }
        results["importSeconds"] = imported.seconds
        results["boto3UploadSeconds"] = uploaded.seconds
        results["importOverUpload"] = imported.seconds / uploaded.seconds
        if !json {
            print(
                String(
                    format: "import of %d 12-MP JPEGs into object storage %.2f s; boto3 upload of the same files %.2f s → %.2f× (target ≤ 1.3×)",
                    files, imported.seconds, uploaded.seconds, imported.seconds / uploaded.seconds))
        }

        // 2. Thumbnails: the original only in the store (cold) against a copy on this node (warm).
        let library = try PHPhotoLibrary(url: folder, clientIdentifier: nil)
        let options = PHFetchOptions()
        options.photoLibrary = library
        let assets = PHAsset.fetchAssets(with: options)
        let cache = folder.appendingPathComponent("resources/cache")
        let derivatives = folder.appendingPathComponent("resources/derivatives")
        var cold: [Double] = []
        var warm: [Double] = []
        for index in 0..<min(thumbnails, assets.count) {
            let asset = assets[index]
            for isCold in [true, false] {
                if isCold { try? FileManager.default.removeItem(at: cache) }
                try? FileManager.default.removeItem(at: derivatives)
                let request = PHImageRequestOptions()
                request.isSynchronous = true
                request.isNetworkAccessAllowed = true
                let start = ContinuousClock.now
                var rendered = false
                PHImageManager().requestImage(for: asset, targetSize: CGSize(width: 256, height: 256), contentMode: .aspectFill, options: request) {
                    image, _ in rendered = image != nil
                }
                guard rendered else { throw CLIError("no thumbnail of \(asset.localIdentifier)") }
                let seconds = Double((ContinuousClock.now - start) / .milliseconds(1)) / 1000
                if isCold { cold.append(seconds) } else { warm.append(seconds) }
            }
        }
        results["thumbnailColdMilliseconds"] = median(cold) * 1000
        results["thumbnailWarmMilliseconds"] = median(warm) * 1000
        if !json {
            print(
                String(
                    format: "256-px thumbnail of a 12-MP original: only in the store %.1f ms, copy on this node %.1f ms → %.2f× (medians of %d)",
                    median(cold) * 1000, median(warm) * 1000, median(cold) / median(warm), cold.count))
        }

        // 3. The first MiB of a video through a node without a copy, against the store directly.
        let video = root.appendingPathComponent("video.mp4")
        if !FileManager.default.fileExists(atPath: video.path) {
            let made = try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=20", "-c:v", "libx264",
                    "-b:v", "40M", "-pix_fmt", "yuv420p", video.path,
                ], samplingMemory: false)
            guard made.status == 0 else { throw CLIError("ffmpeg could not make the test video") }
        }
        var videoID: String?
        try library.performChangesAndWait {
            videoID = PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: video)?.placeholderForCreatedAsset?.localIdentifier
        }
        guard let videoID, let videoAsset = PHAsset.fetchAssets(withLocalIdentifiers: [videoID], options: options).firstObject,
            let resource = PHAssetResource.assetResources(for: videoAsset).first(where: { $0.type == .video })
        else { throw CLIError("the video was not imported") }
        try library.setAuthorization(.authorized, for: "bench")
        let token = try library.createAccessToken(for: "bench").secret
        let server = try ChildProcess(
            photos, ["serve", "--library", folder.path, "--port", "0", "--json", "--log-level", "warning", "--no-gallery", "--no-background-work"])
        defer {
            _ = Glibc.kill(server.pid, SIGTERM)
            _ = server.wait(samplingMemory: false)
        }
        var port: Int?
        for _ in 0..<1500 where port == nil {
            if let line = String(data: server.standardOutputSoFar, encoding: .utf8)?.split(separator: "\n").first,
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            {
                port = object["port"] as? Int
            }
            if port == nil { usleep(20_000) }
        }
        guard let port else { throw CLIError("photos serve did not start") }
        try? FileManager.default.removeItem(at: cache)  // the node has no copy: it streams from the store
        let digest = resource.sha256
        let direct = store.presignedURL(key: "bench-\(run)/sha256/\(digest.prefix(2))/\(digest)", expires: 3600).absoluteString
        let throughNode = "http://127.0.0.1:\(port)/v1/assets/\(videoID.replacingOccurrences(of: "/", with: "_"))/resources/video"
        func curl(_ target: String, _ headers: [String]) throws -> Double {
            let outcome = try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                ["curl", "-sf", "-o", "/dev/null", "-r", "0-1048575", "-w", "%{time_total} %{size_download}"] + headers.flatMap { ["-H", $0] } + [
                    target
                ],
                samplingMemory: false)
            let fields = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: " ")
            guard outcome.status == 0, fields.count == 2, Int(fields[1]) == 1 << 20, let seconds = Double(fields[0]) else {
                throw CLIError("curl \(target): status \(outcome.status), \(String(decoding: outcome.standardOutput, as: UTF8.self))")
            }
            return seconds
        }
        var node: [Double] = []
        var straight: [Double] = []
        for _ in 0..<ranges {
            node.append(try curl(throughNode, ["Authorization: Bearer \(token)"]))
            straight.append(try curl(direct, []))
        }
        let copies =
            (try? FileManager.default.subpathsOfDirectory(atPath: cache.path))?.filter { ($0 as NSString).lastPathComponent.count == 64 } ?? []
        results["videoBytes"] = resource.fileSize
        results["rangeThroughNodeMilliseconds"] = median(node) * 1000
        results["rangeFromStoreMilliseconds"] = median(straight) * 1000
        results["nodeCopiedTheVideo"] = !copies.isEmpty
        if !json {
            print(
                String(
                    format:
                        "first MiB of a %.0f MB video by range: through photos serve (no copy on the node) %.2f ms, straight from the store %.2f ms → %.2f× (target ≤ 2×; medians of %d; the node copied the video: %@)",
                    Double(resource.fileSize) / 1e6, median(node) * 1000, median(straight) * 1000, median(node) / median(straight), ranges,
                    copies.isEmpty ? "no" : "yes"))
        }
        if movieMegabytes > 0 { results["posterFrame"] = try posterFrameByRanges(root: root, bucket: bucket) }
        if json { printBenchJSON(results) }
    }

    /// 4. A poster frame of a large movie only in the store, read by ranges, against fetching the whole movie first:
    /// the bytes each takes from the store and the time.
    func posterFrameByRanges(root: URL, bucket: String) throws -> [String: Any] {
        let movie = root.appendingPathComponent("movie-\(movieMegabytes)MB.mp4")
        if !FileManager.default.fileExists(atPath: movie.path) {
            // testsrc2 at a fixed bitrate: about `movieMegabytes` MB in 40 s of 1080p, the index at the end.
            let made = try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=40", "-c:v", "libx264",
                    "-preset", "ultrafast", "-b:v", "\(movieMegabytes / 5)M", "-maxrate", "\(movieMegabytes / 5)M", "-bufsize", "2M",
                    "-x264-params", "nal-hrd=cbr", "-pix_fmt", "yuv420p", movie.path,
                ], samplingMemory: false)
            guard made.status == 0 else { throw CLIError("ffmpeg could not make the movie") }
        }
        let run = UUID().uuidString.prefix(8).lowercased()
        let folder = root.appendingPathComponent("Poster-\(run).photoslibrary")
        guard let url = URL(string: "file://\(folder.path)?files=s3://\(bucket)/bench-poster-\(run)") else { throw CLIError("bad folder") }
        defer {
            try? LibraryStorage.removeLibrary(at: url)
            try? FileManager.default.removeItem(at: folder)
        }
        let library = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        var created: String?
        try library.performChangesAndWait {
            created = PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: movie)?.placeholderForCreatedAsset?.localIdentifier
        }
        let options = PHFetchOptions()
        options.photoLibrary = library
        guard let created, let asset = PHAsset.fetchAssets(withLocalIdentifiers: [created], options: options).firstObject,
            let resource = PHAssetResource.assetResources(for: asset).first(where: { $0.type == .video })
        else { throw CLIError("the movie was not imported") }
        let cache = folder.appendingPathComponent("resources/cache")
        let size = resource.fileSize

        // By ranges: the poster frame of a movie this node has no copy of.
        try? FileManager.default.removeItem(at: cache)
        let before = S3BlobStore.bytesDownloaded.load(ordering: .relaxed)
        let start = ContinuousClock.now
        let request = PHImageRequestOptions()
        request.isSynchronous = true
        request.isNetworkAccessAllowed = true
        var rendered = false
        PHImageManager().requestImage(for: asset, targetSize: CGSize(width: 256, height: 256), contentMode: .aspectFill, options: request) {
            image, _ in rendered = image != nil
        }
        guard rendered else { throw CLIError("no poster frame by ranges") }
        let rangedSeconds = (ContinuousClock.now - start).seconds
        let rangedBytes = S3BlobStore.bytesDownloaded.load(ordering: .relaxed) - before

        // Whole: the movie fetched to this node first (what a decoder that reads files needs), then its frame.
        try? FileManager.default.removeItem(at: cache)
        let wholeStart = ContinuousClock.now
        let beforeWhole = S3BlobStore.bytesDownloaded.load(ordering: .relaxed)
        guard let file = resource.fileURL else { throw CLIError("the movie could not be fetched") }
        _ = try ImageRenderer.renderPosterFrame(
            file.path, rotation: 0, displayWidth: asset.pixelWidth, displayHeight: asset.pixelHeight,
            request: RenderRequest(target: (256, 256), fit: .fill, resize: .exact))
        let wholeSeconds = (ContinuousClock.now - wholeStart).seconds
        let wholeBytes = S3BlobStore.bytesDownloaded.load(ordering: .relaxed) - beforeWhole
        if !json {
            print(
                String(
                    format:
                        "poster frame of a %.0f MB movie only in the store: by ranges %.2f MB fetched (%.2f%% of it) in %.0f ms; fetching it whole first %.0f MB in %.0f ms → %.1f× faster",
                    Double(size) / 1e6, Double(rangedBytes) / 1e6, 100 * Double(rangedBytes) / Double(size), rangedSeconds * 1000,
                    Double(wholeBytes) / 1e6, wholeSeconds * 1000, wholeSeconds / rangedSeconds))
        }
        return [
            "movieBytes": size, "rangedBytes": rangedBytes, "rangedMilliseconds": rangedSeconds * 1000, "wholeBytes": wholeBytes,
            "wholeMilliseconds": wholeSeconds * 1000,
        ]
    }

    /// boto3 uploading each file of a folder, one after another (`upload_file`: one PUT below its 8 MB threshold).
    static let boto3Upload = """
        import os, sys, boto3
        folder, bucket, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
        s3 = boto3.client("s3", endpoint_url=os.environ.get("AWS_ENDPOINT_URL"))
        for name in sorted(os.listdir(folder)):
            if name.endswith(".jpg"):
                s3.upload_file(os.path.join(folder, name), bucket, prefix + name)
        """

    static func empty(_ client: S3Client, prefix: String) throws {
        let group = DispatchGroup()
        group.enter()
        Task {
            defer { group.leave() }
            for object in (try? await client.list(prefix: prefix)) ?? [] { try? await client.delete(key: object.key) }
        }
        group.wait()
    }
}
