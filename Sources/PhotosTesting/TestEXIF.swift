import Foundation

/// EXIF for generated test JPEGs: the tags import reads, written as a big-endian TIFF block (with an Apple
/// MakerNote when a content identifier or burst UUID is given) and spliced into the JPEG as its APP1 segment.
public struct TestEXIF: Sendable {
    public var make: String?
    public var model: String?
    public var lensModel: String?
    /// "YYYY:MM:DD HH:MM:SS".
    public var dateTimeOriginal: String?
    /// "+02:00".
    public var offsetTimeOriginal: String?
    public var subSecTimeOriginal: String?
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    public var customRendered: Int?
    public var userComment: String?
    public var appleContentIdentifier: String?
    public var appleBurstUUID: String?
    /// GPSDateStamp ("YYYY:MM:DD") and GPSTimeStamp (hours, minutes, seconds), in UTC.
    public var gpsDateStamp: String?
    public var gpsTimeStamp: (Int, Int, Int)?
    /// IFD0's Orientation (1–8).
    public var orientation: Int?

    public init(
        make: String? = nil, model: String? = nil, lensModel: String? = nil, dateTimeOriginal: String? = nil,
        offsetTimeOriginal: String? = nil, subSecTimeOriginal: String? = nil, latitude: Double? = nil, longitude: Double? = nil,
        altitude: Double? = nil, customRendered: Int? = nil, userComment: String? = nil, appleContentIdentifier: String? = nil,
        appleBurstUUID: String? = nil
    ) {
        self.make = make
        self.model = model
        self.lensModel = lensModel
        self.dateTimeOriginal = dateTimeOriginal
        self.offsetTimeOriginal = offsetTimeOriginal
        self.subSecTimeOriginal = subSecTimeOriginal
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.customRendered = customRendered
        self.userComment = userComment
        self.appleContentIdentifier = appleContentIdentifier
        self.appleBurstUUID = appleBurstUUID
    }

    private enum Value {
        case ascii(String)
        case short(Int)
        case long(Int)
        case rationals([(UInt32, UInt32)])
        case byte(UInt8)
        case undefined([UInt8])
    }

    /// One IFD: entries sorted by tag, values that do not fit in 4 bytes after the IFD. `base` is the IFD's
    /// offset from the TIFF header; `next` is appended by the caller.
    private static func ifd(_ entries: [(UInt16, Value)], base: Int, offsetsFromStart: Bool = true) -> [UInt8] {
        let sorted = entries.sorted { $0.0 < $1.0 }
        var head: [UInt8] = be16(sorted.count)
        var tail: [UInt8] = []
        let dataStart = base + 2 + sorted.count * 12 + 4
        for (tag, value) in sorted {
            let (type, count, bytes): (Int, Int, [UInt8])
            switch value {
            case .ascii(let s): (type, count, bytes) = (2, s.utf8.count + 1, Array(s.utf8) + [0])
            case .short(let v): (type, count, bytes) = (3, 1, be16(v) + [0, 0])
            case .long(let v): (type, count, bytes) = (4, 1, be32(v))
            case .byte(let v): (type, count, bytes) = (1, 1, [v, 0, 0, 0])
            case .undefined(let b): (type, count, bytes) = (7, b.count, b)
            case .rationals(let r): (type, count, bytes) = (5, r.count, r.flatMap { be32(Int($0.0)) + be32(Int($0.1)) })
            }
            head += be16(Int(tag)) + be16(type) + be32(count)
            if bytes.count <= 4 {
                head += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
            } else {
                head += be32(dataStart + tail.count)
                tail += bytes
                if tail.count % 2 == 1 { tail.append(0) }
            }
        }
        return head + [0, 0, 0, 0] + tail  // next-IFD offset: none
    }

