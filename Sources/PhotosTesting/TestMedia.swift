import CVips
import Foundation
import PhotoMedia
import SampleMedia

/// Generates real media files for tests and demos (libvips writes them; nothing is committed as binary).
public enum TestMedia {
    /// Errors writing generated media.
    public typealias GenerationError = SampleMedia.GenerationError

    /// Writes a smooth gradient image (``SampleMedia/writeImage(to:width:height:orientation:quality:)``).
    public static func writeImage(to url: URL, width: Int, height: Int, orientation: Int = 1, quality: Int = 85) throws {
        try SampleMedia.writeImage(to: url, width: width, height: height, orientation: orientation, quality: quality)
    }

    /// Writes a short H.264 movie (``SampleMedia/writeMovie(to:width:height:seconds:rotation:audio:audioCodec:)``).
    public static func writeMovie(
        to url: URL, width: Int, height: Int, seconds: Double, rotation: Int = 0, audio: Bool = false, audioCodec: String = "aac"
    ) throws {
        try SampleMedia.writeMovie(to: url, width: width, height: height, seconds: seconds, rotation: rotation, audio: audio, audioCodec: audioCodec)
    }

    /// A fresh temporary folder, removed by the caller.
    public static func temporaryDirectory(_ label: String = "OpenPhotoKit") throws -> URL { try SampleMedia.temporaryDirectory(label) }

    /// The shared sample media folder (`../shared/media` beside the repository), when present.
    public static var sharedMediaFolder: URL? { SampleMedia.sharedMediaFolder }

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

    /// Runs `ffmpeg -y -v error` with `arguments`, throwing when it fails.
    public static func ffmpegRun(_ arguments: [String]) throws { try SampleMedia.ffmpeg(arguments) }

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

}
