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
