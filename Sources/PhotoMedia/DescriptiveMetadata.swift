import Foundation

/// What people wrote about a photo, as Lightroom, darktable, Photos and cameras store it: the star rating, the caption
/// and the keywords. XMP first (`xmp:Rating`, `dc:description`, `dc:subject`), then IPTC-IIM (2:120 Caption-Abstract,
/// 2:25 Keywords) for what XMP lacks, then EXIF's Rating tag (Windows). Bounded text and byte walks: no XML parser
/// is trusted with hostile input, and a malformed block yields nothing, never a failed import.
package enum DescriptiveMetadata {
    /// Bytes of UTF-8 in a caption: longer ones are cut at a character on import, and refused by a change request.
    package static let captionBytes = 8 * 1024
    /// Bytes of UTF-8 in one keyword: longer keywords are dropped on import, and refused by a change request.
    package static let keywordBytes = 256
    /// Keywords on one asset.
    package static let keywordLimit = 500

    package static func read(xmp: String?, iptc: UnsafeRawBufferPointer?, into metadata: inout MediaMetadata) {
        var caption: String? = nil
        var keywords: [String] = []
        if let xmp {
            if let rating = XMPReader.rating(xmp) { metadata.rating = rating }
            caption = XMPReader.caption(xmp)
            keywords = XMPReader.keywords(xmp)
        }
        if let iptc {
            let records = IPTCReader.records(iptc)
            if caption == nil { caption = records.caption }
            for keyword in records.keywords where !keywords.contains(keyword) { keywords.append(keyword) }
        }
        metadata.caption = caption.flatMap { self.caption($0, limit: captionBytes) }
        var kept: [String] = []
        for keyword in keywords {
            guard let clean = self.keyword(keyword), clean.utf8.count <= keywordBytes, !kept.contains(clean) else { continue }
            kept.append(clean)
            if kept.count == keywordLimit { break }
        }
        metadata.keywords = kept
    }

    /// A caption as kept — from a file or from a change request: control characters (general category Cc) other
    /// than line breaks and tabs removed — format characters such as the bidi isolates Photos writes around place
    /// names, or an emoji's joiners, stay —, white space trimmed when `trimming` (a file's; a change request keeps
    /// the caption as typed), cut to `limit` bytes of UTF-8 at a character; nil when nothing but white space is left.
    package static func caption(_ text: String, limit: Int, trimming: Bool = true) -> String? {
        cleaned(text, keeping: ["\n", "\t"], trimming: trimming, limit: limit)
    }

    /// A keyword as kept: every control character removed (a keyword is one line), white space trimmed; nil when
    /// nothing is left.
    package static func keyword(_ text: String) -> String? { cleaned(text, keeping: [], trimming: true, limit: .max) }

    private static func cleaned(_ text: String, keeping: Set<Unicode.Scalar>, trimming: Bool, limit: Int) -> String? {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where scalar.properties.generalCategory != .control || keeping.contains(scalar) {
            scalars.append(scalar)
        }
        let kept = String(scalars)
        guard !kept.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        let trimmed = trimming ? kept.trimmingCharacters(in: .whitespacesAndNewlines) : kept
        if trimmed.utf8.count <= limit { return trimmed }
        var result = ""
        var used = 0
        for character in trimmed {
            used += character.utf8.count
            if used > limit { break }
            result.append(character)
        }
        return result.isEmpty ? nil : result
    }
}

extension XMPReader {
    /// `xmp:Rating` (or Adobe's older `xap:Rating`), as an attribute or an element: 1–5 stars; 0 (unrated) and -1
    /// (rejected, Lightroom) are no rating.
    package static func rating(_ packet: String) -> Int? {
        for name in ["xmp:Rating", "xap:Rating"] {
            guard let text = value(of: name, in: packet), let number = Double(text.trimmingCharacters(in: .whitespaces)) else { continue }
            // "1e300", "inf" and "nan" are numbers too (found by libFuzzer: Tests/FuzzCorpus/xmp/crash-huge-rating.xml).
            guard number.isFinite, abs(number) < 100 else { return nil }
            let stars = Int(number.rounded())
            return (1...5).contains(stars) ? stars : nil
        }
        return nil
    }

