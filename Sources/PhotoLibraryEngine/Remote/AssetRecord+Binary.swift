import Foundation

/// ``AssetWireRecord``s in a compact binary form (`Accept: application/x-photos-asset-records` on
/// `POST /v1/assets/records`), what the remote PhotoKit client asks for: scrolling a remote fetch result is bound by
/// decoding its records, and this reads a hundred of them in microseconds where JSON takes most of a millisecond.
///
/// Layout, little endian: `PHR1`, the record count (u32), flags (u8: 1 = extended metadata), then each record's
/// fields in ``AssetWireRecord``'s order — integers as i64, flags as u8, doubles as their IEEE bits, strings as a u32
/// byte count and UTF-8, optionals as a u8 presence byte before the value, keywords as a u32 count of strings.
/// Every length is checked against what is left: a truncated or hostile body is an error, never a crash.
package enum AssetWireBinary {
    package static let contentType = "application/x-photos-asset-records"
    static let magic: [UInt8] = Array("PHR1".utf8)

    package static func encode(_ records: [AssetWireRecord]) -> Data {
        var writer = Writer()
        writer.bytes.reserveCapacity(records.count * 192 + 9)
        writer.bytes += magic
        writer.u32(UInt32(records.count))
        let extended = records.first?.keywords != nil
        writer.bytes.append(extended ? 1 : 0)
        for r in records {
            writer.i64(r.id)
            writer.string(r.localIdentifier)
            writer.int(r.mediaType)
            writer.i64(Int64(bitPattern: UInt64(r.mediaSubtypes)))
            writer.int(r.playbackStyle)
            writer.int(r.playbackVariation)
            writer.int(r.pixelWidth)
            writer.int(r.pixelHeight)
            writer.optionalDouble(r.creationDate)
            writer.optionalInt(r.creationTimeZoneOffset)
            writer.double(r.modificationDate)
            writer.double(r.addedDate)
            writer.optionalDouble(r.latitude)
            writer.optionalDouble(r.longitude)
            writer.optionalDouble(r.altitude)
            writer.double(r.duration)
            writer.bool(r.isFavorite)
            writer.bool(r.isHidden)
            writer.optionalString(r.burstIdentifier)
            writer.i64(Int64(bitPattern: UInt64(r.burstSelectionTypes)))
            writer.bool(r.representsBurst)
            writer.i64(Int64(bitPattern: UInt64(r.sourceType)))
            writer.bool(r.hasAdjustments)
            writer.optionalString(r.adjustmentFormatIdentifier)
            writer.optionalDouble(r.trashedDate)
            writer.optionalDouble(r.adjustmentTimestamp)
            writer.int(r.contentVersion)
            writer.int(r.rating)
            writer.bool(r.livePlaybackOff)
            writer.int(r.originalChoice)
            if extended {
                writer.optionalString(r.caption)
                let keywords = r.keywords ?? []
                writer.u32(UInt32(keywords.count))
                for keyword in keywords { writer.string(keyword) }
                writer.optionalString(r.originalFilename)
            }
        }
        return Data(writer.bytes)
    }

    /// - throws: ``LibraryError`` `networkError` saying where the body stops making sense.
    package static func decode(_ data: Data) throws(LibraryError) -> [AssetWireRecord] {
        do {
            return try data.withUnsafeBytes { raw in try decode(raw) }
        } catch let error as LibraryError {
            throw error
        } catch {
            throw .networkError("cannot read the asset records: \(error)")
        }
    }

    private static func decode(_ raw: UnsafeRawBufferPointer) throws(LibraryError) -> [AssetWireRecord] {
        var reader = Reader(bytes: raw)
        guard try reader.take(4).elementsEqual(magic) else { throw .networkError("the asset records do not begin with PHR1") }
        let count = Int(try reader.u32())
        let extended = try reader.u8() == 1
        // Each record takes at least 130 bytes: a count larger than the body allows is a lie.
        guard count <= raw.count / 130 + 1 else { throw .networkError("the asset records claim \(count) records in \(raw.count) bytes") }
        var records: [AssetWireRecord] = []
        records.reserveCapacity(count)
        for _ in 0..<count {
            let id = try reader.i64()
            let localIdentifier = try reader.string()
            let mediaType = try reader.int()
            let mediaSubtypes = UInt(truncatingIfNeeded: try reader.i64())
            let playbackStyle = try reader.int()
            let playbackVariation = try reader.int()
            let pixelWidth = try reader.int()
            let pixelHeight = try reader.int()
            let creationDate = try reader.optionalDouble()
            let creationTimeZoneOffset = try reader.present() ? try reader.int() : nil
            let modificationDate = try reader.double()
            let addedDate = try reader.double()
            let latitude = try reader.optionalDouble()
            let longitude = try reader.optionalDouble()
            let altitude = try reader.optionalDouble()
            let duration = try reader.double()
            let isFavorite = try reader.bool()
            let isHidden = try reader.bool()
            let burstIdentifier = try reader.present() ? try reader.string() : nil
            let burstSelectionTypes = UInt(truncatingIfNeeded: try reader.i64())
            let representsBurst = try reader.bool()
            let sourceType = UInt(truncatingIfNeeded: try reader.i64())
            let hasAdjustments = try reader.bool()
            let adjustmentFormatIdentifier = try reader.present() ? try reader.string() : nil
            let trashedDate = try reader.optionalDouble()
            let adjustmentTimestamp = try reader.optionalDouble()
            let contentVersion = try reader.int()
            let rating = try reader.int()
            let livePlaybackOff = try reader.bool()
            let originalChoice = try reader.int()
            var caption: String?
            var keywords: [String]?
            var originalFilename: String?
            if extended {
                caption = try reader.present() ? try reader.string() : nil
                let keywordCount = Int(try reader.u32())
                guard keywordCount <= reader.remaining / 4 else { throw .networkError("an asset record claims \(keywordCount) keywords") }
                var list: [String] = []
                for _ in 0..<keywordCount { list.append(try reader.string()) }
                keywords = list
                originalFilename = try reader.present() ? try reader.string() : nil
            }
            records.append(
                AssetWireRecord(
                    id: id, localIdentifier: localIdentifier, mediaType: mediaType, mediaSubtypes: mediaSubtypes, playbackStyle: playbackStyle,
                    playbackVariation: playbackVariation, pixelWidth: pixelWidth, pixelHeight: pixelHeight, creationDate: creationDate,
                    creationTimeZoneOffset: creationTimeZoneOffset, modificationDate: modificationDate, addedDate: addedDate,
                    latitude: latitude, longitude: longitude, altitude: altitude, duration: duration, isFavorite: isFavorite,
                    isHidden: isHidden, burstIdentifier: burstIdentifier, burstSelectionTypes: burstSelectionTypes,
                    representsBurst: representsBurst, sourceType: sourceType, hasAdjustments: hasAdjustments,
                    adjustmentFormatIdentifier: adjustmentFormatIdentifier, trashedDate: trashedDate,
                    adjustmentTimestamp: adjustmentTimestamp, contentVersion: contentVersion, rating: rating,
                    livePlaybackOff: livePlaybackOff, originalChoice: originalChoice, caption: caption, keywords: keywords,
                    originalFilename: originalFilename))
        }
        guard reader.remaining == 0 else { throw .networkError("\(reader.remaining) bytes follow the asset records") }
        return records
    }

    struct Writer {
        var bytes: [UInt8] = []
        mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func i64(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func int(_ value: Int) { i64(Int64(value)) }
        mutating func double(_ value: Double) { i64(Int64(bitPattern: value.bitPattern)) }
        mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }
        mutating func string(_ value: String) {
            var value = value
            value.withUTF8 { utf8 in
                u32(UInt32(utf8.count))
                bytes += utf8
            }
        }
        mutating func optionalDouble(_ value: Double?) {
            bytes.append(value == nil ? 0 : 1)
            if let value { double(value) }
        }
        mutating func optionalInt(_ value: Int?) {
            bytes.append(value == nil ? 0 : 1)
            if let value { int(value) }
        }
        mutating func optionalString(_ value: String?) {
            bytes.append(value == nil ? 0 : 1)
            if let value { string(value) }
        }
    }

    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0
        var remaining: Int { bytes.count - offset }

        mutating func take(_ count: Int) throws(LibraryError) -> UnsafeRawBufferPointer {
            guard count >= 0, count <= remaining else { throw .networkError("the asset records end in the middle of one") }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        }
        mutating func u8() throws(LibraryError) -> UInt8 { try take(1)[0] }
        mutating func u32() throws(LibraryError) -> UInt32 { UInt32(littleEndian: try take(4).loadUnaligned(as: UInt32.self)) }
        mutating func i64() throws(LibraryError) -> Int64 { Int64(littleEndian: try take(8).loadUnaligned(as: Int64.self)) }
        mutating func int() throws(LibraryError) -> Int { Int(truncatingIfNeeded: try i64()) }
        mutating func double() throws(LibraryError) -> Double { Double(bitPattern: UInt64(bitPattern: try i64())) }
        mutating func bool() throws(LibraryError) -> Bool { try u8() != 0 }
        mutating func present() throws(LibraryError) -> Bool {
            switch try u8() {
            case 0: return false
            case 1: return true
            default: throw .networkError("an asset record has a presence byte that is neither 0 nor 1")
            }
        }
        mutating func optionalDouble() throws(LibraryError) -> Double? { try present() ? try double() : nil }
        mutating func string() throws(LibraryError) -> String {
            let count = Int(try u32())
            let utf8 = try take(count)
            guard let text = String(validating: utf8, as: UTF8.self) else { throw .networkError("an asset record has a string that is not UTF-8") }
            return text
        }
    }
}
