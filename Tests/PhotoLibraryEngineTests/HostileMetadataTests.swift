import Foundation
import PhotoMedia
import PhotosTesting
import Testing

/// The metadata readers on hostile bytes: mutated EXIF (IFD offsets, counts, the Apple MakerNote) and mutated movie
/// boxes must give a typed error or degraded metadata — never a crash, a hang or unbounded memory.
@Suite("Hostile metadata")
struct HostileMetadataTests {
    @Test(arguments: [7, 8] as [UInt64])
    func mutatedEXIFNeverCrashesTheReader(seed: UInt64) throws {
        let folder = try TestMedia.temporaryDirectory("hostile-exif")
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = folder.appendingPathComponent("original.jpg")
        try TestMedia.writeJPEG(
            to: original, width: 48, height: 32,
            exif: TestEXIF(
                make: "Apple", model: "iPhone", lensModel: "front camera", dateTimeOriginal: "2024:02:29 23:59:59", offsetTimeOriginal: "+05:45",
                latitude: 27.7, longitude: 85.3, altitude: 1400, userComment: "Screenshot", appleContentIdentifier: "ID", appleBurstUUID: "BURST"))
        let bytes = try Data(contentsOf: original)
        // The APP1 segment starts right after SOI; mutate only inside it, so the pixels stay decodable.
        let segmentLength = Int(bytes[4]) << 8 | Int(bytes[5])
        let exifRange = 6..<(4 + segmentLength)
        var random = SplitMix64(seed: seed)
        let probe = MediaProbe()
        var survived = 0
        for round in 0..<150 {
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let at = Int.random(in: exifRange, using: &random)
                mutated[at] = [0x00, 0xFF, 0x7F, 0x80, UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)!
            }
            let file = folder.appendingPathComponent("mutant-\(round).jpg")
            try mutated.write(to: file)
            switch Result(catching: { () throws(MediaError) -> MediaInfo in try probe.probe(file) }) {
            case .success(let info):
                survived += 1
                #expect(info.pixelWidth > 0)
                if let latitude = info.metadata.latitude { #expect(abs(latitude) <= 90) }
            case .failure:
                break  // a typed error is fine
            }
            try? FileManager.default.removeItem(at: file)
        }
        #expect(survived > 0)
    }

    @Test func mutatedMovieBoxesNeverCrashTheReader() throws {
        let folder = try TestMedia.temporaryDirectory("hostile-mov")
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = folder.appendingPathComponent("original.mov")
        try TestMedia.writeMovie(to: original, seconds: 0.2, keys: ["com.apple.quicktime.creationdate": "2024-01-01T00:00:00+0100"])
        let bytes = try Data(contentsOf: original)
        var random = SplitMix64(seed: 11)
        let probe = MediaProbe()
        for round in 0..<60 {
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                // Box headers live at the start and in the trailing moov: hit both.
                let at =
                    Bool.random(using: &random)
                    ? Int.random(in: 0..<min(64, bytes.count), using: &random) : Int.random(in: 0..<bytes.count, using: &random)
                mutated[at] = UInt8.random(in: 0...255, using: &random)
            }
            let file = folder.appendingPathComponent("mutant-\(round).mov")
            try mutated.write(to: file)
            _ = try? probe.probe(file)
            try? FileManager.default.removeItem(at: file)
        }
    }
}