    /// `dc:description`: the `x-default` entry of its language alternatives, else the first one; or an attribute.
    package static func caption(_ packet: String) -> String? {
        guard let body = element("dc:description", in: packet) else {
            return attribute("dc:description", in: packet).map(decodeEntities)
        }
        let items = listItems(body)
        let preferred = items.first { $0.attributes.contains("x-default") } ?? items.first
        return preferred.map { decodeEntities($0.text) } ?? nonEmpty(decodeEntities(body))
    }

    /// `dc:subject`: each `rdf:li` of its bag, in order; or a single value.
    package static func keywords(_ packet: String) -> [String] {
        if let body = element("dc:subject", in: packet) {
            let items = listItems(body)
            if items.isEmpty { return nonEmpty(decodeEntities(body)).map { [$0] } ?? [] }
            return items.map { decodeEntities($0.text) }
        }
        return attribute("dc:subject", in: packet).map { [decodeEntities($0)] } ?? []
    }

    private static func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty || trimmed.contains("<") ? nil : trimmed
    }

    /// An attribute's value (`name="…"` or `name='…'`).
    static func attribute(_ name: String, in packet: String) -> String? {
        for quote in ["\"", "'"] {
            var searchRange = packet.startIndex..<packet.endIndex
            while let start = packet.range(of: "\(name)=\(quote)", range: searchRange) {
                // The name must start a token (not `xyzdc:description=`).
                if start.lowerBound > packet.startIndex, !packet[packet.index(before: start.lowerBound)].isWhitespace {
                    searchRange = start.upperBound..<packet.endIndex
                    continue
                }
                guard let end = packet.range(of: quote, range: start.upperBound..<packet.endIndex) else { return nil }
                return String(packet[start.upperBound..<end.lowerBound])
            }
        }
        return nil
    }

    /// An element's content, or its value as an attribute.
    static func value(of name: String, in packet: String) -> String? {
        element(name, in: packet) ?? attribute(name, in: packet)
    }

    /// The text between `<name …>` and `</name>` (the first such element).
    static func element(_ name: String, in packet: String) -> String? {
        var searchRange = packet.startIndex..<packet.endIndex
        while let open = packet.range(of: "<\(name)", range: searchRange) {
            guard let close = packet.range(of: ">", range: open.upperBound..<packet.endIndex) else { return nil }
            let next = packet[open.upperBound]
            guard next == ">" || next.isWhitespace || next == "/" else {
                searchRange = open.upperBound..<packet.endIndex
                continue
            }
            if packet[packet.index(before: close.lowerBound)] == "/" { return nil }  // <name/>: empty
            guard let end = packet.range(of: "</\(name)>", range: close.upperBound..<packet.endIndex) else { return nil }
            return String(packet[close.upperBound..<end.lowerBound])
        }
        return nil
    }

    /// The `rdf:li` items of a container's body: their opening tag's attributes and their text.
    static func listItems(_ body: String) -> [(attributes: String, text: String)] {
        var items: [(String, String)] = []
        var searchRange = body.startIndex..<body.endIndex
        while items.count < 10_000, let open = body.range(of: "<rdf:li", range: searchRange) {
            guard let close = body.range(of: ">", range: open.upperBound..<body.endIndex) else { break }
            let attributes = String(body[open.upperBound..<close.lowerBound])
            if attributes.hasSuffix("/") {
                searchRange = close.upperBound..<body.endIndex
                continue
            }
            guard let end = body.range(of: "</rdf:li>", range: close.upperBound..<body.endIndex) else { break }
            items.append((attributes, String(body[close.upperBound..<end.lowerBound])))
            searchRange = end.upperBound..<body.endIndex
        }
        return items
    }

    /// XML's five named entities and numeric character references.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let name = rest[rest.index(after: amp)..<semicolon]
            let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
            if let replacement = named[String(name)] {
                result += replacement
            } else if name.hasPrefix("#x") || name.hasPrefix("#X"), let code = UInt32(name.dropFirst(2), radix: 16),
                let scalar = Unicode.Scalar(code)
            {
                result.unicodeScalars.append(scalar)
            } else if name.hasPrefix("#"), let code = UInt32(name.dropFirst()), let scalar = Unicode.Scalar(code) {
                result.unicodeScalars.append(scalar)
            } else {
                result += rest[amp...semicolon]
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }
}

