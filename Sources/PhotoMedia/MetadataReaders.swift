import CAVFormatShims
import CExif
import Foundation

/// Reads ``MediaMetadata`` from an EXIF block (as libvips hands it over: JPEG APP1, HEIC Exif item, PNG eXIf,
/// WebP EXIF chunk) through libexif, plus Apple's MakerNote, which no library here reads correctly.
package enum EXIFReader {
    // IFDs (libexif's ExifIfd) and tags.
    private static let ifd0: Int32 = 0
    private static let exifIFD: Int32 = 2
    private static let gpsIFD: Int32 = 3

    package static func read(_ bytes: UnsafeRawBufferPointer, into metadata: inout MediaMetadata, xmp: String?) {
        guard bytes.count > 8, bytes.count < 16 << 20 else { return }
        // libexif wants "Exif\0\0" first; HEIC Exif items may start at the TIFF header, or with a 4-byte offset to it.
        let header = Array("Exif".utf8) + [0, 0]
        var block = Array(bytes)
        if block.starts(with: [0x49, 0x49, 0x2A, 0x00]) || block.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            block = header + block
        } else if !block.starts(with: header), block.count > 10, Array(block[4..<10]) == header {
            block.removeFirst(4)
        }
        guard let data = block.withUnsafeBufferPointer({ cexif_load($0.baseAddress, UInt32($0.count)) }) else { return }
        defer { cexif_free(data) }

        func entry(_ ifd: Int32, _ tag: Int32) -> UnsafeMutablePointer<ExifEntry>? { cexif_entry(data, ifd, tag) }
        func string(_ ifd: Int32, _ tag: Int32) -> String? {
            guard let e = entry(ifd, tag), let raw = e.pointee.data, e.pointee.size > 0, e.pointee.size < 4096 else { return nil }
            let buffer = UnsafeBufferPointer(start: raw, count: Int(e.pointee.size))
            let text = String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
        func number(_ ifd: Int32, _ tag: Int32, _ index: UInt32 = 0) -> Double? {
            guard let e = entry(ifd, tag), index < e.pointee.components else { return nil }
            return cexif_number(data, e, index)
        }

        metadata.orientation = number(ifd0, 0x0112).map { Int($0) }.flatMap { (1...8).contains($0) ? $0 : nil }
        metadata.make = string(ifd0, 0x010F)
        metadata.model = string(ifd0, 0x0110)
        metadata.software = string(ifd0, 0x0131)
        metadata.lensModel = string(exifIFD, 0xA434)
        metadata.customRendered = number(exifIFD, 0xA401).map { Int($0) }
        // Windows' Rating tag (IFD0 0x4746, 0–5); an XMP rating, read later, wins.
        metadata.rating = number(ifd0, 0x4746).map { Int($0) }.flatMap { (1...5).contains($0) ? $0 : nil }
        if let comment = entry(exifIFD, 0x9286), let raw = comment.pointee.data, comment.pointee.size > 8, comment.pointee.size < 4096 {
            // An 8-byte character-code prefix ("ASCII\0\0\0"), then the text.
            let text = String(decoding: UnsafeBufferPointer(start: raw + 8, count: Int(comment.pointee.size) - 8).prefix { $0 != 0 }, as: UTF8.self)
            metadata.isScreenshot = text.trimmingCharacters(in: .whitespaces) == "Screenshot"
        }

        // The capture date: DateTimeOriginal (+ OffsetTimeOriginal, SubSecTimeOriginal), else CreateDate (+ its
        // offset), else XMP's, else the GPS time (UTC). A zone only XMP records joins an EXIF date of the same wall time.
        let candidates: [(source: String, date: Int32, offset: Int32, subsec: Int32)] = [
            ("EXIF:DateTimeOriginal", 0x9003, 0x9011, 0x9291), ("EXIF:CreateDate", 0x9004, 0x9012, 0x9292),
        ]
        let xmpDate = xmp.flatMap(XMPReader.date)
        for candidate in candidates {
            guard let text = string(exifIFD, candidate.date), var parsed = MetadataDate.parse(text) else { continue }
            if let subsec = string(exifIFD, candidate.subsec), let digits = Double("0." + subsec.filter(\.isNumber)), parsed.fraction == 0 {
                parsed.fraction = digits
            }
            var offset = string(exifIFD, candidate.offset).flatMap(MetadataDate.parseOffset) ?? parsed.offset
            if offset == nil, let xmpDate, xmpDate.parsed.wall == parsed.wall { offset = xmpDate.parsed.offset }
            guard let date = MetadataDate.instant(parsed, offset: offset) else { continue }
            metadata.creationDate = date
            metadata.timeZoneOffset = offset
            metadata.creationDateSource = candidate.source
            break
        }
        if metadata.creationDate == nil, let xmpDate, let date = MetadataDate.instant(xmpDate.parsed, offset: xmpDate.parsed.offset) {
            metadata.creationDate = date
            metadata.timeZoneOffset = xmpDate.parsed.offset
            metadata.creationDateSource = xmpDate.source
        }
        if metadata.creationDate == nil, let day = string(gpsIFD, 0x001D), let h = number(gpsIFD, 0x0007, 0), let m = number(gpsIFD, 0x0007, 1),
            let s = number(gpsIFD, 0x0007, 2),
            let parsed = MetadataDate.parse(day + String(format: " %02d:%02d:%02d", Int(h), Int(m), Int(s)))
        {
            metadata.creationDate = MetadataDate.instant(parsed, offset: 0)
            metadata.creationDateSource = "GPS:DateTime"
        }

        // GPS: degrees, minutes, seconds with N/S and E/W references; altitude below sea level when the ref is 1.
        if let latRef = string(gpsIFD, 0x0001), let lonRef = string(gpsIFD, 0x0003),
            let lat = dms(entry(gpsIFD, 0x0002), data), let lon = dms(entry(gpsIFD, 0x0004), data),
            abs(lat) <= 90, abs(lon) <= 180, !(lat == 0 && lon == 0)
        {
            metadata.latitude = latRef.uppercased().hasPrefix("S") ? -lat : lat
            metadata.longitude = lonRef.uppercased().hasPrefix("W") ? -lon : lon
            if let altitude = number(gpsIFD, 0x0006) {
                metadata.altitude = number(gpsIFD, 0x0005) == 1 ? -altitude : altitude
            }
        }

        if let note = entry(exifIFD, 0x927C), let raw = note.pointee.data, note.pointee.size > 0 {
            AppleMakerNote.read(UnsafeRawBufferPointer(start: raw, count: Int(note.pointee.size)), into: &metadata)
        }
    }

    private static func dms(_ entry: UnsafeMutablePointer<ExifEntry>?, _ data: UnsafeMutablePointer<ExifData>) -> Double? {
        guard let entry, entry.pointee.components >= 3 else { return nil }
        let d = cexif_number(data, entry, 0)
        let m = cexif_number(data, entry, 1)
        let s = cexif_number(data, entry, 2)
        let value = d + m / 60 + s / 3600
        return value.isFinite ? value : nil
    }
}

