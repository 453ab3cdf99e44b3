import CExif
import CVipsShims
import Foundation

/// What an encoded file carries besides pixels: the colour space's ICC profile, and EXIF from the image's
/// ``CIImage/properties`` — the source file's EXIF block, updated with the `{TIFF}`, `{Exif}` and `{GPS}` values and
/// the `Orientation` the properties hold (libvips writes the block as JPEG, HEIF, PNG and TIFF allow).
enum Metadata {
    static func attach(to image: VImage, properties: [String: Any], colorSpace: CGColorSpace, source: ImageNode) throws(VipsError) -> VImage {
        let profile = colorSpace.iccProfileForTagging
        let exif = properties.isEmpty ? nil : firstSource(source)?.header?.blob("exif-data")
        return try image.withMetadata { pointer in
            for name in ["icc-profile-data", "exif-data", "xmp-data", "iptc-data", "orientation"] { cvips_remove_meta(pointer, name) }
            // libvips writes EXIF from its "exif-ifd…" fields too: only what the properties say may be written.
            if let fields = vips_image_get_fields(pointer) {
                var index = 0
                var stale: [String] = []
                while let field = fields[index] {
                    let name = String(cString: field)
                    if name.hasPrefix("exif-") { stale.append(name) }
                    index += 1
                }
                g_strfreev(fields)
                for name in stale { cvips_remove_meta(pointer, name) }
            }
            if let profile { profile.withUnsafeBytes { cvips_set_meta_blob(pointer, "icc-profile-data", $0.baseAddress, $0.count) } }
            guard !properties.isEmpty else { return }
            if let exif { exif.withUnsafeBytes { cvips_set_meta_blob(pointer, "exif-data", $0.baseAddress, $0.count) } }
            let orientation = (properties["Orientation"] as? Int) ?? 1
            cvips_set_meta_int(pointer, "orientation", Int32((1...8).contains(orientation) ? orientation : 1))
            for (dictionary, ifd) in [("{TIFF}", "ifd0"), ("{Exif}", "ifd2"), ("{GPS}", "ifd3")] {
                guard let values = properties[dictionary] as? [String: Any] else { continue }
                for (key, value) in values {
                    var value = value
                    if ifd == "ifd3", key == "Latitude" || key == "Longitude",
                        let degrees = (value as? Double) ?? (value as? CGFloat).map(Double.init)
                    {
                        // ImageIO's decimal degrees back to EXIF's degrees, minutes, seconds.
                        let magnitude = abs(degrees)
                        let whole = magnitude.rounded(.down), minutes = ((magnitude - whole) * 60).rounded(.down)
                        value = [whole, minutes, ((magnitude - whole) * 60 - minutes) * 60]
                    }
                    guard let text = exifString(value) else { continue }
                    let tag = ifd == "ifd3" && !key.hasPrefix("GPS") ? "GPS" + key : (key == "ISOSpeedRatings" ? "PhotographicSensitivity" : key)
                    vips_image_set_string(pointer, "exif-\(ifd)-\(tag)", text)
                }
            }
        }
    }

    /// `jpeg` (libvips' output) with the maker note of the `source` EXIF block put back into its EXIF segment: libvips
    /// drops maker notes libexif cannot write, among them Apple's with a Live Photo's content identifier (ImageIO
    /// keeps `{MakerApple}`). Unchanged when either has no EXIF or the segment would outgrow JPEG's 64 KB.
    static func keepingMakerNote(_ jpeg: Data, source: Data?) -> Data {
        guard let source, jpeg.count > 4, jpeg[jpeg.startIndex] == 0xFF, jpeg[jpeg.startIndex + 1] == 0xD8 else { return jpeg }
        let bytes = [UInt8](jpeg)
        var position = 2
        // The markers before the image data: find APP1 "Exif\0\0".
        while position + 4 <= bytes.count, bytes[position] == 0xFF, bytes[position + 1] != 0xDA {
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            guard length >= 2, position + 2 + length <= bytes.count else { return jpeg }
            let payload = (position + 4)..<(position + 2 + length)
            if bytes[position + 1] == 0xE1, bytes[payload].starts(with: Array("Exif\0\0".utf8)) {
                var out: UnsafeMutablePointer<UInt8>?
                var outLength: UInt32 = 0
                let status = bytes[payload].withUnsafeBufferPointer { exif in
                    source.withUnsafeBytes { from in
                        cexif_with_maker_note(
                            exif.baseAddress, UInt32(exif.count), from.bindMemory(to: UInt8.self).baseAddress, UInt32(from.count), &out, &outLength)
                    }
                }
                guard status == 0, let out else { return jpeg }
                defer { free(out) }
                guard outLength + 2 <= 65535 else { return jpeg }
                var result = Data(bytes[0..<position])
                result.append(contentsOf: [0xFF, 0xE1, UInt8((Int(outLength) + 2) >> 8), UInt8((Int(outLength) + 2) & 0xFF)])
                result.append(out, count: Int(outLength))
                result.append(contentsOf: bytes[payload.upperBound...])
                return result
            }
            position += 2 + length
        }
        return jpeg
    }

    /// A value as libvips' EXIF writer parses it.
    static func exifString(_ value: Any) -> String? {
        switch value {
        case let text as String: return text
        case let number as Int: return "\(number)"
        case let number as Double: return rational(number)
        case let number as CGFloat: return rational(Double(number))
        case let numbers as [Int]: return numbers.map(String.init).joined(separator: " ")
        case let numbers as [Double]: return numbers.map(rational).joined(separator: " ")
        default: return nil
        }
    }

    static func rational(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e9 { return "\(Int(value))/1" }
        let denominator = 10_000.0
        return "\(Int((value * denominator).rounded()))/\(Int(denominator))"
    }

    static func firstSource(_ node: ImageNode) -> SourceNode? {
        if let source = node as? SourceNode { return source }
        for input in node.inputs { if let found = firstSource(input) { return found } }
        return nil
    }
}
