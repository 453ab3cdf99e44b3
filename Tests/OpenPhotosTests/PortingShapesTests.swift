import OpenPhotos
import Testing

/// Shapes ported code uses that Linux lacks: Foundation through `import OpenPhotos` alone (this file imports nothing
/// else), `PHAssetCollection()`, CLLocation's course and speed, CoreMedia's time functions.
@Suite("Porting shapes")
struct PortingShapesTests {
    @Test func foundationComesWithTheImport() {
        let date = Date(timeIntervalSince1970: 0)
        let url = URL(fileURLWithPath: "/tmp/x.jpg")
        #expect(url.pathExtension == "jpg" && date.timeIntervalSince1970 == 0)
    }

    @Test func anEmptyAssetCollectionIsAPlaceholder() {
        let placeholder = PHAssetCollection()
        #expect(placeholder.localIdentifier == "")
        #expect(placeholder.localizedTitle == nil)
        #expect(placeholder.assetCollectionType == .album)
        #expect(placeholder.estimatedAssetCount == 0)
    }

    @Test func locationsCarryCourseAndSpeed() {
        let moving = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 48.85, longitude: 2.35), altitude: 35, horizontalAccuracy: 5,
            verticalAccuracy: 3, course: 90, courseAccuracy: 2, speed: 1.5, speedAccuracy: 0.5, timestamp: Date(timeIntervalSince1970: 0))
        #expect(moving.course == 90 && moving.courseAccuracy == 2 && moving.speed == 1.5 && moving.speedAccuracy == 0.5)
        let still = CLLocation(latitude: 1, longitude: 2)
        #expect(still.course == -1 && still.speed == -1 && still.courseAccuracy == -1 && still.speedAccuracy == -1)
        let short = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 0, longitude: 0), altitude: 0, horizontalAccuracy: 1, verticalAccuracy: 1,
            course: 180, speed: 3, timestamp: Date())
        #expect(short.course == 180 && short.speed == 3 && short.courseAccuracy == -1)
    }

    @Test func coreMediaTimeFunctions() {
        let half = CMTimeMake(value: 1, timescale: 2)
        let alsoHalf = CMTimeMake(value: 300, timescale: 600)
        #expect(CMTimeGetSeconds(half) == 0.5)
        #expect(CMTimeCompare(half, alsoHalf) == 0)
        #expect(CMTimeCompare(CMTimeMake(value: 1, timescale: 3), half) == -1)
        #expect(CMTimeCompare(half, CMTimeMake(value: 1, timescale: 3)) == 1)
        #expect(CMTimeCompare(CMTime.invalid, half) == 1)
        #expect(CMTimeGetSeconds(CMTimeAdd(half, CMTimeMakeWithSeconds(1.25, preferredTimescale: 600))) == 1.75)
        #expect(CMTimeGetSeconds(CMTimeSubtract(half, CMTimeMake(value: 1, timescale: 4))) == 0.25)
        #expect(!CMTime.invalid.isValid && CMTime.zero.isValid)
    }
}

import PhotosTesting

