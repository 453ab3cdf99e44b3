#if PHOTOKIT_COMPATIBILITY_TEST
    import Photos
    import CoreLocation
    import CoreMedia
#else
    import OpenPhotos
#endif
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

#if !PHOTOKIT_COMPATIBILITY_TEST
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
#endif
