import ArgumentParser
import CVipsShims
import CommandLineSupport
import Foundation
import OpenPhotos
import PhotoMedia
import PhotosTesting

struct BenchImages: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "images",
        abstract: "Measure PHImageManager against libvips: 256-px aspectFill thumbnails of a 12-MP JPEG and an iPhone HEIC.",
        discussion: """
            For each file: an uncached synchronous PHImageManager request (targetSize 256×256, aspectFill, exact)
            against vips_thumbnail in-process on the same file (centre crop, the pixels made in memory; PHImageManager
            also converts files that carry an ICC profile to sRGB) and against the vipsthumbnail command
            (needs libvips-tools). Then cached requests: memory hits and disk hits. Medians. Build with -c release:
            swift run -c release photos-bench images
            """)
    @Option(help: "Timed repetitions per measurement.") var repetitions = 15
    @Option(help: "An iPhone HEIC (default: ../shared/media/livephoto/IMG_4394.HEIC when present).") var heic: String?
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let scratch = try TestMedia.temporaryDirectory("OpenPhotoKit-bench-images")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let jpeg = scratch.appendingPathComponent("12mp.jpg")
        try TestMedia.writeJPEG(
            to: jpeg, width: 4032, height: 3024,
            exif: TestEXIF(make: "Apple", model: "iPhone 13", dateTimeOriginal: "2024:06:01 12:00:00", offsetTimeOriginal: "+02:00"))
        var files: [(String, URL)] = [("12-MP JPEG", jpeg)]
        if let heic = heic.map({ URL(fileURLWithPath: $0) })
            ?? TestMedia.sharedMediaFolder.map({ $0.appendingPathComponent("livephoto/IMG_4394.HEIC") })
        {
            files.append(("iPhone HEIC (\(heic.lastPathComponent))", heic))
        }
        let library = try PHPhotoLibrary(url: scratch.appendingPathComponent("Bench.photoslibrary"), clientIdentifier: nil)
        let report = try library.importItems(at: files.map(\.1))
        let options = PHFetchOptions()
        options.photoLibrary = library
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: report.importedLocalIdentifiers, options: options)
        var rows: [[String: Any]] = []
        for (label, file) in files {
            guard
                let asset = assets.objects(at: IndexSet(0..<assets.count)).first(where: {
                    PHAssetResource.assetResources(for: $0).first?.originalFilename == file.lastPathComponent
                }), let stored = PHAssetResource.assetResources(for: asset).first?.fileURL
            else { throw CLIError("\(file.path) did not import") }
            let request = PHImageRequestOptions()
            request.isSynchronous = true
            request.deliveryMode = .highQualityFormat
            request.resizeMode = .exact
            var ours: [Double] = []
            var inProcess: [Double] = []
            func viaManager() {
                let manager = PHImageManager()  // empty memory: uncached
                let start = DispatchTime.now()
                var size = CGSize.zero
                manager.requestImage(for: asset, targetSize: CGSize(width: 256, height: 256), contentMode: .aspectFill, options: request) {
                    image, _ in size = image?.size ?? .zero
                }
                ours.append(ms(since: start))
                precondition(size == CGSize(width: 256, height: 256), "PHImageManager gave \(size)")
            }
            func viaVips() throws {
                let start = DispatchTime.now()
                guard let thumbnail = cvips_thumbnail_plain(stored.path, 256, 256) else { throw CLIError("vips_thumbnail failed") }
                var length = 0
                var w: Int32 = 0
                var h: Int32 = 0
                var b: Int32 = 0
                let memory = cvips_srgb_pixels(thumbnail, &length, &w, &h, &b)
                inProcess.append(ms(since: start))
                cvips_free(memory)
                cvips_unref(thumbnail)
            }
            // Alternate which goes first, so neither always finds the other's warm caches.
            for repetition in 0..<repetitions {
                if repetition % 2 == 0 {
                    viaManager()
                    try viaVips()
                } else {
                    try viaVips()
                    viaManager()
                }
            }
            var command: [Double] = []
            let output = scratch.appendingPathComponent("cli.jpg")
            // The command uses the same system libheif as this process.
            for _ in 0..<max(3, repetitions / 3) {
                let run = try BenchImport.measure(
                    URL(fileURLWithPath: "/usr/bin/env"),
                    ["vipsthumbnail", stored.path, "--size", "256x256", "--smartcrop", "centre", "-o", output.path])
                guard run.status != 127 else {
                    throw CLIError("vipsthumbnail, a baseline of this benchmark, is not installed (apt install libvips-tools)")
                }
                guard run.status == 0 else { throw CLIError("vipsthumbnail failed on \(stored.lastPathComponent) (status \(run.status))") }
                command.append(run.seconds * 1000)
            }
            // Cached requests: memory hits (a caching manager that prepared the size), then disk hits (fresh managers
            // that find the rendering in the library's derivatives).
            let caching = PHCachingImageManager()
            let cachedSize = CGSize(width: 256, height: 256)
            caching.startCachingImages(for: [asset], targetSize: cachedSize, contentMode: .aspectFill, options: request)
            caching.waitForCaching()
            var hitTimes: [Double] = []
            let hits = 20_000
            hitTimes.reserveCapacity(hits)
            let hitsStart = DispatchTime.now()
            for _ in 0..<hits {
                let start = DispatchTime.now()
                caching.requestImage(for: asset, targetSize: cachedSize, contentMode: .aspectFill, options: request) { _, _ in }
                hitTimes.append(ms(since: start))
            }
            let hitsPerSecond = Double(hits) / (ms(since: hitsStart) / 1000)
            let p99 = hitTimes.sorted()[hits * 99 / 100]
            var diskTimes: [Double] = []
            for _ in 0..<500 {
                caching.stopCachingImagesForAllAssets()  // memory empty: the rendering comes from the library's derivatives
                let start = DispatchTime.now()
                caching.requestImage(for: asset, targetSize: cachedSize, contentMode: .aspectFill, options: request) { _, _ in }
                diskTimes.append(ms(since: start))
            }
            let diskPerSecond = 1000 / median(diskTimes)

            let row: [String: Any] = [
                "memoryHitsPerSecond": hitsPerSecond, "memoryHitP99Milliseconds": p99, "diskHitsPerSecond": diskPerSecond,
                "file": label, "phImageManagerMilliseconds": median(ours), "vipsThumbnailInProcessMilliseconds": median(inProcess),
                "vipsthumbnailCommandMilliseconds": median(command), "ratioToInProcess": median(ours) / median(inProcess),
                "ratioToCommand": median(ours) / median(command),
            ]
            rows.append(row)
            if !json {
                print(
                    String(
                        format:
                            "%@: PHImageManager %.1f ms; vips_thumbnail in-process %.1f ms (%.2f×); vipsthumbnail command %.1f ms (%.2f×); memory hits %.0f/s (p99 %.3f ms); disk hits %.0f/s",
                        label, median(ours), median(inProcess), median(ours) / median(inProcess), median(command), median(ours) / median(command),
                        hitsPerSecond, p99, diskPerSecond))
            }
        }
        if json { printBenchJSON(rows) }
    }
}