/// Apple's MakerNote: "Apple iOS\0", a version, "MM", then a big-endian IFD whose offsets count from the note's
/// start. Read with bounds on every access; a malformed note yields nothing.
package enum AppleMakerNote {
    package static func read(_ note: UnsafeRawBufferPointer, into metadata: inout MediaMetadata) {
        let bytes = Array(note.prefix(64 * 1024))
        guard bytes.count >= 16, bytes.starts(with: Array("Apple iOS".utf8)), bytes[12] == 0x4D, bytes[13] == 0x4D else { return }
        func u16(_ at: Int) -> Int? { at + 2 <= bytes.count ? Int(bytes[at]) << 8 | Int(bytes[at + 1]) : nil }
        func u32(_ at: Int) -> Int? {
            at + 4 <= bytes.count ? Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) : nil
        }
        guard let count = u16(14), count < 512 else { return }
        for i in 0..<count {
            let at = 16 + i * 12
            guard let tag = u16(at), let type = u16(at + 2), let components = u32(at + 4) else { return }
            switch (tag, type) {
            case (0x000B, 2), (0x0011, 2):
                // ASCII: inline when it fits in four bytes, else at an offset from the note's start.
                guard components > 4, components < 256, let offset = u32(at + 8), offset + components <= bytes.count else { continue }
                let text = String(decoding: bytes[offset..<offset + components].prefix { $0 != 0 }, as: UTF8.self)
                guard !text.isEmpty else { continue }
                if tag == 0x000B { metadata.burstIdentifier = text } else { metadata.contentIdentifier = text }
            case (0x000A, 9), (0x000A, 4):
                if let value = u32(at + 8) { metadata.appleHDRImageType = Int(Int32(truncatingIfNeeded: value)) }
            default:
                continue
            }
        }
    }
}

/// The dates an XMP packet carries (`exif:DateTimeOriginal`, `xmp:CreateDate`, `photoshop:DateCreated`), as
/// attributes or elements. A text search, bounded by the packet's size: no XML parser is trusted with hostile input
/// here, and nothing else is read from XMP.
package enum XMPReader {
    package static func date(_ packet: String) -> (source: String, parsed: MetadataDate.Parsed)? {
        for (name, source) in [
            ("exif:DateTimeOriginal", "XMP:DateTimeOriginal"), ("photoshop:DateCreated", "XMP:DateCreated"), ("xmp:CreateDate", "XMP:CreateDate"),
        ] {
            for (open, close) in [("\(name)=\"", "\""), ("<\(name)>", "</\(name)>")] {
                guard let start = packet.range(of: open), let end = packet.range(of: close, range: start.upperBound..<packet.endIndex)
                else { continue }
                if let parsed = MetadataDate.parse(String(packet[start.upperBound..<end.lowerBound])) { return (source, parsed) }
            }
        }
        return nil
    }
}

