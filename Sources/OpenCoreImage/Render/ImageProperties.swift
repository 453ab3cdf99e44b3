import CVipsShims
import Foundation

/// A file's metadata in ImageIO's dictionary shape, as ``CIImage/properties`` reports it: `PixelWidth`,
/// `PixelHeight`, `Orientation`, `ColorModel`, `Depth`, `ProfileName`, and the `{TIFF}`, `{Exif}` and `{GPS}`
/// dictionaries with ImageIO's key names (GPS coordinates in decimal degrees, as ImageIO gives them).
enum ImageProperties {
    static func read(from image: VImage, loader: String) -> [String: Any] {
        var properties: [String: Any] = [
            "PixelWidth": image.width, "PixelHeight": image.height,
            "ColorModel": image.bands >= 3 ? "RGB" : "Gray",
            "Depth": image.format == VIPS_FORMAT_USHORT ? 16 : 8,
        ]
        if image.bands == 2 || image.bands == 4 { properties["HasAlpha"] = true }
        // libheif applies a HEIF's rotation and mirroring when it decodes, so its pixels are already upright.
        let orientation = loader.lowercased().contains("heif") ? 1 : (image.int("orientation") ?? 1)
        properties["Orientation"] = (1...8).contains(orientation) ? orientation : 1
        if let profile = image.blob("icc-profile-data") {
            switch CGColorSpace.recognise(profile: profile) {
            case CGColorSpace.displayP3: properties["ProfileName"] = "Display P3"
            case CGColorSpace.sRGB: properties["ProfileName"] = "sRGB IEC61966-2.1"
            default: break
            }
        }
        var tiff: [String: Any] = [:]
        var exif: [String: Any] = [:]
        var gps: [String: Any] = [:]
        guard let fields = vips_image_get_fields(image.pointer) else { return properties }
        defer { g_strfreev(fields) }
        var index = 0
        while let field = fields[index] {
            index += 1
            let name = String(cString: field)
            guard name.hasPrefix("exif-ifd"), let value = image.string(name) else { continue }
            let parts = name.split(separator: "-", maxSplits: 2)
            guard parts.count == 3 else { continue }
            let tag = String(parts[2])
            guard let parsed = parse(value, tag: tag) else { continue }
            switch parts[1] {
            case "ifd0": tiff[tag] = parsed
            case "ifd2": exif[exifKey(tag)] = parsed
            case "ifd3": gps[gpsKey(tag)] = gpsValue(tag, parsed)
            default: break
            }
        }
        if let o = tiff["Orientation"] as? Int, loader.lowercased().contains("heif") { tiff["Orientation"] = o > 0 ? 1 : o }
        if !tiff.isEmpty { properties["{TIFF}"] = tiff }
        if !exif.isEmpty { properties["{Exif}"] = exif }
        if !gps.isEmpty { properties["{GPS}"] = gps }
        return properties
    }

    /// libvips' EXIF strings read "human text (raw, Format, n components, m bytes)".
    static func parse(_ text: String, tag: String) -> Any? {
        guard text.hasSuffix(")"), let open = text.range(of: " (", options: .backwards) else { return text }
        let human = String(text[..<open.lowerBound])
        let inside = text[open.upperBound..<text.index(before: text.endIndex)]
        var fields = inside.components(separatedBy: ", ")
        guard fields.count >= 4 else { return human }
        fields.removeLast(2)
        let format = fields.removeLast()
        let raw = fields.joined(separator: ", ")
        switch format {
        case "ASCII":
            return raw.trimmingCharacters(in: .whitespaces)
        case "Short", "Long", "SShort", "SLong", "Byte", "SByte":
            let numbers = raw.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Int($0) }
            return numbers.count == 1 ? numbers[0] : (numbers.isEmpty ? nil : numbers)
        case "Rational", "SRational":
            let numbers = raw.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { rational(String($0)) }
            return numbers.count == 1 ? numbers[0] : (numbers.isEmpty ? nil : numbers)
        default:
            return human
        }
    }

    static func rational(_ text: String) -> Double? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]) else { return Double(text) }
        return d == 0 ? nil : n / d
    }

    /// ImageIO names a few EXIF keys differently from the tag names.
    static func exifKey(_ tag: String) -> String {
        switch tag {
        case "PhotographicSensitivity": "ISOSpeedRatings"
        default: tag
        }
    }

    static func gpsKey(_ tag: String) -> String {
        tag.hasPrefix("GPS") ? String(tag.dropFirst(3)) : tag
    }

    /// Degrees, minutes and seconds → decimal degrees (ImageIO's `{GPS}` Latitude and Longitude).
    static func gpsValue(_ tag: String, _ value: Any) -> Any {
        guard tag == "GPSLatitude" || tag == "GPSLongitude", let dms = value as? [Double], dms.count == 3 else { return value }
        return dms[0] + dms[1] / 60 + dms[2] / 3600
    }
}