/// IPTC-IIM inside Photoshop's image resources (a JPEG's APP13 "Photoshop 3.0" block, as libvips hands it over as
/// `iptc-data`): resource 0x0404's datasets `0x1C record dataset length value`. Text is UTF-8 when the file says so
/// (1:90 `ESC % G`) or is valid UTF-8, else ISO 8859-1, as exiftool reads it.
package enum IPTCReader {
    package struct Records: Sendable, Equatable {
        package var caption: String?
        package var keywords: [String] = []
    }

    package static func records(_ block: UnsafeRawBufferPointer) -> Records {
        let bytes = Array(block.prefix(4 << 20))
        var records = Records()
        guard let iim = iimBlock(bytes) else { return records }
        var utf8 = false
        var at = iim.lowerBound
        while at + 5 <= iim.upperBound, bytes[at] == 0x1C {
            let record = bytes[at + 1]
            let dataset = bytes[at + 2]
            var length = Int(bytes[at + 3]) << 8 | Int(bytes[at + 4])
            var start = at + 5
            if length & 0x8000 != 0 {
                // An extended dataset: the low bits count the bytes of the real length.
                let count = length & 0x7FFF
                guard count <= 4, start + count <= iim.upperBound else { break }
                length = bytes[start..<start + count].reduce(0) { $0 << 8 | Int($1) }
                start += count
            }
            guard length >= 0, start + length <= iim.upperBound else { break }
            let value = Array(bytes[start..<start + length])
            switch (record, dataset) {
            case (1, 90): utf8 = value == [0x1B, 0x25, 0x47]
            case (2, 120): records.caption = text(value, utf8: utf8)
            case (2, 25): if let keyword = text(value, utf8: utf8), records.keywords.count < 10_000 { records.keywords.append(keyword) }
            default: break
            }
            at = start + length
        }
        return records
    }

    private static func text(_ value: [UInt8], utf8: Bool) -> String? {
        let trimmed = value.prefix { $0 != 0 }
        if trimmed.isEmpty { return nil }
        if let text = String(validating: trimmed, as: UTF8.self) { return text }
        if utf8 { return String(decoding: trimmed, as: UTF8.self) }
        return String(trimmed.map { Character(Unicode.Scalar($0)) })
    }

    /// The IIM data: resource 0x0404 of "Photoshop 3.0\0" image resources; or the block itself when it starts with
    /// a dataset marker (some writers hand over bare IIM).
    private static func iimBlock(_ bytes: [UInt8]) -> Range<Int>? {
        var at = 0
        let signature = Array("Photoshop 3.0\u{0}".utf8)
        if bytes.starts(with: signature) {
            at = signature.count
        } else if bytes.first == 0x1C {
            return 0..<bytes.count
        }
        while at + 12 <= bytes.count, bytes[at..<at + 4].elementsEqual("8BIM".utf8) {
            let id = Int(bytes[at + 4]) << 8 | Int(bytes[at + 5])
            // A Pascal name padded to an even length (length byte included).
            let nameLength = Int(bytes[at + 6])
            var cursor = at + 6 + nameLength + 1
            if (nameLength + 1) % 2 == 1 { cursor += 1 }
            guard cursor + 4 <= bytes.count else { return nil }
            let size = Int(bytes[cursor]) << 24 | Int(bytes[cursor + 1]) << 16 | Int(bytes[cursor + 2]) << 8 | Int(bytes[cursor + 3])
            cursor += 4
            guard size >= 0, size <= bytes.count - cursor else { return nil }
            if id == 0x0404 { return cursor..<cursor + size }
            at = cursor + size + size % 2
        }
        return nil
    }
}
