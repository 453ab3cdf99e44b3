import OpenPhotos
import Foundation
import PhotosTesting
import Synchronization
import Testing

/// Video editing as AVFoundation code writes it: an AVVideoComposition of Core Image filters and a trimmed time range
/// on an AVAssetExportSession, rendered into a content editing output's QuickTime movie.
@Suite("Video editing")
struct VideoEditingTests {
    static func export(_ session: AVAssetExportSession, to url: URL) -> AVAssetExportSession.Status {
        VideoExportTests.run(session, to: url, as: .mov)
    }

    static func frames(_ url: URL) throws -> (count: Int, width: Int, height: Int, rotation: Int, audio: Bool) {
        let streams = try TestMedia.probeStreams(url, countFrames: true)
        let video = try #require(streams.first { $0.codec_type == "video" })
        return (
            Int(video.nb_read_frames ?? "") ?? -1, video.width ?? 0, video.height ?? 0, video.rotation, streams.contains { $0.codec_type == "audio" }
        )
    }

    @Test func everyFrameGoesThroughTheFiltersOnceInOrderWithRotationAndAudioKept() throws {
        let folder = try TestMedia.temporaryDirectory("video-editing")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("portrait.mov")
        try TestMedia.writeMovie(to: source, width: 64, height: 48, seconds: 1, rotation: 90, audio: true)
        let asset = AVURLAsset(url: source)
        let times = Mutex<[Double]>([])
        let composition = AVVideoComposition(asset: asset) { request in
            times.withLock { $0.append(request.compositionTime.seconds) }
            #expect(request.renderSize == CGSize(width: 64, height: 48) && request.sourceImage.extent == CGRect(x: 0, y: 0, width: 64, height: 48))
            request.finish(with: request.sourceImage.applyingFilter("CIColorInvert"), context: nil)
        }
        let session = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetHighestQuality))
        session.videoComposition = composition
        let output = folder.appendingPathComponent("inverted.mov")
        #expect(Self.export(session, to: output) == .completed, "\(String(describing: session.error))")
        let before = try Self.frames(source)
        let after = try Self.frames(output)
        #expect(after.count == before.count && after.count == 30)
        #expect((after.width, after.height) == (64, 48) && after.rotation == before.rotation && after.rotation != 0)
        #expect(after.audio)
        let seen = times.withLock { $0 }
        #expect(seen.count == 30 && seen == seen.sorted() && Set(seen).count == 30, "\(seen)")
        // The frames were inverted: the first frame's poster differs from the source's.
        let original = try #require(CIImage(contentsOf: try Self.poster(source, folder)))
        let inverted = try #require(CIImage(contentsOf: try Self.poster(output, folder)))
        let a = Self.meanRed(original), b = Self.meanRed(inverted)
        #expect(abs((a + b) - 255) < 30, "inverted: \(a) + \(b) ≈ 255")
    }

    @Test func aTimeRangeTrimsExactlyToTheFrame() throws {
        let folder = try TestMedia.temporaryDirectory("video-trim")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("clip.mov")
        try TestMedia.writeMovie(to: source, width: 64, height: 48, seconds: 2, audio: true)
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetPassthrough))
        session.timeRange = CMTimeRange(start: CMTime(value: 15, timescale: 30), duration: CMTime(value: 20, timescale: 30))
        let output = folder.appendingPathComponent("trimmed.mov")
        #expect(Self.export(session, to: output) == .completed, "\(String(describing: session.error))")
        let trimmed = try Self.frames(output)
        #expect(trimmed.count == 20, "\(trimmed)")
        #expect(trimmed.audio)
        let duration = AVURLAsset(url: output).duration.seconds
        #expect(abs(duration - 20.0 / 30) < 0.05, "\(duration)")
    }

    @Test func aFailedFrameFailsTheExportAndLeavesNoFile() throws {
        let folder = try TestMedia.temporaryDirectory("video-fail")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("clip.mov")
        try TestMedia.writeMovie(to: source, width: 32, height: 24, seconds: 0.5)
        let asset = AVURLAsset(url: source)
        struct Refused: Error {}
        let count = Mutex(0)
        let composition = AVVideoComposition(asset: asset) { request in
            if count.withLock({
                $0 += 1; return $0
            }) == 5 {
                request.finish(with: Refused())
            } else {
                request.finish(with: request.sourceImage, context: nil)
            }
        }
        let session = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetHighestQuality))
        session.videoComposition = composition
        let output = folder.appendingPathComponent("out.mov")
        #expect(Self.export(session, to: output) == .failed)
        #expect(!FileManager.default.fileExists(atPath: output.path))
        #expect(VideoExportTests.files(in: folder) == ["clip.mov"])
    }

    @Test func aVideoEditCommittedThroughContentEditing() async throws {
        let library = try TestLibrary(name: "VideoEdit")
        defer { library.remove() }
        let movie = library.scratch.appendingPathComponent("clip.mov")
        try TestMedia.writeMovie(to: movie, width: 64, height: 48, seconds: 1, rotation: 90, audio: true)
        let id = try #require(try library.library.importItems(at: [movie]).importedLocalIdentifiers.first)
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject)
        let input = try await ContentEditingTests.requireInput(asset)
        let avAsset = try #require(input.audiovisualAsset)
        let output = PHContentEditingOutput(contentEditingInput: input)
        let session = try #require(AVAssetExportSession(asset: avAsset, presetName: AVAssetExportPresetHighestQuality))
        session.videoComposition = AVVideoComposition(asset: avAsset) { request in
            request.finish(with: request.sourceImage.applyingFilter("CIPhotoEffectMono"), context: nil)
        }
        session.timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 15, timescale: 30))
        #expect(VideoExportTests.run(session, to: output.renderedContentURL, as: .mov) == .completed, "\(String(describing: session.error))")
        output.adjustmentData = PHAdjustmentData(formatIdentifier: "com.example.video", formatVersion: "1.0", data: Data("mono, first half".utf8))
        try await library.library.performChanges { PHAssetChangeRequest(for: asset).contentEditingOutput = output }
        let edited = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject)
        #expect(edited.hasAdjustments && abs(edited.duration - 0.5) < 0.05, "\(edited.duration)")
        #expect((edited.pixelWidth, edited.pixelHeight) == (48, 64), "shown upright: the rotation kept")
        let rendering = try #require(PHAssetResource.assetResources(for: edited).first { $0.type == .fullSizeVideo }?.fileURL)
        let frames = try Self.frames(rendering)
        #expect(frames.count == 15 && frames.audio && frames.rotation != 0)
    }

    static func poster(_ movie: URL, _ folder: URL) throws -> URL {
        let out = folder.appendingPathComponent("\(movie.deletingPathExtension().lastPathComponent)-poster.png")
        try? FileManager.default.removeItem(at: out)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-v", "error", "-noautorotate", "-i", movie.path, "-frames:v", "1", out.path]
        try process.run()
        process.waitUntilExit()
        return out
    }

    static func meanRed(_ image: CIImage) -> Double {
        let width = Int(image.extent.width), height = Int(image.extent.height)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        CIContext().render(
            image, toBitmap: &pixels, rowBytes: width * 4, bounds: image.extent, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
        return Double(stride(from: 0, to: pixels.count, by: 4).reduce(0) { $0 + Int(pixels[$1]) }) / Double(width * height)
    }
}
