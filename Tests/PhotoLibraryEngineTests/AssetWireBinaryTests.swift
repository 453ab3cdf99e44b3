import Foundation
import PhotoLibraryEngine
import Testing

/// The binary form of asset records a remote client reads: every field back as it was sent, and a body that is cut
/// short or lies about its lengths an error, never a crash.
@Suite("Asset records in binary")
struct AssetWireBinaryTests {
    static func record(_ fields: [String: Any]) throws -> AssetWireRecord {
        var base: [String: Any] = [
            "id": 7, "localIdentifier": "6F1C2B0A-0000-4000-8000-000000000007/L0/001", "mediaType": 1, "mediaSubtypes": 0, "playbackStyle": 1,
            "playbackVariation": 0, "pixelWidth": 4032, "pixelHeight": 3024, "modificationDate": 1_700_000_100.5, "addedDate": 1_700_000_000.25,
            "duration": 0, "isFavorite": false, "isHidden": false, "burstSelectionTypes": 0, "representsBurst": false, "sourceType": 1,
            "hasAdjustments": false, "contentVersion": 0, "rating": 0, "livePlaybackOff": false, "originalChoice": 0,
        ]
        base.merge(fields) { _, new in new }
        return try JSONDecoder().decode(AssetWireRecord.self, from: JSONSerialization.data(withJSONObject: base))
    }

    @Test func everyFieldReadsBackAsItWasSent() throws {
        let full = try Self.record([
            "id": Int64(1) << 40, "mediaSubtypes": 8, "creationDate": -86_400.125, "creationTimeZoneOffset": -25_200, "latitude": 48.8584,
            "longitude": -2.2945, "altitude": 35.5, "duration": 3.25, "isFavorite": true, "isHidden": true, "burstIdentifier": "BURST-1",
            "burstSelectionTypes": 2, "representsBurst": true, "sourceType": 4, "hasAdjustments": true,
            "adjustmentFormatIdentifier": "com.example.é", "trashedDate": 1_800_000_000, "adjustmentTimestamp": 1_750_000_000.5,
            "contentVersion": 12, "rating": 5, "livePlaybackOff": true, "originalChoice": 1, "caption": "Étretat 🌊 \"quoted\"",
            "keywords": ["beach", "", "日本"], "originalFilename": "IMG_0001.JPG",
        ])
        let bare = try Self.record(["keywords": [String]()])
        #expect(try AssetWireBinary.decode(AssetWireBinary.encode([full, bare])) == [full, bare])
        // Without extended metadata.
        let plain = try Self.record([:])
        #expect(try AssetWireBinary.decode(AssetWireBinary.encode([plain, plain])) == [plain, plain])
        #expect(try AssetWireBinary.decode(AssetWireBinary.encode([])) == [])
    }

    @Test func aBodyCutShortOrLyingIsAnError() throws {
        let records = [try Self.record(["caption": "a caption", "keywords": ["one", "two"], "originalFilename": "x.jpg"])]
        let body = AssetWireBinary.encode(records)
        // Every prefix, and the whole with a byte more.
        for length in 0..<body.count {
            #expect(throws: LibraryError.self) { try AssetWireBinary.decode(body.prefix(length)) }
        }
        #expect(throws: LibraryError.self) { try AssetWireBinary.decode(body + Data([0])) }
        // A count far past what the body holds; a string length past the end; a presence byte that is not 0 or 1.
        var lying = body
        lying.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: LibraryError.self) { try AssetWireBinary.decode(lying) }
        var longString = body
        longString.replaceSubrange(17..<21, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: LibraryError.self) { try AssetWireBinary.decode(longString) }
        var badPresence = body
        let presence = 9 + 8 + 4 + records[0].localIdentifierUTF8Count + 8 * 6
        #expect(badPresence[presence] == 0)  // creationDate absent
        badPresence[presence] = 2
        #expect(throws: LibraryError.self) { try AssetWireBinary.decode(badPresence) }
        #expect(throws: LibraryError.self) { try AssetWireBinary.decode(Data("PHR2".utf8) + body.dropFirst(4)) }
    }
}

extension AssetWireRecord {
    var localIdentifierUTF8Count: Int { record.localIdentifier.utf8.count }
}