    private static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    private static func be32(_ v: Int) -> [UInt8] { [UInt8((v >> 24) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    private static func dms(_ value: Double) -> [(UInt32, UInt32)] {
        let v = abs(value)
        let d = floor(v)
        let m = floor((v - d) * 60)
        let s = ((v - d) * 60 - m) * 60
        return [(UInt32(d), 1), (UInt32(m), 1), (UInt32((s * 10_000).rounded()), 10_000)]
    }

    /// Apple's MakerNote: "Apple iOS\0", version 1, "MM", then an IFD whose offsets count from the note's start.
    private var makerNote: [UInt8]? {
        var entries: [(UInt16, Value)] = []
        if let id = appleBurstUUID { entries.append((0x000B, .ascii(id))) }
        if let id = appleContentIdentifier { entries.append((0x0011, .ascii(id))) }
        guard !entries.isEmpty else { return nil }
        return Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8) + Self.ifd(entries, base: 14)
    }

    /// The TIFF block (without the "Exif\0\0" prefix).
    public var tiff: [UInt8] {
        var exifEntries: [(UInt16, Value)] = []
        if let v = dateTimeOriginal { exifEntries += [(0x9003, .ascii(v)), (0x9004, .ascii(v))] }
        if let v = offsetTimeOriginal { exifEntries.append((0x9011, .ascii(v))) }
        if let v = subSecTimeOriginal { exifEntries.append((0x9291, .ascii(v))) }
        if let v = lensModel { exifEntries.append((0xA434, .ascii(v))) }
        if let v = customRendered { exifEntries.append((0xA401, .short(v))) }
        if let v = userComment { exifEntries.append((0x9286, .undefined(Array("ASCII".utf8) + [0, 0, 0] + Array(v.utf8)))) }
        if let note = makerNote { exifEntries.append((0x927C, .undefined(note))) }
        var gpsEntries: [(UInt16, Value)] = []
        if let day = gpsDateStamp, let (h, m, sec) = gpsTimeStamp {
            gpsEntries += [(0x0007, .rationals([(UInt32(h), 1), (UInt32(m), 1), (UInt32(sec), 1)])), (0x001D, .ascii(day))]
        }
        if let lat = latitude, let lon = longitude {
            gpsEntries += [
                (0x0001, .ascii(lat < 0 ? "S" : "N")), (0x0002, .rationals(Self.dms(lat))), (0x0003, .ascii(lon < 0 ? "W" : "E")),
                (0x0004, .rationals(Self.dms(lon))),
            ]
            if let alt = altitude {
                gpsEntries += [(0x0005, .byte(alt < 0 ? 1 : 0)), (0x0006, .rationals([(UInt32((abs(alt) * 100).rounded()), 100)]))]
            }
        }
        var ifd0Entries: [(UInt16, Value)] = []
        if let v = make { ifd0Entries.append((0x010F, .ascii(v))) }
        if let v = orientation { ifd0Entries.append((0x0112, .short(v))) }
        if let v = model { ifd0Entries.append((0x0110, .ascii(v))) }
        // Lay out: header (8) | IFD0 | Exif IFD | GPS IFD; pointers need the sizes, so build twice.
        func layout(exifOffset: Int, gpsOffset: Int) -> [UInt8] {
            var entries = ifd0Entries
            entries.append((0x8769, .long(exifOffset)))
            if !gpsEntries.isEmpty { entries.append((0x8825, .long(gpsOffset))) }
            return Self.ifd(entries, base: 8)
        }
        let ifd0Size = layout(exifOffset: 0, gpsOffset: 0).count
        let exifOffset = 8 + ifd0Size
        let exif = Self.ifd(exifEntries, base: exifOffset)
        let gpsOffset = exifOffset + exif.count
        let gps = gpsEntries.isEmpty ? [] : Self.ifd(gpsEntries, base: gpsOffset)
        return Array("MM".utf8) + [0, 42] + Self.be32(8) + layout(exifOffset: exifOffset, gpsOffset: gpsOffset) + exif + gps
    }
}

extension TestMedia {
    /// Writes a generated JPEG carrying `exif` (an APP1 segment right after SOI).
    public static func writeJPEG(to url: URL, width: Int, height: Int, exif: TestEXIF) throws {
        let plain = url.deletingLastPathComponent().appendingPathComponent(".plain-\(UUID().uuidString).jpg")
        try writeImage(to: plain, width: width, height: height)
        defer { try? FileManager.default.removeItem(at: plain) }
        let jpeg = try Data(contentsOf: plain)
        let payload = Array("Exif".utf8) + [0, 0] + exif.tiff
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        try (Data(jpeg.prefix(2)) + Data(segment) + Data(jpeg.dropFirst(2))).write(to: url)
    }

    /// Writes a short QuickTime movie with Apple's metadata keys (content identifier, creation date with zone,
    /// ISO 6709 location), as an iPhone writes the video of a Live Photo.
    public static func writeMovie(to url: URL, seconds: Double = 1, keys: [String: String]) throws {
        var arguments = [
            "-f", "lavfi", "-i", "testsrc=size=64x48:rate=30:duration=\(seconds)", "-c:v", "libx264", "-preset", "ultrafast",
            "-pix_fmt", "yuv420p", "-movflags", "use_metadata_tags",
        ]
        for (key, value) in keys.sorted(by: { $0.key < $1.key }) { arguments += ["-metadata", "\(key)=\(value)"] }
        try ffmpegRun(arguments + [url.path])
    }
}