extension PortingShapesTests {
    /// `AVAsset(url:)` and its video track as apps read them: the stored size and the transform that shows it upright.
    @Test func videoTracksHaveTheirStoredSizeAndPreferredTransform() throws {
        let dir = try TestMedia.temporaryDirectory("tracks")
        defer { try? FileManager.default.removeItem(at: dir) }
        let movie = dir.appendingPathComponent("portrait.mov")
        try TestMedia.writeMovie(to: movie, width: 64, height: 48, seconds: 1, rotation: 90)
        let asset = AVAsset(url: movie)
        let track = try #require(asset.tracks(withMediaType: .video).first)
        #expect(asset.tracks(withMediaType: .audio).isEmpty)
        #expect(track.naturalSize == CGSize(width: 64, height: 48))
        // ffmpeg's display_rotation 90 turns the picture a quarter counter-clockwise (270° clockwise); an iPhone
        // portrait video is the other way, (a: 0, b: 1, c: -1, d: 0, tx: height, ty: 0).
        #expect(track.preferredTransform == CGAffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: 64))
        let shown = track.naturalSize.applying(track.preferredTransform)
        #expect(CGSize(width: abs(shown.width), height: abs(shown.height)) == CGSize(width: 48, height: 64))
        #expect(asset.naturalSize == CGSize(width: 48, height: 64))
        #expect(abs(CMTimeGetSeconds(asset.duration) - 1) < 0.1)
        // The transform maps the stored frame's corners into the displayed frame.
        #expect(CGPoint(x: 0, y: 0).applying(track.preferredTransform) == CGPoint(x: 0, y: 64))
        #expect(CGPoint(x: 64, y: 48).applying(track.preferredTransform) == CGPoint(x: 48, y: 0))
        #expect(track.preferredTransform.concatenating(track.preferredTransform.inverted()).isIdentity)
        #expect(AVAsset(url: dir.appendingPathComponent("missing.mov")).tracks.isEmpty)
    }

    /// An iPhone portrait video (the shared corpus' Live Photo movie, 1920 × 1440 stored, turned 90° clockwise):
    /// the transform AVFoundation gives it.
    @Test(.enabled(if: TestMedia.sharedMediaFolder != nil))
    func anIPhonePortraitVideoHasAVFoundationsTransform() throws {
        let movie = try #require(TestMedia.sharedMediaFolder).appendingPathComponent("livephoto/IMG_4394.mov")
        let track = try #require(AVURLAsset(url: movie).tracks(withMediaType: .video).first)
        #expect(track.naturalSize == CGSize(width: 1920, height: 1440))
        #expect(track.preferredTransform == CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 1440, ty: 0))
        #expect(CGPoint(x: 0, y: 0).applying(track.preferredTransform) == CGPoint(x: 1440, y: 0))
    }
}

import PhotosTesting
import UniformTypeIdentifiers

/// What ported editing code calls that Linux lacked: CoreMedia's arithmetic and ranges, iOS 15's `load(_:)`,
/// `CGVector`, `CIImage(image:)`, `URL.appendingPathExtension(for:)`.
@Suite("Porting shapes: editing code")
struct PortingEditingShapesTests {
    @Test func coreMediaArithmeticAndRanges() {
        let a = CMTime(value: 1, timescale: 2)
        let b = CMTime(value: 3, timescale: 4)
        #expect((a + b).seconds == 1.25 && (b - a).seconds == 0.25 && (a * Int32(3)).seconds == 1.5)
        #expect((CMTime(value: 600, timescale: 600) * Float64(0.25)) == CMTime(value: 150, timescale: 600))
        #expect(a == CMTime(value: 300, timescale: 600) && Set([a, CMTime(value: 2, timescale: 4)]).count == 1)
        #expect(CMTimeConvertScale(CMTime(value: 1, timescale: 3), timescale: 600, method: .default).value == 200)
        let first = CMTimeRange(start: CMTime(value: 1, timescale: 1), end: CMTime(value: 5, timescale: 1))
        #expect(first.duration.seconds == 4 && first.end.seconds == 5)
        let second = CMTimeRange(start: CMTime(value: 3, timescale: 1), duration: CMTime(value: 10, timescale: 1))
        let both = first.intersection(second)
        #expect(both.start.seconds == 3 && both.end.seconds == 5 && !both.isEmpty)
        let apart = first.intersection(CMTimeRange(start: CMTime(value: 9, timescale: 1), duration: CMTime(value: 1, timescale: 1)))
        #expect(apart.isEmpty && apart.start.seconds == 9)
        #expect(first.union(second).end.seconds == 13)
        #expect(first.containsTime(CMTime(value: 1, timescale: 1)) && !first.containsTime(CMTime(value: 5, timescale: 1)))
        #expect(CMTimeRange.invalid.intersection(first) == .invalid && !CMTimeRange.invalid.isValid)
    }

