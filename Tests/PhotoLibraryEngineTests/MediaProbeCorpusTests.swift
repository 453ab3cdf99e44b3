import Foundation
import PhotoMedia
import PhotosTesting
import Testing

/// The media reader against `../shared/media/truth.json`, field by field, for what PhotoKit does not expose
/// (stored size, camera, Live Photo keys of both halves, rotation). Skipped when the corpus is absent.
@Suite("Media reader on the shared corpus", .enabled(if: TestMedia.sharedMediaFolder != nil))
struct MediaProbeCorpusTests {
    @Test func everyReadableFileMatchesTheTruth() throws {
        let folder = try #require(TestMedia.sharedMediaFolder)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("truth.json"))) as? [String: Any]
        let truth = try #require(json?["files"] as? [String: [String: Any]])
        let probe = MediaProbe()
        var read = 0
        for (path, expected) in truth.sorted(by: { $0.key < $1.key }) {
            let url = folder.appendingPathComponent(path)
            let outcome = Result { () throws(MediaError) -> MediaInfo in try probe.probe(url) }
            guard case .success(let info) = outcome else {
                #expect(expected["expectError"] as? Bool == true, "\(path): \(outcome)")
                continue
            }
            read += 1
            let m = info.metadata
            #expect((info.isImage ? "image" : "video") == expected["mediaType"] as? String, "\(path)")
            if expected["orientationConflict"] == nil, expected["displaySizeAmbiguous"] == nil, expected["expectError"] as? Bool != true {
                #expect(info.pixelWidth == expected["pixelWidth"] as? Int && info.pixelHeight == expected["pixelHeight"] as? Int, "\(path)")
                // HEIF stores its rotation in irot, which libheif applies: the stored size is the upright one.
                if info.format != .heic && info.format != .heif {
                    #expect(
                        info.storedPixelWidth == expected["rawPixelWidth"] as? Int && info.storedPixelHeight == expected["rawPixelHeight"] as? Int,
                        "\(path): stored \(info.storedPixelWidth)x\(info.storedPixelHeight)")
                    if info.isImage { #expect(info.orientation == expected["orientationEffective"] as? Int ?? 1, "\(path)") }
                }
            }
            #expect(m.make == expected["make"] as? String, "\(path): make")
            #expect(m.model == expected["model"] as? String, "\(path): model")
            #expect(m.contentIdentifier == expected["contentIdentifier"] as? String, "\(path): content identifier")
            #expect(m.burstIdentifier == expected["burstUUID"] as? String, "\(path): burst")
            // Movies keep the lens in a track-level key libavformat does not expose.
            if info.isImage, let lens = expected["lensModel"] as? String { #expect(m.lensModel == lens, "\(path): lens") }
            if !info.isImage {
                #expect(info.rotation == expected["rotation"] as? Int ?? 0, "\(path): rotation")
                if let duration = expected["durationSeconds"] as? Double { #expect(abs(info.duration - duration) < 0.05, "\(path): duration") }
            }
        }
        #expect(read >= 36)
    }
}
