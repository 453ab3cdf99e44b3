import CVips
import Foundation
import PhotoMedia

/// Generates real media files for tests and demos (libvips writes them; nothing is committed as binary).
public enum TestMedia {
    /// Errors writing generated media.
    public struct GenerationError: Error, CustomStringConvertible {
        public let description: String
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

    /// Writes a HEIC whose primary image is a grid of `tile`×`tile` HEVC tiles, as iPhones write their photos
    /// (`width` and `height` multiples of `tile`); `pixel(x, y)` gives each pixel's 8-bit RGB.
    public static func writeHEICGrid(to url: URL, width: Int, height: Int, tile: Int, quality: Int = 90, pixel: (Int, Int) -> [UInt8]) throws {
        MediaProbe.initializeLibraries()
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x, y)
                rgb[(y * width + x) * 3] = p[0]
                rgb[(y * width + x) * 3 + 1] = p[1]
                rgb[(y * width + x) * 3 + 2] = p[2]
            }
        }
        var encoded: UnsafeMutableRawPointer?
        var length = 0
        var message: UnsafePointer<CChar>?
        guard cheif_encode_grid(rgb, Int32(width), Int32(height), Int32(tile), Int32(quality), &encoded, &length, &message) == 0, let encoded
        else {
            throw GenerationError(description: "cannot write \(url.lastPathComponent): \(message.map { String(cString: $0) } ?? "libheif failed")")
        }
        defer { cvips_free(encoded) }
        try Data(bytes: encoded, count: length).write(to: url)
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

    /// Runs `ffmpeg -y -v error` with `arguments`, throwing when it fails.
    public static func ffmpegRun(_ arguments: [String]) throws { try ffmpeg(arguments) }

    /// One stream of a movie as `ffprobe` reports it (independent of the library's own readers).
    public struct ProbedStream: Decodable, Sendable {
        public struct SideData: Decodable, Sendable {
            public var rotation: Int?
        }
        public var codec_type: String
        public var codec_name: String?
        public var codec_tag_string: String?
        public var width: Int?
        public var height: Int?
        public var pix_fmt: String?
        public var side_data_list: [SideData]?
        /// Frames decoded (with `countFrames`).
        public var nb_read_frames: String?
        public var duration: String?

        /// The display rotation in degrees as ffprobe prints it (counter-clockwise positive), or 0.
        public var rotation: Int { side_data_list?.compactMap(\.rotation).first ?? 0 }
    }

    /// The streams of `url` read by `ffprobe` (installed with ffmpeg).
    public static func probeStreams(_ url: URL, countFrames: Bool = false) throws -> [ProbedStream] {
        struct Output: Decodable { var streams: [ProbedStream] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffprobe", "-v", "error"] + (countFrames ? ["-count_frames"] : []) + ["-show_streams", "-of", "json", url.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw GenerationError(description: "ffprobe cannot read \(url.lastPathComponent)") }
        return try JSONDecoder().decode(Output.self, from: data).streams
    }

    private static func ffmpeg(_ arguments: [String]) throws {
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
