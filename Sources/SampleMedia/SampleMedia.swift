import CSampleImages
import CVipsShims
import Foundation
import PhotoMedia

/// Generated media for `photos demo`, the tests and the benchmarks: real files written by libvips and ffmpeg, so that
/// nothing binary is committed and a clean clone can build a library without `../shared/media`.
public enum SampleMedia {
    /// Errors writing generated media.
    public struct GenerationError: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Writes a smooth gradient image. The format follows the extension (`.jpg`, `.png`, `.webp`, `.tif`, `.heic`,
    /// `.gif`); `orientation` (1–8) is stored as the EXIF orientation tag where the format has one.
    public static func writeImage(to url: URL, width: Int, height: Int, orientation: Int = 1, quality: Int = 85) throws {
        MediaProbe.initializeLibraries()
        if cvips_write_test_image(url.path, Int32(width), Int32(height), Int32(orientation), Int32(quality)) != 0 {
            let message = String(cString: vips_error_buffer())
            vips_error_clear()
            throw GenerationError(description: "cannot write \(url.lastPathComponent): \(message)")
        }
    }

    /// Writes a short H.264 movie with ffmpeg (`ffmpeg` must be installed), optionally with a display rotation and a
    /// sine tone in `audioCodec` (an ffmpeg encoder name: `aac`, `pcm_s16le` …).
    public static func writeMovie(
        to url: URL, width: Int, height: Int, seconds: Double, rotation: Int = 0, audio: Bool = false, audioCodec: String = "aac"
    ) throws {
        let encoded = rotation == 0 ? url : url.deletingLastPathComponent().appendingPathComponent("unrotated-\(url.lastPathComponent)")
        let sound = audio ? ["-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)", "-c:a", audioCodec, "-shortest"] : []
        try ffmpeg(
            ["-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=30:duration=\(seconds)"] + sound + [
                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", encoded.path,
            ])
        if rotation != 0 {
            // ffmpeg 5 keeps a rotation as a display matrix only when remuxing.
            try ffmpeg(["-i", encoded.path, "-c", "copy", "-metadata:s:v:0", "rotate=\(rotation)", url.path])
            try? FileManager.default.removeItem(at: encoded)
        }
    }

    /// Runs `ffmpeg -y -loglevel error` with `arguments`, throwing with its messages when it fails.
    public static func ffmpeg(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw GenerationError(description: "ffmpeg \(arguments.joined(separator: " ")) failed: \(message)")
        }
    }

    /// A fresh temporary folder, removed by the caller.
    public static func temporaryDirectory(_ label: String = "OpenPhotoKit") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The shared sample media folder (`../shared/media` beside the repository), when present.
    public static var sharedMediaFolder: URL? {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["OPENPHOTOKIT_SHARED_MEDIA"] {
            candidates.append(URL(fileURLWithPath: path))
        }
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        candidates.append(cwd.deletingLastPathComponent().appendingPathComponent("shared/media"))
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/media").standardized)
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("truth.json").path) }
    }
}