    @Test func assetsAndTracksLoadAsynchronously() async throws {
        let dir = try TestMedia.temporaryDirectory("load")
        defer { try? FileManager.default.removeItem(at: dir) }
        let movie = dir.appendingPathComponent("m.mov")
        try TestMedia.writeMovie(to: movie, width: 64, height: 48, seconds: 2, rotation: 90)
        let asset = AVURLAsset(url: movie)
        let (duration, tracks, playable) = try await asset.load(.duration, .tracks, .isPlayable)
        #expect(abs(duration.seconds - 2) < 0.1 && tracks.count == 1 && playable)
        let (size, transform) = try await tracks[0].load(.naturalSize, .preferredTransform)
        #expect(size == CGSize(width: 64, height: 48) && abs(transform.b) == 1 && transform.a == 0, "a quarter turn: \(transform)")
        let (range, upright) = try await ClipTrimmerProbe.middle(of: asset, seconds: 1)
        #expect(abs(range.start.seconds - 0.5) < 0.05 && abs(range.duration.seconds - 1) < 0.05)
        #expect(upright == CGSize(width: 48, height: 64))
    }

    /// A composition as clip editors build it: one range of a file, turned by the video track's transform; the
    /// whole file with its sound; insertions that split a segment; what cannot be exported says why.
    @Test func aCompositionTrimsAndTurnsAClip() async throws {
        let dir = try TestMedia.temporaryDirectory("composition")
        defer { try? FileManager.default.removeItem(at: dir) }
        let movie = dir.appendingPathComponent("clip.mov")
        try TestMedia.writeMovie(to: movie, width: 64, height: 48, seconds: 3, audio: true)
        let asset = AVURLAsset(url: movie)
        #expect(asset.tracks.map(\.mediaType) == [.video, .audio])
        let sourceVideo = try #require(asset.tracks(withMediaType: .video).first)
        func time(_ seconds: Double) -> CMTime { CMTime(seconds: seconds, preferredTimescale: 600) }

        let composition = AVMutableComposition()
        let video = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        try video.insertTimeRange(CMTimeRange(start: time(1), duration: time(1)), of: sourceVideo, at: .zero)
        #expect(video.preferredTransform.isIdentity)  // not the source's: the app sets it
        video.preferredTransform = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 48, ty: 0)
        #expect(composition.duration == time(1) && video.naturalSize == CGSize(width: 64, height: 48))
        #expect(composition.naturalSize == CGSize(width: 48, height: 64))
        #expect(
            video.segments.map(\.timeMapping) == [
                CMTimeMapping(source: CMTimeRange(start: time(1), duration: time(1)), target: CMTimeRange(start: .zero, duration: time(1)))
            ])
        let session = try #require(AVAssetExportSession(asset: composition, presetName: AVAssetExportPresetPassthrough))
        let turned = dir.appendingPathComponent("turned.mov")
        try await session.export(to: turned, as: .mov)
        let written = AVURLAsset(url: turned)
        #expect(abs(written.duration.seconds - 1) < 0.1, "\(written.duration.seconds)")
        #expect(written.tracks(withMediaType: .audio).isEmpty)  // no audio track was inserted
        #expect(written.tracks(withMediaType: .video).first?.preferredTransform == video.preferredTransform)
        #expect(written.naturalSize == CGSize(width: 48, height: 64))

        // The whole file: video and audio, displayed as stored (the identity).
        let whole = AVMutableComposition()
        try whole.insertTimeRange(CMTimeRange(start: .zero, duration: asset.duration), of: asset, at: .zero)
        #expect(whole.tracks.map(\.mediaType) == [.video, .audio] && whole.tracks.map(\.trackID) == [1, 2])
        let copy = dir.appendingPathComponent("whole.mp4")
        try await #require(AVAssetExportSession(asset: whole, presetName: AVAssetExportPresetLowQuality)).export(to: copy, as: .mp4)
        let copied = AVURLAsset(url: copy)
        #expect(copied.tracks.map(\.mediaType) == [.video, .audio] && abs(copied.duration.seconds - 3) < 0.15)

        // An insertion inside a segment splits it; such a composition is not exported here, and says why.
        let wholeVideo = try #require(whole.tracks(withMediaType: .video).first as? AVMutableCompositionTrack)
        try wholeVideo.insertTimeRange(CMTimeRange(start: .zero, duration: time(0.5)), of: sourceVideo, at: time(1))
        #expect(
            wholeVideo.segments.map(\.timeMapping.target) == [
                CMTimeRange(start: .zero, duration: time(1)), CMTimeRange(start: time(1), duration: time(0.5)),
                CMTimeRange(start: time(1.5), duration: time(2)),
            ])
        #expect(wholeVideo.segments.map(\.timeMapping.source.start) == [.zero, .zero, time(1)])
        #expect(whole.duration == time(3.5) && AVAssetExportSession.exportPresets(compatibleWith: whole).isEmpty)
        let refused = try #require(AVAssetExportSession(asset: whole, presetName: AVAssetExportPresetLowQuality))
        await #expect(throws: AVError.self) { try await refused.export(to: dir.appendingPathComponent("no.mp4"), as: .mp4) }
        #expect((refused.error as? AVError)?.code == .operationNotSupportedForAsset)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("no.mp4").path))
        // A track of no file, or of another media type, cannot be inserted.
        let audio = try #require(whole.tracks(withMediaType: .audio).first as? AVMutableCompositionTrack)
        #expect(throws: AVError.self) { try audio.insertTimeRange(CMTimeRange(start: .zero, duration: time(1)), of: sourceVideo, at: .zero) }
        #expect(composition.addMutableTrack(withMediaType: .text, preferredTrackID: 9) == nil)
    }

    @Test func vectorsImagesAndFileNames() throws {
        #expect(CGVector(dx: 3, dy: 4) == CGVector(dx: 3.0, dy: 4.0) && CGVector.zero.dx == 0)
        let url = URL(fileURLWithPath: "/tmp/photo")
        #expect(url.appendingPathExtension(for: .jpeg).lastPathComponent == "photo.jpeg")
        #expect(URL(fileURLWithPath: "/tmp/photo.JPG").appendingPathExtension(for: .jpeg).lastPathComponent == "photo.JPG")
        #expect(URL(fileURLWithPath: "/tmp/photo.png").appendingPathExtension(for: .jpeg).lastPathComponent == "photo.png.jpeg")
        let dir = try TestMedia.temporaryDirectory("ciimage-image")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("p.jpg")
        try TestMedia.writeImage(to: file, width: 40, height: 30, orientation: 6)
        let picked = try #require(UIImage(contentsOfFile: file.path))
        // Apple's CIImage(image:options:) gives the stored pixels, not turned by imageOrientation.
        let image = try #require(CIImage(image: picked, options: [.colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!]))
        #expect(image.extent.size == CGSize(width: 40, height: 30) && picked.size == CGSize(width: 30, height: 40))
    }
}

/// The ported app's code (Compatibility/PortedApp's ClipTrimmer), run here through the same calls.
enum ClipTrimmerProbe {
    static func middle(of asset: AVAsset, seconds: Double) async throws -> (CMTimeRange, CGSize) {
        let duration = try await asset.load(.duration)
        guard let track = try await asset.loadTracks(withMediaType: .video).first else { return (.zero, .zero) }
        let (natural, transform) = try await track.load(.naturalSize, .preferredTransform)
        let wanted = CMTime(seconds: seconds, preferredTimescale: 600)
        let start = CMTimeMaximum(.zero, CMTimeMultiplyByFloat64(duration - wanted, multiplier: 0.5))
        let range = CMTimeRange(start: start, end: start + wanted).intersection(try await track.load(.timeRange))
        let upright = natural.applying(transform)
        return (range, CGSize(width: abs(upright.width), height: abs(upright.height)))
    }
}