/// Reads a movie's metadata through libavformat's dictionaries: QuickTime `mdta` keys (creation date with its zone,
/// location, make, model, Live Photo content identifier), udta (`©day`, `©xyz`) and the mvhd time (UTC).
enum MovieMetadataReader {
    static func read(_ path: String, into metadata: inout MediaMetadata) {
        var buffer = [CChar](repeating: 0, count: 64 * 1024)
        let written = cav_metadata(path, &buffer, buffer.count)
        guard written > 0 else { return }
        var values: [String: String] = [:]
        let text = String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for line in text.split(separator: "\n") {
            guard let tab = line.firstIndex(of: "\t") else { continue }
            let key = String(line[..<tab])
            if values[key] == nil { values[key] = String(line[line.index(after: tab)...]) }
        }
        func value(_ keys: String...) -> String? {
            for key in keys { if let v = values[key] ?? values["stream:" + key], !v.isEmpty { return v } }
            return nil
        }
        metadata.make = value("com.apple.quicktime.make", "make")
        metadata.model = value("com.apple.quicktime.model", "model")
        metadata.software = value("com.apple.quicktime.software", "encoder")
        metadata.contentIdentifier = value("com.apple.quicktime.content.identifier")
        // libavformat leaves the 3GPP/Android udta `date` box out; read it only when no better date is there.
        if value("com.apple.quicktime.creationdate", "date") == nil, let date = QuickTimeUserDataDate.read(path) {
            values["udta:date"] = date
        }
        let candidates: [(String, String)] = [
            ("com.apple.quicktime.creationdate", "QuickTime:CreationDate"), ("date", "QuickTime:DateTimeOriginal"),
            ("udta:date", "QuickTime:DateTimeOriginal"), ("creation_time", "QuickTime:CreateDate"),
        ]
        for (key, source) in candidates {
            guard let text = value(key), let parsed = MetadataDate.parse(text) else { continue }
            // A date without a zone in a movie is UTC (QuickTime's mvhd convention).
            guard let date = MetadataDate.instant(parsed, offset: parsed.offset ?? 0) else { continue }
            metadata.creationDate = date
            metadata.timeZoneOffset = key == "creation_time" ? nil : parsed.offset
            metadata.creationDateSource = source
            break
        }
        if let location = value("com.apple.quicktime.location.ISO6709", "location").flatMap(ISO6709.parse) {
            (metadata.latitude, metadata.longitude, metadata.altitude) = (location.latitude, location.longitude, location.altitude)
        }
    }
}

/// The 3GPP/Android `udta/date` box ("2020-11-20T15:04:02+0100"), which libavformat does not read: a walk of the
/// top-level boxes to `moov` (seeking past `mdat`, never reading it), then `moov/udta/date`. Bounded: at most 64
/// top-level boxes, a `moov` of at most 16 MB, every size checked against what is left.
package enum QuickTimeUserDataDate {
    package static func read(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let end = try? handle.seekToEnd() else { return nil }
        var offset: UInt64 = 0
        for _ in 0..<64 {
            guard offset + 8 <= end, (try? handle.seek(toOffset: offset)) != nil,
                let header = try? handle.read(upToCount: 16), header.count >= 8
            else { return nil }
            let bytes = Array(header)
            var size = UInt64(be32(bytes, 0))
            let type = String(decoding: bytes[4..<8], as: UTF8.self)
            var headerSize: UInt64 = 8
            if size == 1, bytes.count >= 16 {
                size = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
                headerSize = 16
            } else if size == 0 {
                size = end - offset
            }
            // `size <= end - offset`, not `offset + size <= end`: a 64-bit size near 2^64 must not overflow (found by
            // libFuzzer; Tests/FuzzCorpus/quicktime/crash-largesize-overflow.mp4).
            guard size >= headerSize, size <= end - offset else { return nil }
            if type == "moov" {
                guard size - headerSize <= 16 << 20, (try? handle.seek(toOffset: offset + headerSize)) != nil,
                    let moov = try? handle.read(upToCount: Int(size - headerSize))
                else { return nil }
                let body = Array(moov)
                guard let udta = child(body, 0..<body.count, "udta"), let date = child(body, udta, "date") else { return nil }
                let text = String(decoding: body[date].prefix { $0 != 0 }, as: UTF8.self)
                return text.isEmpty ? nil : text
            }
            offset += size
        }
        return nil
    }

    private static func be32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    /// The payload range of the first child box of `type` within `range`.
    private static func child(_ b: [UInt8], _ range: Range<Int>, _ type: String) -> Range<Int>? {
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            let size = Int(be32(b, at))
            guard size >= 8, at + size <= range.upperBound else { return nil }
            if String(decoding: b[at + 4..<at + 8], as: UTF8.self) == type { return (at + 8)..<(at + size) }
            at += size
        }
        return nil
    }
}
