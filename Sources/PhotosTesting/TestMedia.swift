import CTestImages
import CVipsShims
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

    /// Writes a short HEVC movie with PCM sound, as far as browsers go an iPhone's (none but Safari plays it): a test
    /// pattern encoded with ffmpeg's libx265.
    public static func writeHEVCMovie(to url: URL, width: Int, height: Int, seconds: Double) throws {
        let source = url.deletingLastPathComponent().appendingPathComponent("h264-\(UUID().uuidString).mov")
        defer { try? FileManager.default.removeItem(at: source) }
        try SampleMedia.writeMovie(to: source, width: width, height: height, seconds: seconds, audio: true, audioCodec: "pcm_s16le")
        try ffmpegRun(["-i", source.path, "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=none", "-c:a", "copy", url.path])
    }

    /// A fresh temporary folder, removed by the caller.
    public static func temporaryDirectory(_ label: String = "OpenPhotoKit") throws -> URL { try SampleMedia.temporaryDirectory(label) }

    /// The shared sample media folder (`../shared/media` beside the repository), when present.
    public static var sharedMediaFolder: URL? { SampleMedia.sharedMediaFolder }

    /// Writes a JPEG of one colour.
    public static func writeSolidJPEG(to url: URL, width: Int, height: Int, red: UInt8, green: UInt8, blue: UInt8) throws {
        let pixels = PixelBuffer(
            width: width, height: height, bands: 3, bytes: Data((0..<(width * height)).flatMap { _ in [red, green, blue] }))
        try pixels.encoded(as: .jpeg, quality: 0.95).write(to: url)
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

extension TestMedia {
    /// An ICC v2 display profile of Adobe RGB (1998) built byte by byte (D50-adapted colorants, gamma 2.2): a profile
    /// that is neither sRGB nor Display P3, as DSLRs write.
    public static func adobeRGBProfile() -> Data {
        func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func s15(_ value: Double) -> [UInt8] { be32(UInt32(bitPattern: Int32((value * 65536).rounded()))) }
        func xyz(_ x: Double, _ y: Double, _ z: Double) -> [UInt8] { Array("XYZ ".utf8) + [0, 0, 0, 0] + s15(x) + s15(y) + s15(z) }
        let curve: [UInt8] = Array("curv".utf8) + [0, 0, 0, 0] + be32(1) + [0x02, 0x33, 0, 0]  // gamma 563/256 ≈ 2.2, padded
        let text = "Adobe RGB (1998) compatible"
        let description: [UInt8] =
            Array("desc".utf8) + [0, 0, 0, 0] + be32(UInt32(text.utf8.count + 1)) + Array(text.utf8) + [0]
            + [UInt8](repeating: 0, count: 4 + 4 + 2 + 1 + 67)
        let copyright: [UInt8] = Array("text".utf8) + [0, 0, 0, 0] + Array("No copyright".utf8) + [0]
        let tags: [(String, [UInt8])] = [
            ("desc", description), ("cprt", copyright), ("wtpt", xyz(0.9642, 1.0, 0.8249)),
            ("rXYZ", xyz(0.6097, 0.3111, 0.0195)), ("gXYZ", xyz(0.2053, 0.6257, 0.0609)), ("bXYZ", xyz(0.1492, 0.0632, 0.7446)),
            ("rTRC", curve), ("gTRC", curve), ("bTRC", curve),
        ]
        var offset = 128 + 4 + 12 * tags.count
        var table: [UInt8] = be32(UInt32(tags.count))
        var data: [UInt8] = []
        for (signature, bytes) in tags {
            var padded = bytes
            while padded.count % 4 != 0 { padded.append(0) }
            table += Array(signature.utf8) + be32(UInt32(offset)) + be32(UInt32(bytes.count))
            data += padded
            offset += padded.count
        }
        var header = [UInt8](repeating: 0, count: 128)
        header.replaceSubrange(0..<4, with: be32(UInt32(offset)))
        header.replaceSubrange(8..<12, with: [0x02, 0x10, 0, 0])
        header.replaceSubrange(12..<16, with: Array("mntr".utf8))
        header.replaceSubrange(16..<20, with: Array("RGB ".utf8))
        header.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        header.replaceSubrange(68..<80, with: s15(0.9642) + s15(1.0) + s15(0.8249))
        return Data(header + table + data)
    }

    /// Writes a JPEG tagged with `profile` (an APP2 ICC_PROFILE segment after the start of image), from a generated one.
    public static func writeJPEG(to url: URL, width: Int, height: Int, iccProfile profile: Data) throws {
        try writeImage(to: url, width: width, height: height)
        var bytes = [UInt8](try Data(contentsOf: url))
        let payload = Array("ICC_PROFILE".utf8) + [0, 1, 1] + [UInt8](profile)
        let length = payload.count + 2
        bytes.insert(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
        try Data(bytes).write(to: url)
    }
}

extension TestMedia {
    /// Writes a test image whose displayed top-left corner is red, top-right green and bottom-left blue, stored
    /// rotated or mirrored so that EXIF orientation `orientation` displays it upright at `width` × `height`.
    public static func writeMarkerImage(to path: String, width: Int, height: Int, orientation: Int) throws {
        MediaProbe.initializeLibraries()
        guard cvips_write_marker_image(path, Int32(width), Int32(height), Int32(orientation)) == 0 else {
            throw MediaError.corrupt(path: path, reason: MediaProbe.takeVipsError())
        }
    }
}

extension TestMedia {
    /// A minimal DNG (TIFF, one IFD): `width` × `height` 16-bit CFA samples of one scene colour (linear, 0…1), an RGGB
    /// mosaic whose camera space is linear sRGB (its ColorMatrix1 is XYZ → linear sRGB).
    public static func dng(
        width: Int = 64, height: Int = 48, colour: [Double], orientation: UInt16 = 1, baselineExposure: Double = 0,
        neutral: [Double] = [1, 1, 1]
    ) -> Data {
        var samples = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                let channel = y % 2 == 0 ? (x % 2 == 0 ? 0 : 1) : (x % 2 == 0 ? 1 : 2)  // RGGB
                let value = UInt16(min(65535, max(0, (colour[channel] * 65535).rounded())))
                samples += [UInt8(value & 0xFF), UInt8(value >> 8)]
            }
        }
        // (tag, type, count, value bytes). Types: 1 BYTE, 2 ASCII, 3 SHORT, 4 LONG, 5 RATIONAL, 10 SRATIONAL.
        func short(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func long(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func rational(_ v: Double) -> [UInt8] { long(UInt32(v * 10000)) + long(10000) }
        func signed(_ v: Double) -> [UInt8] { long(UInt32(bitPattern: Int32((v * 10000).rounded()))) + long(10000) }
        func ascii(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }
        let xyzToSRGB = [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570]
        var entries: [(UInt16, UInt16, UInt32, [UInt8])] = [
            (254, 4, 1, long(0)), (256, 4, 1, long(UInt32(width))), (257, 4, 1, long(UInt32(height))), (258, 3, 1, short(16)),
            (259, 3, 1, short(1)), (262, 3, 1, short(32803)), (271, 2, 13, ascii("OpenPhotoKit")), (272, 2, 11, ascii("Test Maker")),
            (273, 4, 1, long(0)),  // the strip's offset, set below
            (274, 3, 1, short(orientation)), (277, 3, 1, short(1)), (278, 4, 1, long(UInt32(height))),
            (279, 4, 1, long(UInt32(samples.count))), (284, 3, 1, short(1)), (33421, 3, 2, short(2) + short(2)),
            (33422, 1, 4, [0, 1, 1, 2]), (50706, 1, 4, [1, 4, 0, 0]), (50708, 2, 24, ascii("OpenPhotoKit Test Maker")),
            (50714, 4, 1, long(0)), (50717, 4, 1, long(65535)), (50721, 10, 9, xyzToSRGB.flatMap(signed)),
            (50728, 5, 3, neutral.flatMap(rational)), (50730, 10, 1, signed(baselineExposure)), (50778, 3, 1, short(21)),
        ]
        let ifdSize = 2 + entries.count * 12 + 4
        var extra = [UInt8]()
        let extraStart = 8 + ifdSize
        var offsets = [Int: Int]()
        for (i, entry) in entries.enumerated() where entry.3.count > 4 {
            offsets[i] = extraStart + extra.count
            extra += entry.3
            if extra.count % 2 == 1 { extra.append(0) }
        }
        let stripOffset = extraStart + extra.count
        entries[entries.firstIndex { $0.0 == 273 }!].3 = long(UInt32(stripOffset))
        var file: [UInt8] = [0x49, 0x49, 42, 0] + long(8) + short(UInt16(entries.count))
        for (i, (tag, type, count, value)) in entries.enumerated() {
            file += short(tag) + short(type) + long(count)
            file += offsets[i].map { long(UInt32($0)) } ?? (value + [UInt8](repeating: 0, count: 4 - value.count))
        }
        file += long(0) + extra + samples
        return Data(file)
    }
}
