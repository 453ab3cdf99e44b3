import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting

struct BenchVideoEditing: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video-editing",
        abstract: "Measure Live Photo and video editing against the ffmpeg command doing the same filter and encoding.",
        discussion: """
            In one run, medians of --repetitions: a colour filter (red × 1.1, blue × 0.9) over a generated 3-second
            1920×1440 HEVC Live Photo video and its 12-MP still through PHLivePhotoEditingContext.saveLivePhoto, against
            `ffmpeg` applying colorchannelmixer with the same encoder settings (libx265, veryfast, CRF 24; audio copied)
            plus the still; then the same filter over a 30-second 1080p H.264 video through AVVideoComposition and
            AVAssetExportSession against `ffmpeg` with libx264 veryfast CRF 20, with the peak resident memory of a
            process doing the export. Build with -c release:
            swift run -c release photos-bench video-editing
            """)
    @Option(help: "Timed repetitions per measurement.") var repetitions = 3
    @Option(help: "Seconds of the long video.") var seconds = 30
    @Flag(help: "Print JSON.") var json = false
    @Option(help: .hidden) var exportOnly: String?

    static let matrix = (red: 1.1, blue: 0.9)

    static func filter(_ image: CIImage) -> CIImage {
        image.applyingFilter(
            "CIColorMatrix",
            parameters: ["inputRVector": CIVector(x: matrix.red, y: 0, z: 0, w: 0), "inputBVector": CIVector(x: 0, y: 0, z: matrix.blue, w: 0)])
    }

    /// Exports `source` through the composition into a temporary file (the child of the memory figure).
    static func exportFiltered(_ source: URL, to output: URL) throws {
        let asset = AVURLAsset(url: source)
        guard let session = AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetHighestQuality) else {
            throw CLIError("no export session")
        }
        session.videoComposition = AVVideoComposition(asset: asset) { request in
            request.finish(with: Self.filter(request.sourceImage), context: nil)
        }
        session.outputURL = output
        session.outputFileType = .mov
        let done = DispatchSemaphore(value: 0)
        session.exportAsynchronously { done.signal() }
        done.wait()
        guard session.status == .completed else { throw CLIError("export failed: \(String(describing: session.error))") }
    }

    func run() throws {
        if let exportOnly {
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).mov")
            defer { try? FileManager.default.removeItem(at: out) }
            try Self.exportFiltered(URL(fileURLWithPath: exportOnly), to: out)
            return
        }
        let scratch = try TestMedia.temporaryDirectory("OpenPhotoKit-bench-video-editing")
        defer { try? FileManager.default.removeItem(at: scratch) }
        if !json { print("generating the media…") }
        let liveVideo = scratch.appendingPathComponent("live.mov")
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=1920x1440:rate=30:duration=3", "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
            "-c:v", "libx265", "-preset", "veryfast", "-crf", "24", "-x265-params", "log-level=none", "-tag:v", "hvc1", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-shortest", liveVideo.path,
        ])
        let still = scratch.appendingPathComponent("live.jpg")
        try TestMedia.writeImage(to: still, width: 4032, height: 3024, quality: 92)
        let longVideo = scratch.appendingPathComponent("long.mov")
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=\(seconds)", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)",
            "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", longVideo.path,
        ])

        let library = try PHPhotoLibrary(url: scratch.appendingPathComponent("Bench.photoslibrary"), clientIdentifier: nil)
        var id = ""
        try library.performChangesAndWait {
            let request = PHAssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: still, options: nil)
            request.addResource(with: .pairedVideo, fileURL: liveVideo, options: nil)
            id = request.placeholderForCreatedAsset!.localIdentifier
        }
        let asset = try fetchAsset(id, in: library)
        let mixer = "colorchannelmixer=rr=\(Self.matrix.red):bb=\(Self.matrix.blue)"

        // 1. The Live Photo: still + video through the frame processor, against ffmpeg on both.
        var ours: [Double] = [], theirs: [Double] = []
        for repetition in 0..<repetitions {
            let input = try waitFor { try await asset.requestContentEditingInput(with: nil) }
            guard let context = PHLivePhotoEditingContext(livePhotoEditingInput: input) else { throw CLIError("not a Live Photo") }
            context.frameProcessor = { frame, _ in Self.filter(frame.image) }
            let output = PHContentEditingOutput(contentEditingInput: input)
            let start = DispatchTime.now()
            let failure = waitForCallback { done in context.saveLivePhoto(to: output, options: nil) { _, error in done(error) } }
            if let error = failure { throw CLIError("saveLivePhoto failed: \(error)") }
            ours.append(ms(since: start))
            let outVideo = scratch.appendingPathComponent("ff-\(repetition).mov"), outStill = scratch.appendingPathComponent("ff-\(repetition).jpg")
            let baseline = DispatchTime.now()
            try Self.ffmpeg([
                "-i", liveVideo.path, "-vf", mixer, "-c:v", "libx265", "-preset", "veryfast", "-crf", "24", "-x265-params", "log-level=none",
                "-tag:v", "hvc1", "-c:a", "copy", outVideo.path,
            ])
            try Self.ffmpeg(["-i", still.path, "-vf", mixer, "-q:v", "2", outStill.path])
            theirs.append(ms(since: baseline))
        }
        let live = (median(ours), median(theirs))

        // 2. The long video through AVVideoComposition, against ffmpeg; then the peak memory of a process doing it.
        ours = []
        theirs = []
        for repetition in 0..<repetitions {
            let out = scratch.appendingPathComponent("ours-\(repetition).mov")
            let start = DispatchTime.now()
            try Self.exportFiltered(longVideo, to: out)
            ours.append(ms(since: start))
            let baseline = DispatchTime.now()
            try Self.ffmpeg([
                "-i", longVideo.path, "-vf", mixer, "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-c:a", "copy",
                scratch.appendingPathComponent("ff-long-\(repetition).mov").path,
            ])
            theirs.append(ms(since: baseline))
        }
        let long = (median(ours), median(theirs))
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let child = try ChildProcess(executable, ["video-editing", "--export-only", longVideo.path]).wait()
        guard child.status == 0 else { throw CLIError("the export child failed (status \(child.status))") }

        if json {
            printBenchJSON([
                "repetitions": repetitions,
                "livePhoto": ["openPhotoKitMilliseconds": live.0, "ffmpegMilliseconds": live.1, "ratio": live.0 / live.1, "goal": "≤ 1.3×"],
                "video": [
                    "seconds": seconds, "openPhotoKitMilliseconds": long.0, "ffmpegMilliseconds": long.1, "ratio": long.0 / long.1, "goal": "≤ 1.3×",
                    "peakResidentKilobytes": child.maxRSSKilobytes,
                ],
            ])
            return
        }
        print("Live Photo and video editing against the ffmpeg command (medians of \(repetitions), one run)")
        print(
            String(
                format: "  Live Photo, 3-s 1920×1440 HEVC + 12-MP still, colour filter: %.0f ms, ffmpeg %.0f ms: %.2f× (goal ≤ 1.3×)", live.0, live.1,
                live.0 / live.1))
        print(
            String(
                format:
                    "  %d-s 1080p H.264 video, AVVideoComposition colour filter: %.0f ms, ffmpeg %.0f ms: %.2f× (goal ≤ 1.3×); peak %d MB (goal ≤ 300 MB)",
                seconds, long.0, long.1, long.0 / long.1, child.maxRSSKilobytes / 1024))
    }

    static func ffmpeg(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-y", "-v", "error"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CLIError("ffmpeg failed: \(arguments.joined(separator: " "))") }
    }
}
