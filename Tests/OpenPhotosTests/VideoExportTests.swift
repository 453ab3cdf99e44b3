import OpenPhotos
import Foundation
import PhotosTesting
import Synchronization
import Testing

/// AVAssetExportSession, AVPlayerItem and the manager's video requests: what is written (codecs, sizes, rotation,
/// metadata), and that a failed or cancelled export never leaves a file or replaces one.
@Suite("Video export")
struct VideoExportTests {
    /// Runs `session` to its end.
    static func run(_ session: AVAssetExportSession, to url: URL, as type: AVFileType) -> AVAssetExportSession.Status {
        session.outputURL = url
        session.outputFileType = type
        let done = DispatchSemaphore(value: 0)
        session.exportAsynchronously { done.signal() }
        #expect(done.wait(timeout: .now() + 120) == .success)
        return session.status
    }

    static func files(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test func passthroughCopiesTheStreamsIntoAnotherContainer() throws {
        let folder = try TestMedia.temporaryDirectory("export")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("clip.mov")
        try TestMedia.writeMovie(to: source, width: 96, height: 64, seconds: 1.5, rotation: 90, audio: true)
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetPassthrough))
        #expect(session.supportedFileTypes == [.mov, .mp4, .m4v])
        let output = folder.appendingPathComponent("copy.mp4")
        #expect(Self.run(session, to: output, as: .mp4) == .completed, "\(String(describing: session.error))")
        #expect(session.error == nil && session.progress == 1)
        let before = try TestMedia.probeStreams(source)
        let after = try TestMedia.probeStreams(output)
        #expect(after.map(\.codec_type) == ["video", "audio"])
        #expect(after.map(\.codec_name) == before.map(\.codec_name))
        #expect(after[0].width == 96 && after[0].height == 64 && after[0].rotation == before[0].rotation && after[0].rotation != 0)
        let copy = AVURLAsset(url: output)
        #expect(copy.naturalSize == CGSize(width: 64, height: 96))
        #expect(abs(CMTimeGetSeconds(copy.duration) - 1.5) < 0.1)
        #expect(Self.files(in: folder) == ["clip.mov", "copy.mp4"])
    }

    @Test func sizePresetsReencodeWithinTheirBoxNeverEnlargingAndCopyTheAudio() throws {
        let folder = try TestMedia.temporaryDirectory("export")
        defer { try? FileManager.default.removeItem(at: folder) }
        let portrait = folder.appendingPathComponent("portrait.mov")
        try TestMedia.writeMovie(to: portrait, width: 1280, height: 720, seconds: 1, rotation: 90, audio: true)
        let small = folder.appendingPathComponent("small.mov")
        try TestMedia.writeMovie(to: small, width: 320, height: 240, seconds: 1)
        let cases: [(URL, String, AVFileType, String, String, Int, Int)] = [
            // A 1280 × 720 frame shown as portrait fits 640 × 480 at 640 × 360, and stays rotated.
            (portrait, AVAssetExportPreset640x480, .mov, "h264", "avc1", 640, 360),
            (portrait, AVAssetExportPresetMediumQuality, .mp4, "h264", "avc1", 480, 270),
            (small, AVAssetExportPreset1280x720, .mp4, "h264", "avc1", 320, 240),
            (small, AVAssetExportPresetHEVCHighestQuality, .mov, "hevc", "hvc1", 320, 240),
        ]
        for (index, (source, preset, type, codec, tag, width, height)) in cases.enumerated() {
            let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: preset))
            let output = folder.appendingPathComponent("out-\(index).\(type == .mov ? "mov" : "mp4")")
            #expect(Self.run(session, to: output, as: type) == .completed, "\(preset): \(String(describing: session.error))")
            let streams = try TestMedia.probeStreams(output)
            let video = try #require(streams.first { $0.codec_type == "video" })
            #expect(video.codec_name == codec && video.codec_tag_string == tag && video.width == width && video.height == height, "\(preset)")
            let original = try TestMedia.probeStreams(source)
            #expect(video.rotation == original[0].rotation, "\(preset)")
            #expect(streams.filter { $0.codec_type == "audio" }.map(\.codec_name) == original.filter { $0.codec_type == "audio" }.map(\.codec_name))
            #expect(abs(CMTimeGetSeconds(AVURLAsset(url: output).duration) - 1) < 0.1, "\(preset)")
        }
    }

    @Test func audioTheContainerCannotHoldIsReencodedToAACOrRefusedInPassthrough() throws {
        let folder = try TestMedia.temporaryDirectory("export")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("pcm.mov")
        try TestMedia.writeMovie(to: source, width: 160, height: 120, seconds: 1, audio: true, audioCodec: "pcm_s16le")
        #expect(try TestMedia.probeStreams(source).map(\.codec_name) == ["h264", "pcm_s16le"])

        let reencoded = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetHighestQuality))
        let output = folder.appendingPathComponent("out.mp4")
        #expect(Self.run(reencoded, to: output, as: .mp4) == .completed, "\(String(describing: reencoded.error))")
        #expect(try TestMedia.probeStreams(output).map(\.codec_name) == ["h264", "aac"])
        #expect(abs(CMTimeGetSeconds(AVURLAsset(url: output).duration) - 1) < 0.1)

        // Passthrough copies or refuses: LPCM goes into QuickTime, not into MPEG-4.
        let intoMovie = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetPassthrough))
        #expect(Self.run(intoMovie, to: folder.appendingPathComponent("copy.mov"), as: .mov) == .completed)
        let intoMP4 = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetPassthrough))
        #expect(Self.run(intoMP4, to: folder.appendingPathComponent("copy.mp4"), as: .mp4) == .failed)
        #expect((intoMP4.error as? AVError)?.code == .operationNotSupportedForAsset)
        #expect(Self.files(in: folder) == ["copy.mov", "out.mp4", "pcm.mov"])
    }

    @Test func theCreationDateAndPlaceSurviveAnExport() throws {
        let library = try TestLibrary(name: "ExportMetadata")
        defer { library.remove() }
        let source = library.scratch.appendingPathComponent("dated.mov")
        try TestMedia.writeMovie(
            to: source, seconds: 0.5,
            keys: [
                "com.apple.quicktime.creationdate": "2023-07-14T18:30:05+0200", "com.apple.quicktime.location.ISO6709": "+48.8584+002.2945+035.000/",
            ])
        let exported = library.scratch.appendingPathComponent("exported.mp4")
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPreset640x480))
        #expect(Self.run(session, to: exported, as: .mp4) == .completed, "\(String(describing: session.error))")
        let report = try library.library.importItems(at: [exported])
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: report.importedLocalIdentifiers, options: library.options()).firstObject)
        #expect(asset.creationDate == Date(timeIntervalSince1970: 1_689_352_205))
        #expect(abs((asset.location?.coordinate.latitude ?? 0) - 48.8584) < 0.0001)
        #expect(abs((asset.location?.coordinate.longitude ?? 0) - 2.2945) < 0.0001)
    }

    @Test func anExistingFileIsNeverReplaced() throws {
        let folder = try TestMedia.temporaryDirectory("export")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("clip.mov")
        try TestMedia.writeMovie(to: source, width: 64, height: 48, seconds: 0.5)
        let existing = folder.appendingPathComponent("taken.mov")
        try Data("keep me".utf8).write(to: existing)
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetPassthrough))
        #expect(Self.run(session, to: existing, as: .mov) == .failed)
        #expect((session.error as? AVError)?.code == .fileAlreadyExists)
        #expect((session.error as NSError?)?.domain == AVFoundationErrorDomain && (session.error as NSError?)?.code == -11823)
        #expect(try Data(contentsOf: existing) == Data("keep me".utf8))
        #expect(Self.files(in: folder) == ["clip.mov", "taken.mov"])
    }

    @Test func aDamagedSourceFailsWithATypedErrorAndLeavesNothing() throws {
        let folder = try TestMedia.temporaryDirectory("export")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("clip.mov")
        try TestMedia.writeMovie(to: source, width: 64, height: 48, seconds: 0.5)
        let bytes = try Data(contentsOf: source)
        try bytes.prefix(bytes.count / 3).write(to: source)
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetHighestQuality))
        #expect(AVAssetExportSession.exportPresets(compatibleWith: AVURLAsset(url: source)).isEmpty)
        #expect(Self.run(session, to: folder.appendingPathComponent("out.mov"), as: .mov) == .failed)
        #expect((session.error as? AVError)?.code == .invalidSourceMedia)
        #expect(Self.files(in: folder) == ["clip.mov"])
    }

    @Test func cancellingStopsTheExportAndLeavesNothing() throws {
        let folder = try TestMedia.temporaryDirectory("export")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("long.mov")
        try TestMedia.writeMovie(to: source, width: 1280, height: 720, seconds: 8)
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetHighestQuality))
        session.outputURL = folder.appendingPathComponent("out.mov")
        session.outputFileType = .mov
        let done = DispatchSemaphore(value: 0)
        session.exportAsynchronously { done.signal() }
        let deadline = Date().addingTimeInterval(60)
        while session.progress == 0, session.status != .completed, Date() < deadline { usleep(2_000) }
        #expect(session.status == .exporting && session.progress < 1)
        session.cancelExport()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(session.status == .cancelled)
        #expect(Self.files(in: folder) == ["long.mov"])

        // Cancelled before it starts: the export completes at once as cancelled.
        let early = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetPassthrough))
        early.cancelExport()
        #expect(Self.run(early, to: folder.appendingPathComponent("early.mov"), as: .mov) == .cancelled)
        #expect(Self.files(in: folder) == ["long.mov"])
    }

    @Test func presetsAndFileTypesAreCheckedUpFront() throws {
        let folder = try TestMedia.temporaryDirectory("export")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("clip.mov")
        try TestMedia.writeMovie(to: source, width: 64, height: 48, seconds: 0.5)
        let asset = AVURLAsset(url: source)
        #expect(AVAssetExportSession(asset: asset, presetName: "AVAssetExportPresetNoSuchThing") == nil)
        #expect(AVAssetExportSession.exportPresets(compatibleWith: asset) == AVAssetExportSession.allExportPresets())
        #expect(AVAssetExportSession.allExportPresets().contains(AVAssetExportPreset1920x1080))
        var compatible: [Bool] = []
        for type in [AVFileType.mp4, AVFileType("com.microsoft.waveform-audio")] {
            AVAssetExportSession.determineCompatibility(ofExportPreset: AVAssetExportPresetPassthrough, with: asset, outputFileType: type) {
                compatible.append($0)
            }
        }
        #expect(compatible == [true, false])
        let session = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetPassthrough))
        #expect(Self.run(session, to: folder.appendingPathComponent("out.wav"), as: AVFileType("com.microsoft.waveform-audio")) == .failed)
        #expect((session.error as? AVError)?.code == .exportFailed)
        #expect(Self.files(in: folder) == ["clip.mov"])
    }

    @Test func theManagerHandsOutPlayerItemsAndExportSessions() async throws {
        let library = try TestLibrary(name: "VideoRequests")
        defer { library.remove() }
        let movie = library.scratch.appendingPathComponent("clip.mp4")
        try TestMedia.writeMovie(to: movie, width: 96, height: 64, seconds: 1.5, rotation: 90)
        let report = try library.library.importItems(at: [movie, try library.makeImage()])
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: report.importedLocalIdentifiers, options: library.options())
        let all = assets.objects(at: IndexSet(0..<assets.count))
        let video = try #require(all.first { $0.mediaType == .video })
        let still = try #require(all.first { $0.mediaType == .image })
        let manager = PHImageManager.default()

        let items = Mutex<[(AVPlayerItem?, PHPhotosError?)]>([])
        let done = DispatchSemaphore(value: 0)
        for asset in [video, still] {
            manager.requestPlayerItem(forVideo: asset, options: nil) { item, info in
                items.withLock { $0.append((item, ImageResultInfo(info).error)) }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 20) == .success)
        }
        let (item, noItem) = items.withLock { ($0[0], $0[1]) }
        #expect(item.0?.status == .readyToPlay && item.0?.presentationSize == CGSize(width: 64, height: 96))
        #expect(abs(CMTimeGetSeconds(item.0?.duration ?? .zero) - 1.5) < 0.1)
        #expect(noItem.0 == nil && noItem.1?.code == .requestNotSupportedForAsset)

        let sessions = Mutex<[(AVAssetExportSession?, PHPhotosError?)]>([])
        for preset in [AVAssetExportPresetPassthrough, "NoSuchPreset"] {
            manager.requestExportSession(forVideo: video, options: nil, exportPreset: preset) { session, info in
                sessions.withLock { $0.append((session, ImageResultInfo(info).error)) }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 20) == .success)
        }
        let (session, noSession) = sessions.withLock { ($0[0], $0[1]) }
        #expect(noSession.0 == nil && noSession.1?.code == .invalidResource)
        let exportSession = try #require(session.0)
        let output = library.scratch.appendingPathComponent("shared.mp4")
        try await exportSession.export(to: output, as: .mp4)
        #expect(exportSession.status == .completed)
        #expect(try TestMedia.probeStreams(output).first?.width == 96)
    }

    @Test func anIPhoneHEVCMovieExportsToH264() throws {
        guard let media = TestMedia.sharedMediaFolder else { return }
        let folder = try TestMedia.temporaryDirectory("export")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = media.appendingPathComponent("livephoto/IMG_4394.mov")
        let original = try TestMedia.probeStreams(source)
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPreset640x480))
        let output = folder.appendingPathComponent("small.mp4")
        #expect(Self.run(session, to: output, as: .mp4) == .completed, "\(String(describing: session.error))")
        let streams = try TestMedia.probeStreams(output)
        let video = try #require(streams.first { $0.codec_type == "video" })
        let sourceVideo = try #require(original.first { $0.codec_type == "video" })
        #expect(sourceVideo.codec_name == "hevc" && video.codec_name == "h264")
        #expect(max(video.width ?? 0, video.height ?? 0) == 640 && min(video.width ?? 0, video.height ?? 0) <= 480)
        #expect(video.rotation == sourceVideo.rotation)
        // The LPCM audio of a Live Photo movie cannot go into MPEG-4: it is re-encoded; the timed metadata is left out.
        #expect(original.filter { $0.codec_type == "audio" }.map(\.codec_name) == ["pcm_s16le"])
        #expect(streams.map(\.codec_type) == ["video", "audio"] && streams.last?.codec_name == "aac")
    }
}
