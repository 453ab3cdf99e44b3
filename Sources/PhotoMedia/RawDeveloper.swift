import CRaw
import CVipsShims
import Foundation

/// Camera RAW files (DNG and the cameras LibRaw knows) in the library's media pipeline. libvips 8.14 — Debian 12's —
/// has no RAW loader of its own (`dcrawload` came with 8.16), so RAW files are read by LibRaw, the library
/// OpenCoreImage's `CIRAWFilter` develops them with: the header for the probe, a development (bilinear and half
/// size when that is enough) for renderings. What LibRaw cannot read is an error, never a crash of the process — both
/// are fuzzed (`raw`) and checked under AddressSanitizer (`scripts/check-c.sh`).
package enum RawDeveloper {
    /// What LibRaw says of a RAW file; nil when it is not one LibRaw reads.
    package struct Header: Sendable, Equatable {
        /// The developed size before the orientation.
        package var width: Int
        package var height: Int
        package var orientation: Int
        package var make: String
        package var model: String
    }

    /// The file's header, read by LibRaw; nil when LibRaw does not read it as a RAW file.
    package static func header(_ path: String) -> Header? {
        var info = craw_info()
        var error = [CChar](repeating: 0, count: 256)
        guard let file = craw_open(path, nil, 0, &info, &error, error.count) else { return nil }
        craw_close(file)
        guard info.width > 0, info.height > 0 else { return nil }
        let make = withUnsafeBytes(of: info.make) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let model = withUnsafeBytes(of: info.model) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return Header(width: Int(info.width), height: Int(info.height), orientation: Int(info.orientation), make: make, model: model)
    }

    /// The file developed to display-oriented 8-bit sRGB pixels, at least `minimumLongEdge` pixels on its long edge
    /// when it has them (half size, bilinear, when that is enough: a thumbnail's development).
    package static func develop(_ path: String, minimumLongEdge: Int?) throws(MediaError) -> PixelBuffer {
        var info = craw_info()
        var error = [CChar](repeating: 0, count: 256)
        guard let file = craw_open(path, nil, 0, &info, &error, error.count) else {
            throw .corrupt(path: path, reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { craw_close(file) }
        let long = Int(max(info.width, info.height))
        let small = minimumLongEdge.map { $0 * 2 <= long } ?? false
        var width: Int32 = 0
        var height: Int32 = 0
        guard let samples = craw_develop(file, small ? 1 : 0, small ? 1 : 0, &width, &height, &error, error.count) else {
            throw .corrupt(path: path, reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { craw_free(samples) }
        let count = Int(width) * Int(height) * 3
        let curve = Self.curve
        var bytes = Data(count: count)
        bytes.withUnsafeMutableBytes { out in
            let target = out.bindMemory(to: UInt8.self)
            for index in 0..<count { target[index] = curve[Int(samples[index])] }
        }
        let degrees =
            switch Int(info.orientation) {
            case 6: 90
            case 3: 180
            case 8: 270
            default: 0
            }
        let developed = PixelBuffer(width: Int(width), height: Int(height), bands: 3, bytes: bytes)
        guard degrees != 0 else { return developed }
        MediaProbe.initializeLibraries()
        let rotated: UnsafeMutablePointer<VipsImage>? = developed.bytes.withUnsafeBytes { raw in
            guard let memory = cvips_image_from_pixels(raw.baseAddress, raw.count, width, height, 3) else { return nil }
            defer { cvips_unref(memory) }
            return cvips_rotate(memory, Int32(degrees))
        }
        guard let rotated else { throw .corrupt(path: path, reason: MediaProbe.takeVipsError()) }
        defer { cvips_unref(rotated) }
        return try ImageRenderer.pixels(of: rotated, path: path)
    }

    /// Linear light with sRGB primaries (LibRaw's 16-bit output) → the sRGB curve, 8 bits.
    private static let curve: [UInt8] = (0..<65536).map { value in
        let linear = Double(value) / 65535
        let encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
        return UInt8(max(0, min(255, (encoded * 255).rounded())))
    }
}
