import ArgumentParser
import CommandLineSupport
import Foundation
import PhotosTestHarness

struct BenchWebVideo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webvideo",
        abstract: "Measure the worker's web renderings of HEVC movies against the ffmpeg command doing the same.",
        discussion: """
            Generates HEVC movies with PCM sound (1920 x 1080, 30 fps, different pictures and tones, so that import keeps
            each), imports them into a new library folder, and times `photos worker --drain` making their web renderings
            (H.264 veryfast CRF 20 within 1280 x 720, AAC, index first) against `ffmpeg` encoding the same files with the
            same settings one after another, in alternating rounds.
            Build with -c release: swift build -c release --product photos-bench --product photos
            """)
    @Option(help: "Generated movies.") var movies = 6
    @Option(help: "Seconds of each movie.") var seconds = 10
    @Option(help: "Alternating rounds.") var rounds = 2
    @Option(help: "Working folder (the generated movies are reused).") var directory = "/tmp/openphotokit-bench-webvideo"
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let root = URL(fileURLWithPath: directory)
        let sources = root.appendingPathComponent("movies-\(movies)x\(seconds)s")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        var files: [URL] = []
        for index in 0..<movies {
            let file = sources.appendingPathComponent(String(format: "IMG_%04d.MOV", index + 1))
            files.append(file)
            guard !FileManager.default.fileExists(atPath: file.path) else { continue }
            try Self.ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=\(seconds),hue=h=\(index * 40)", "-f", "lavfi", "-i",
                "sine=frequency=\(300 + index * 50):duration=\(seconds)", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                "log-level=none", "-c:a", "pcm_s16le", "-shortest", file.path,
            ])
        }
        let photos = try PhotosBench.photosExecutable()
        var worker: [Double] = []
        var baseline: [Double] = []
        for _ in 0..<rounds {
            let folder = root.appendingPathComponent("WebVideo.photoslibrary")
            try? FileManager.default.removeItem(at: folder)
            let imported = try ChildProcess.run(photos, ["import", "--json", "--library", folder.path, sources.path], samplingMemory: false)
            guard imported.status == 0 else { throw CLIError("photos import failed: \(String(decoding: imported.standardOutput, as: UTF8.self))") }
            let drained = try ChildProcess.run(photos, ["worker", "--drain", "--json", "--library", folder.path], samplingMemory: false)
            guard drained.status == 0, let report = try? JSONSerialization.jsonObject(with: drained.standardOutput) as? [String: Int],
                report["done"] == movies
            else { throw CLIError("photos worker failed: \(String(decoding: drained.standardOutput, as: UTF8.self))") }
            worker.append(drained.seconds)

            let outputs = root.appendingPathComponent("ffmpeg")
            try? FileManager.default.removeItem(at: outputs)
            try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
            let start = ContinuousClock.now
            for file in files {
                try Self.ffmpeg([
                    "-i", file.path, "-map", "0:v:0", "-map", "0:a?", "-vf", "scale=1280:720", "-c:v", "libx264", "-preset", "veryfast", "-crf",
                    "20", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart",
                    outputs.appendingPathComponent(file.deletingPathExtension().lastPathComponent + ".mp4").path,
                ])
            }
            let elapsed = ContinuousClock.now - start
            baseline.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outputs)
        }
        let footage = Double(movies * seconds)
        if json {
            printBenchJSON([
                "movies": movies, "secondsEach": seconds, "workerSeconds": worker, "ffmpegSeconds": baseline,
                "ratios": zip(worker, baseline).map { $0 / $1 },
            ])
            return
        }
        for (index, (ours, theirs)) in zip(worker, baseline).enumerated() {
            print(
                String(
                    format: "round %d: photos worker %.2f s (%.1f s of 1080p HEVC per second) vs ffmpeg %.2f s → %.2f×", index + 1, ours,
                    footage / ours, theirs, ours / theirs))
        }
    }

    static func ffmpeg(_ arguments: [String]) throws {
        let outcome = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + arguments, samplingMemory: false)
        guard outcome.status == 0 else { throw CLIError("ffmpeg \(arguments.joined(separator: " ")) failed") }
    }
}
