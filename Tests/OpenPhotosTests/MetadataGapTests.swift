import Foundation
import PhotoMedia
import PhotosTesting
import Testing

/// Dates and orientations that real files keep in unusual places.
@Suite("Metadata gaps")
struct MetadataGapTests {
    @Test func aPhotoWhoseOnlyDateIsTheGPSStampGetsItAsALowConfidenceDate() throws {
        let dir = try TestMedia.temporaryDirectory("gps-date")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("gps-only.jpg")
        var exif = TestEXIF(latitude: 48.85, longitude: 2.35)
        exif.gpsDateStamp = "2019:07:14"
        exif.gpsTimeStamp = (21, 5, 9)
        try TestMedia.writeJPEG(to: file, width: 32, height: 24, exif: exif)
        let metadata = try MediaProbe().probe(file).metadata
        #expect(metadata.creationDate == Date(timeIntervalSince1970: 1_563_138_309))  // 2019-07-14T21:05:09Z
        #expect(metadata.timeZoneOffset == nil)
        #expect(metadata.creationDateSource == "GPS:DateTime")
        #expect(metadata.creationDateIsLowConfidence)
    }
}

extension MetadataGapTests {
    /// PNG chunks of a file: (type, data), in order.
    static func chunks(_ data: Data) -> [(String, Data)] {
        var result: [(String, Data)] = []
        var offset = 8
        let bytes = [UInt8](data)
        while offset + 8 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            result.append((type, Data(bytes[(offset + 8)..<(offset + 8 + length)])))
            offset += 12 + length
        }
        return result
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }

    static func png(_ chunks: [(String, Data)]) -> Data {
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        for (type, data) in chunks {
            let length = UInt32(data.count)
            out.append(contentsOf: [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
            let typed = Array(type.utf8) + [UInt8](data)
            out.append(contentsOf: typed)
            let crc = crc32(typed)
            out.append(contentsOf: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        }
        return out
    }

    @Test func aPNGWhoseEXIFFollowsTheImageDataIsStillRotatedForDisplay() throws {
        let dir = try TestMedia.temporaryDirectory("png-trailing-exif")
        defer { try? FileManager.default.removeItem(at: dir) }
        // A marker image stored rotated for orientation 6, with that orientation in an eXIf chunk: once before the
        // image data (where libvips reads it), once after it, just before IEND.
        let marker = dir.appendingPathComponent("marker.png")
        try TestMedia.writeMarkerImage(to: marker.path, width: 40, height: 30, orientation: 6)
        var exif = TestEXIF()
        exif.orientation = 6
        let chunk = ("eXIf", Data(exif.tiff))
        let plain = Self.chunks(try Data(contentsOf: marker)).filter { $0.0 != "eXIf" }
        var early = plain
        early.insert(chunk, at: 1)
        var late = plain
        late.insert(chunk, at: late.count - 1)
        let before = dir.appendingPathComponent("before.png")
        let after = dir.appendingPathComponent("after.png")
        try Self.png(early).write(to: before)
        try Self.png(late).write(to: after)
        #expect(Self.chunks(try Data(contentsOf: after)).map(\.0).suffix(2) == ["eXIf", "IEND"])
        #expect(try MediaProbe().probe(before).orientation == 6)

        let info = try MediaProbe().probe(after)
        #expect(info.orientation == 6)
        #expect(info.pixelWidth == 40 && info.pixelHeight == 30)
        let expected = try ImageRenderer.render(
            before.path, displayWidth: 40, displayHeight: 30, request: RenderRequest(target: nil, fit: .fit, resize: .none))
        let rendered = try ImageRenderer.render(
            after.path, displayWidth: 40, displayHeight: 30, request: RenderRequest(target: nil, fit: .fit, resize: .none))
        #expect(rendered.width == 40 && rendered.height == 30)
        #expect(rendered.bytes == expected.bytes)
        let small = try ImageRenderer.render(
            after.path, displayWidth: 40, displayHeight: 30, request: RenderRequest(target: (width: 20, height: 15), fit: .fit, resize: .exact))
        #expect(small.width == 20 && small.height == 15)
    }
}
