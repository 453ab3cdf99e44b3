import CVips
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
