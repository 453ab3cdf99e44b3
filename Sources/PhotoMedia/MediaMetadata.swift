import Foundation

/// What a photo library reads from a file's metadata: when and where it was taken, by what, and the keys that tie
/// Live Photos and bursts together. Every field is optional: files lie, lack tags, or carry broken ones, and a
/// missing value is never invented.
package struct MediaMetadata: Sendable, Equatable {
    /// The capture instant.
    package var creationDate: Date?
    /// The capture's UTC offset in seconds (east positive), when the file records one: with it, the local wall
    /// time is `creationDate + offset` and is never lost.
    package var timeZoneOffset: Int?
    /// The tag the date came from ("EXIF:DateTimeOriginal", "QuickTime:CreationDate" …).
    package var creationDateSource: String?
    /// Whether the capture date is a guess rather than the camera's record of the shutter: the GPS time stamp (when
    /// the position was fixed, in UTC, with no local zone), as Immich and exiftool fall back to it.
    package var creationDateIsLowConfidence: Bool { creationDateSource == "GPS:DateTime" }
    package var latitude: Double?
    package var longitude: Double?
    /// Metres above sea level (negative below).
    package var altitude: Double?
    /// The EXIF orientation (1–8) the block records (IFD0's Orientation tag).
    package var orientation: Int?
    package var make: String?
    package var model: String?
    package var lensModel: String?
    package var software: String?
    /// Apple's Live Photo key: MakerNote ContentIdentifier in the still, `com.apple.quicktime.content.identifier`
    /// in the video.
    package var contentIdentifier: String?
    /// Apple's MakerNote BurstUUID.
    package var burstIdentifier: String?
    /// EXIF CustomRendered (2, 3, 7: HDR; 6: panorama; 7, 8: portrait).
    package var customRendered: Int?
    /// Apple's MakerNote HDRImageType (3: HDR).
    package var appleHDRImageType: Int?
    /// EXIF UserComment says "Screenshot" (as macOS and iOS write it).
    package var isScreenshot = false
    /// The lens is a front camera.
    package var isSelfie: Bool { lensModel?.lowercased().contains("front") ?? false }
    /// HDR capture.
    package var isHDR: Bool { appleHDRImageType == 3 || [2, 3, 7].contains(customRendered ?? 0) }
    package var isPanorama: Bool { customRendered == 6 }
    package var isPortrait: Bool { [7, 8].contains(customRendered ?? 0) || hasDepthData }
    /// The photo carries depth or disparity data (a HEIF depth image): taken in Portrait mode.
    package var hasDepthData = false
    /// Frames per second of a video, to tell high-frame-rate video (≥ 100) apart.
    package var videoFrameRate: Double?
    /// Stars (1–5) the file's XMP or EXIF Rating gives; nil when unrated or rejected.
    package var rating: Int?
    /// The file's caption (XMP `dc:description`, else IPTC Caption-Abstract).
    package var caption: String?
    /// The file's keywords (XMP `dc:subject`, then IPTC Keywords it lacks), in order, without repeats.
    package var keywords: [String] = []

    package init() {}
}

// MARK: - Dates

/// Parses the date spellings of EXIF, XMP and QuickTime.
package enum MetadataDate {
    package struct Parsed: Equatable {
        var wall: DateComponents
        var offset: Int?
        var fraction: Double
    }

    /// "2025:08:06 17:14:22", "2025-08-06T17:14:22.332-05:00", "2020-01-05T14:13:13-0800", "…Z".
    static func parse(_ text: String) -> Parsed? {
        let s = Array(text.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0"))).utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= s.count else { return nil }
            var value = 0
            for i in range {
                guard (48...57).contains(s[i]) else { return nil }
                value = value * 10 + Int(s[i] - 48)
            }
            return value
        }
        guard s.count >= 19, let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1800...2200).contains(year), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < s.count, s[index] == UInt8(ascii: ".") {
            var scale = 0.1
            index += 1
            while index < s.count, (48...57).contains(s[index]) {
                fraction += Double(s[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        var offset: Int?
        if index < s.count {
            if s[index] == UInt8(ascii: "Z") {
                offset = 0
            } else if s[index] == UInt8(ascii: "+") || s[index] == UInt8(ascii: "-") {
                offset = parseOffset(String(decoding: s[index...], as: UTF8.self))
            }
        }
        var wall = DateComponents()
        (wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second) = (year, month, day, hour, minute, second)
        return Parsed(wall: wall, offset: offset, fraction: fraction)
    }

    /// "+02:00", "-0500", "+01" → seconds east of UTC.
    static func parseOffset(_ text: String) -> Int? {
        let s = text.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0")))
        guard let sign = s.first, sign == "+" || sign == "-" else { return nil }
        let digits = s.dropFirst().filter(\.isNumber)
        guard digits.count == 2 || digits.count == 4, let value = Int(digits) else { return nil }
        let hours = digits.count == 2 ? value : value / 100
        let minutes = digits.count == 2 ? 0 : value % 100
        guard hours <= 14, minutes < 60 else { return nil }
        return (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    /// The instant: the wall time at `offset`, or in `fallbackZone` when the file records none.
    static func instant(_ parsed: Parsed, offset: Int?, fallbackZone: TimeZone = .current) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = offset.flatMap { TimeZone(secondsFromGMT: $0) } ?? fallbackZone
        return calendar.date(from: parsed.wall).map { $0.addingTimeInterval(parsed.fraction) }
    }
}

/// ISO 6709 locations as QuickTime and MP4 store them: "+34.7309-086.5871+191.315/".
enum ISO6709 {
    static func parse(_ text: String) -> (latitude: Double, longitude: Double, altitude: Double?)? {
        var numbers: [Double] = []
        var current = ""
        for character in text {
            if character == "+" || character == "-" || character == "/" {
                if !current.isEmpty, let value = Double(current) { numbers.append(value) }
                current = character == "/" ? "" : String(character)
                if character == "/" { break }
            } else if character.isNumber || character == "." {
                current.append(character)
            } else {
                return nil
            }
        }
        if !current.isEmpty, let value = Double(current) { numbers.append(value) }
        guard numbers.count >= 2, abs(numbers[0]) <= 90, abs(numbers[1]) <= 180 else { return nil }
        return (numbers[0], numbers[1], numbers.count > 2 ? numbers[2] : nil)
    }
}
