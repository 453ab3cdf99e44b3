import OpenPhotos
import Foundation
import PhotoMedia
import PhotosTesting
import Testing

/// PHImageManager: exact sizes, display orientation, crops, delivery sequences, cancellation and errors.
@Suite("Image manager")
struct ImageManagerTests {
    /// Imports marker images (displayed 400 × 300, red top-left, green top-right, blue bottom-left) stored with each
    /// EXIF orientation; returns the assets by orientation.
    static func markerAssets(_ library: TestLibrary, width: Int = 400, height: Int = 300) throws -> [Int: PHAsset] {
        var files: [URL] = []
        for orientation in 1...8 {
            let file = library.scratch.appendingPathComponent("marker-\(orientation).jpg")
            try TestMedia.writeMarkerImage(to: file.path, width: width, height: height, orientation: orientation)
            files.append(file)
        }
        let report = try library.library.importItems(at: files)
        #expect(report.failures.isEmpty, "\(report.failures)")
        var assets: [Int: PHAsset] = [:]
        for asset in PHAsset.fetchAssets(withLocalIdentifiers: report.importedLocalIdentifiers, options: library.options()) {
            let name = PHAssetResource.assetResources(for: asset).first?.originalFilename ?? ""
            if let n = Int(name.dropFirst("marker-".count).prefix(1)) { assets[n] = asset }
        }
        return assets
    }

    /// Requests synchronously (one call) and returns the image.
    static func image(_ asset: PHAsset, _ size: CGSize, _ mode: PHImageContentMode, _ configure: (PHImageRequestOptions) -> Void = { _ in }) -> (
        UIImage?, [AnyHashable: Any]?
    ) {
        let options = PHImageRequestOptions()
        options.isSynchronous = true
        configure(options)
        var result: (UIImage?, [AnyHashable: Any]?) = (nil, nil)
        var calls = 0
        PHImageManager.default().requestImage(for: asset, targetSize: size, contentMode: mode, options: options) {
            result = ($0, $1)
            calls += 1
        }
        #expect(calls == 1)
        return result
    }

    static func isColour(_ pixel: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)?, _ r: Bool, _ g: Bool, _ b: Bool) -> Bool {
        guard let pixel else { return false }
        // JPEG's chroma subsampling bleeds saturated colours a little: the wanted channels stay high, the others low.
        func on(_ v: UInt8, _ want: Bool) -> Bool { want ? v > 180 : v < 130 }
        return on(pixel.red, r) && on(pixel.green, g) && on(pixel.blue, b)
    }

    @Test func everyContentModeAndResizeModeGivesItsSizeUprightForEveryOrientation() throws {
        let library = try TestLibrary(name: "ImageSizes")
        defer { library.remove() }
        let assets = try Self.markerAssets(library)
        #expect(assets.count == 8)
        let cases: [(PHImageContentMode, PHImageRequestOptionsResizeMode, CGSize, Int, Int)] = [
            (.aspectFit, .exact, CGSize(width: 100, height: 100), 100, 75),
            (.aspectFit, .fast, CGSize(width: 100, height: 100), 100, 75),
            (.aspectFill, .exact, CGSize(width: 100, height: 100), 100, 100),
            (.aspectFill, .fast, CGSize(width: 100, height: 100), 133, 100),
            (.aspectFit, .none, CGSize(width: 100, height: 100), 400, 300),
            (.aspectFill, .exact, CGSize(width: 200, height: 50), 200, 50),
            (.aspectFit, .exact, CGSize(width: 1000, height: 1000), 400, 300),  // never enlarged
            (.default, .fast, PHImageManagerMaximumSize, 400, 300),
        ]
        for (orientation, asset) in assets.sorted(by: { $0.key < $1.key }) {
            #expect(asset.pixelWidth == 400 && asset.pixelHeight == 300, "orientation \(orientation)")
            for (mode, resize, size, width, height) in cases {
                let (image, info) = Self.image(asset, size, mode) { $0.resizeMode = resize }
                let label = "orientation \(orientation), \(mode) \(resize) \(size)"
                let result = try #require(image, "\(label): \(String(describing: info))")
                #expect(result.size == CGSize(width: width, height: height), "\(label)")
                #expect(ImageResultInfo(info).isDegraded == false)
                // Display orientation: the red marker is top left, green top right, blue bottom left (the 200 × 50
                // strip of aspectFill is the image's middle, where there is no marker).
                if height == 50 { continue }
                #expect(
                    Self.isColour(result.pixel(x: 1, y: 1), true, false, false), "\(label): top left \(String(describing: result.pixel(x: 1, y: 1)))")
                #expect(Self.isColour(result.pixel(x: width - 2, y: 1), false, true, false), "\(label): top right")
                #expect(Self.isColour(result.pixel(x: 1, y: height - 2), false, false, true), "\(label): bottom left")
            }
        }
    }

    @Test func cropsAreInUnitCoordinatesOfTheDisplayedImage() throws {
        let library = try TestLibrary(name: "ImageCrop")
        defer { library.remove() }
        let assets = try Self.markerAssets(library)
        for orientation in [1, 6] {
            let asset = try #require(assets[orientation])
            // The top-left quarter: red at its top left, grey at its bottom right (the image's centre).
            let (image, info) = Self.image(asset, CGSize(width: 100, height: 100), .aspectFit) {
                $0.resizeMode = .exact
                $0.normalizedCropRect = CGRect(x: 0, y: 0, width: 0.5, height: 0.5)
            }
            let cropped = try #require(image, "\(String(describing: info))")
            #expect(cropped.size == CGSize(width: 100, height: 75))
            #expect(Self.isColour(cropped.pixel(x: 1, y: 1), true, false, false))
            let centre = try #require(cropped.pixel(x: 98, y: 73))
            #expect(abs(Int(centre.red) - 128) < 30 && abs(Int(centre.green) - 128) < 30 && abs(Int(centre.blue) - 128) < 30)
            // aspectFill with a crop fills the target exactly.
            let (filled, _) = Self.image(asset, CGSize(width: 60, height: 60), .aspectFill) {
                $0.resizeMode = .exact
                $0.normalizedCropRect = CGRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5)
            }
            #expect(filled?.size == CGSize(width: 60, height: 60))
        }
    }

    @Test func badRequestsGetATypedErrorNotAnImage() throws {
        let library = try TestLibrary(name: "ImageErrors")
        defer { library.remove() }
        let asset = try #require(try Self.markerAssets(library)[1])
        let requests: [(CGSize, (PHImageRequestOptions) -> Void)] = [
            (CGSize(width: 0, height: 100), { _ in }),
            (CGSize(width: -5, height: -5), { _ in }),
            (
                CGSize(width: 100, height: 100),
                {
                    $0.resizeMode = .exact; $0.normalizedCropRect = CGRect(x: 0.8, y: 0, width: 0.5, height: 0.5)
                }
            ),
            (CGSize(width: 100, height: 100), { $0.normalizedCropRect = CGRect(x: 0, y: 0, width: 0.5, height: 0.5) }),  // needs .exact
        ]
        for (size, configure) in requests {
            let (image, info) = Self.image(asset, size, .aspectFit, configure)
            #expect(image == nil)
            #expect(ImageResultInfo(info).error?.code == .invalidResource)
        }
        // A missing original, for an image only it can give (renderings cached before it went still answer the sizes
        // they are, as a thumbnail of an original in the cloud does).
        try FileManager.default.removeItem(at: try #require(PHAssetResource.assetResources(for: asset).first?.fileURL))
        let (image, info) = Self.image(asset, PHImageManagerMaximumSize, .aspectFit)
        #expect(image == nil && ImageResultInfo(info).error?.code == .missingResource, "\(info)")
    }

    final class Deliveries: @unchecked Sendable {
        let lock = NSLock()
        var results: [(size: CGSize?, degraded: Bool, id: PHImageRequestID, main: Bool)] = []
        let arrived = DispatchSemaphore(value: 0)

        func record(_ image: UIImage?, _ info: [AnyHashable: Any]?) {
            let typed = ImageResultInfo(info)
            lock.withLock { results.append((image?.size, typed.isDegraded, typed.requestID, Thread.isMainThread)) }
            arrived.signal()
        }

        func wait(_ count: Int) -> Bool {
            for _ in 0..<count where arrived.wait(timeout: .now() + 20) != .success { return false }
            return true
        }
    }

    @Test func deliveryModesGiveTheirSequences() throws {
        let library = try TestLibrary(name: "ImageDelivery")
        defer { library.remove() }
        let asset = try #require(try Self.markerAssets(library, width: 2000, height: 1500)[6])
        let manager = PHImageManager()
        let target = CGSize(width: 1200, height: 1200)

        // Opportunistic: a degraded image first, then the final one, both with the request ID, never on main.
        let opportunistic = Deliveries()
        let id = manager.requestImage(for: asset, targetSize: target, contentMode: .aspectFit, options: nil, resultHandler: opportunistic.record)
        #expect(id != PHInvalidImageRequestID)
        #expect(opportunistic.wait(2))
        #expect(opportunistic.results.map(\.degraded) == [true, false])
        #expect(opportunistic.results.allSatisfy { $0.id == id && !$0.main })
        #expect(opportunistic.results.last?.size == CGSize(width: 1200, height: 900))
        #expect((opportunistic.results.first?.size?.width ?? 0) < 1200)

        // High quality and fast: one call each.
        for mode in [PHImageRequestOptionsDeliveryMode.highQualityFormat, .fastFormat] {
            let once = Deliveries()
            let options = PHImageRequestOptions()
            options.deliveryMode = mode
            manager.requestImage(for: asset, targetSize: target, contentMode: .aspectFit, options: options, resultHandler: once.record)
            #expect(once.wait(1))
            #expect(once.arrived.wait(timeout: .now() + 0.5) == .timedOut, "\(mode): a second call")
            #expect(once.results.map(\.degraded) == [false])
        }

        // Synchronous with opportunistic: exactly one call, on the calling thread, before the method returns.
        let options = PHImageRequestOptions()
        options.isSynchronous = true
        var calls: [Bool] = []
        manager.requestImage(for: asset, targetSize: target, contentMode: .aspectFit, options: options) { image, info in
            calls.append(ImageResultInfo(info).isDegraded)
            #expect(image?.size == CGSize(width: 1200, height: 900))
        }
        #expect(calls == [false])
    }

    @Test func aCancelledRequestNeverDeliversItsFinalImage() throws {
        let library = try TestLibrary(name: "ImageCancel")
        defer { library.remove() }
        let asset = try #require(try Self.markerAssets(library, width: 2000, height: 1500)[1])
        let manager = PHImageManager()
        // Cancelled while it works: from the degraded result's handler.
        let deliveries = Deliveries()
        let requestID = NSLock()
        var id: PHImageRequestID = 0
        requestID.lock()
        id = manager.requestImage(for: asset, targetSize: CGSize(width: 1500, height: 1500), contentMode: .aspectFit, options: nil) {
            image, info in
            deliveries.record(image, info)
            requestID.lock()
            manager.cancelImageRequest(id)
            requestID.unlock()
        }
        requestID.unlock()
        #expect(deliveries.wait(1))
        #expect(deliveries.arrived.wait(timeout: .now() + 1.5) == .timedOut)
        #expect(deliveries.results.map(\.degraded) == [true])

        // (A cancel right after the request returns races the pool on a loaded machine; the case above is the
        // guarantee: once cancelImageRequest returns, no final image is delivered.)
    }

    static func deprecatedImageData(_ asset: PHAsset, _ options: PHImageRequestOptions, _ check: (Data?, String?, UIImage.Orientation) -> Void) {
        withoutActuallyEscaping(check) { check in
            nonisolated(unsafe) let check = check
            (PHImageManager.default() as any DeprecatedImageDataRequests).requestImageData(for: asset, options: options) {
                data, type, orientation, _ in check(data, type, orientation)
            }
        }
    }

    @Test func imageDataComesWithItsTypeAndOrientation() async throws {
        let library = try TestLibrary(name: "ImageData")
        defer { library.remove() }
        let asset = try #require(try Self.markerAssets(library)[6])
        let original = try Data(contentsOf: try #require(PHAssetResource.assetResources(for: asset).first?.fileURL))
        let options = PHImageRequestOptions()
        options.isSynchronous = true
        var calls = 0
        PHImageManager.default().requestImageDataAndOrientation(for: asset, options: options) { data, type, orientation, info in
            calls += 1
            #expect(data == original)
            #expect(type == "public.jpeg")
            #expect(orientation == .right)
            #expect(ImageResultInfo(info).error == nil)
        }
        #expect(calls == 1)
        // The iOS 8 form gives UIKit's orientation for the same bytes.
        Self.deprecatedImageData(asset, options) { data, type, orientation in
            calls += 1
            #expect(data == original && type == "public.jpeg" && orientation == .right)
        }
        #expect(calls == 2)
        // The async variant returns the final image only.
        let image = try await PHImageManager.default().requestImage(for: asset, targetSize: CGSize(width: 80, height: 80), contentMode: .aspectFill)
        #expect(image.size == CGSize(width: 107, height: 80))  // resizeMode .fast by default: filled, not cropped
    }
}

/// Calls the deprecated iOS 8 image-data request without a deprecation warning (tests build warning-free).
protocol DeprecatedImageDataRequests {
    @discardableResult
    func requestImageData(
        for asset: PHAsset, options: PHImageRequestOptions?,
        resultHandler: @escaping (Data?, String?, UIImage.Orientation, [AnyHashable: Any]?) -> Void
    ) -> PHImageRequestID
}

extension PHImageManager: DeprecatedImageDataRequests {}

@Suite("Caching image manager")
struct CachingImageManagerTests {
    @Test func preparedImagesAreAnsweredOnceFromMemoryAndKeptInTheLibrary() throws {
        let library = try TestLibrary(name: "Caching")
        defer { library.remove() }
        let assets = try ImageManagerTests.markerAssets(library, width: 2000, height: 1500)
        let grid = [1, 3, 6].compactMap { assets[$0] }
        let manager = PHCachingImageManager()
        let size = CGSize(width: 600, height: 600)
        manager.startCachingImages(for: grid, targetSize: size, contentMode: .aspectFill, options: nil)
        manager.waitForCaching()
        #expect(manager.cachedByteCount == 3 * 800 * 600 * 3)  // aspectFill, resizeMode .fast: 800 × 600, RGB

        // Same size, mode and options: one call, the final image, no degraded one first.
        let deliveries = ImageManagerTests.Deliveries()
        manager.requestImage(for: grid[1], targetSize: size, contentMode: .aspectFill, options: nil, resultHandler: deliveries.record)
        #expect(deliveries.wait(1))
        #expect(deliveries.arrived.wait(timeout: .now() + 0.5) == .timedOut)
        #expect(deliveries.results.map(\.degraded) == [false])
        #expect(deliveries.results.first?.size == CGSize(width: 800, height: 600))

        // Kept in the library under the asset: another manager finds the same pixels on disk.
        let uuid = String(grid[0].localIdentifier.prefix { $0 != "/" })
        let folder = library.url.appendingPathComponent("resources/derivatives/\(uuid.prefix(1))/\(uuid)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
        let options = PHImageRequestOptions()
        options.isSynchronous = true
        var fromDisk: UIImage?
        PHCachingImageManager().requestImage(for: grid[0], targetSize: size, contentMode: .aspectFill, options: options) { image, _ in
            fromDisk = image
        }
        #expect(fromDisk?.size == CGSize(width: 800, height: 600))
        #expect(ImageManagerTests.isColour(fromDisk?.pixel(x: 1, y: 1), true, false, false))

        // Stopping drops them from memory; deleting the asset for good removes its renderings.
        manager.stopCachingImages(for: [grid[2]], targetSize: size, contentMode: .aspectFill, options: nil)
        #expect(manager.cachedByteCount == 2 * 800 * 600 * 3)
        manager.stopCachingImagesForAllAssets()
        #expect(manager.cachedByteCount == 0)
        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([grid[0]] as NSArray) }
        let trashed = try #require(
            PHAsset.fetchAssets(withLocalIdentifiers: [grid[0].localIdentifier], options: library.options()).firstObject ?? grid.first)
        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([trashed] as NSArray) }
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test func concurrentRequestsForTheSameImageAllGetIt() throws {
        let library = try TestLibrary(name: "CachingShared")
        defer { library.remove() }
        let asset = try #require(try ImageManagerTests.markerAssets(library, width: 2000, height: 1500)[1])
        let manager = PHImageManager()
        let options = PHImageRequestOptions()
        options.deliveryMode = .highQualityFormat
        let deliveries = ImageManagerTests.Deliveries()
        for _ in 0..<6 {
            manager.requestImage(
                for: asset, targetSize: CGSize(width: 300, height: 300), contentMode: .aspectFit, options: options, resultHandler: deliveries.record)
        }
        #expect(deliveries.wait(6))
        #expect(Set(deliveries.results.map(\.id)).count == 6)
        #expect(deliveries.results.allSatisfy { $0.size == CGSize(width: 300, height: 225) && !$0.degraded })
    }
}

@Suite("UIImage stand-in")
struct UIImageTests {
    @Test func anImageFromEncodedDataShowsItsPixelsUpright() throws {
        let folder = try TestMedia.temporaryDirectory("uiimage")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("marker.jpg")
        try TestMedia.writeMarkerImage(to: file.path, width: 80, height: 60, orientation: 8)
        let image = try #require(UIImage(contentsOfFile: file.path))
        #expect(image.size == CGSize(width: 80, height: 60))
        #expect(image.imageOrientation == .left)
        #expect(ImageManagerTests.isColour(image.pixel(x: 1, y: 1), true, false, false))
        #expect(ImageManagerTests.isColour(image.pixel(x: 78, y: 1), false, true, false))
        #expect(image.pixel(x: 80, y: 0) == nil)
        // Re-encoded as PNG, the orientation is in the pixels.
        let png = try #require(image.pngData().flatMap { UIImage(data: $0) })
        #expect(png.imageOrientation == .up && png.size == CGSize(width: 80, height: 60))
        #expect(image.webpData(compressionQuality: 0.8).map { $0.starts(with: Array("RIFF".utf8)) } == true)
    }
}

@Suite("Video poster frames")
struct PosterFrameTests {
    @Test func aVideoGivesItsFirstFrameUprightAtTheAskedSize() throws {
        let library = try TestLibrary(name: "Poster")
        defer { library.remove() }
        let movie = library.scratch.appendingPathComponent("clip.mov")
        try TestMedia.writeMovie(to: movie, width: 160, height: 120, seconds: 0.5, rotation: 90)
        let report = try library.library.importItems(at: [movie])
        let video = try #require(PHAsset.fetchAssets(withLocalIdentifiers: report.importedLocalIdentifiers, options: library.options()).firstObject)
        #expect(video.mediaType == .video && video.pixelWidth == 120 && video.pixelHeight == 160)
        let (full, _) = ImageManagerTests.image(video, PHImageManagerMaximumSize, .default)
        #expect(full?.size == CGSize(width: 120, height: 160))
        let (fitted, _) = ImageManagerTests.image(video, CGSize(width: 60, height: 60), .aspectFit) { $0.resizeMode = .exact }
        #expect(fitted?.size == CGSize(width: 45, height: 60))
        let (filled, _) = ImageManagerTests.image(video, CGSize(width: 40, height: 40), .aspectFill) { $0.resizeMode = .exact }
        #expect(filled?.size == CGSize(width: 40, height: 40))
        // A crop of the displayed frame: its right half at 1:1 is the full frame's right half, pixel for pixel.
        let (half, halfInfo) = ImageManagerTests.image(video, CGSize(width: 60, height: 160), .aspectFit) {
            $0.resizeMode = .exact
            $0.normalizedCropRect = CGRect(x: 0.5, y: 0, width: 0.5, height: 1)
        }
        #expect(half?.size == CGSize(width: 60, height: 160), "\(halfInfo)")
        for (x, y) in [(0, 0), (10, 40), (59, 159), (30, 100)] {
            let a = try #require(half?.pixel(x: x, y: y))
            let b = try #require(full?.pixel(x: 60 + x, y: y))
            #expect([a.red, a.green, a.blue] == [b.red, b.green, b.blue], "(\(x), \(y))")
        }
        let (scaledHalf, _) = ImageManagerTests.image(video, CGSize(width: 30, height: 30), .aspectFill) {
            $0.resizeMode = .exact
            $0.normalizedCropRect = CGRect(x: 0.5, y: 0, width: 0.5, height: 1)
        }
        #expect(scaledHalf?.size == CGSize(width: 30, height: 30))
        // Image data is for photos.
        let options = PHImageRequestOptions()
        options.isSynchronous = true
        var code: PHPhotosError.Code?
        PHImageManager.default().requestImageDataAndOrientation(for: video, options: options) { _, _, _, info in
            code = ImageResultInfo(info).error?.code
        }
        #expect(code == .requestNotSupportedForAsset)
    }
}

@Suite("Live Photos")
struct LivePhotoTests {
    final class Calls: @unchecked Sendable {
        let lock = NSLock()
        var results: [(photo: PHLivePhoto?, info: [AnyHashable: Any])] = []
        let arrived = DispatchSemaphore(value: 0)
        func record(_ photo: PHLivePhoto?, _ info: [AnyHashable: Any]?) {
            lock.withLock { results.append((photo, info ?? [:])) }
            arrived.signal()
        }
        func wait(_ n: Int) -> Bool {
            for _ in 0..<n where arrived.wait(timeout: .now() + 20) != .success { return false }
            return true
        }
    }

    /// A still and a video that share a content identifier (or not).
    static func pair(_ folder: URL, still: String, video: String) throws -> (URL, URL) {
        let photo = folder.appendingPathComponent("IMG_1.JPG")
        let movie = folder.appendingPathComponent("IMG_1.MOV")
        try TestMedia.writeJPEG(
            to: photo, width: 400, height: 300, exif: TestEXIF(dateTimeOriginal: "2024:03:03 10:00:00", appleContentIdentifier: still))
        try TestMedia.writeMovie(to: movie, seconds: 0.5, keys: ["com.apple.quicktime.content.identifier": video])
        return (photo, movie)
    }

    @Test func resourceFilesWithTheSameIdentifierMakeALivePhotoInTwoSteps() throws {
        let folder = try TestMedia.temporaryDirectory("live")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (photo, movie) = try Self.pair(folder, still: "ID-1", video: "ID-1")
        let placeholder = try #require(UIImage(contentsOfFile: photo.path))
        let calls = Calls()
        PHLivePhoto.request(
            withResourceFileURLs: [movie, photo], placeholderImage: placeholder, targetSize: CGSize(width: 100, height: 100),
            contentMode: .aspectFit, resultHandler: calls.record)
        // With a placeholder, the first call came before request returned.
        #expect(calls.results.count == 1)
        #expect(calls.results.first?.info[PHLivePhotoInfoIsDegradedKey] as? Bool == true)
        #expect(calls.wait(3))
        let sizes = calls.results.map { $0.photo?.size }
        #expect(sizes == [CGSize(width: 400, height: 300), CGSize(width: 100, height: 75), CGSize(width: 100, height: 75)])
        #expect(calls.results.map { $0.info[PHLivePhotoInfoIsDegradedKey] as? Bool } == [true, true, false])
        #expect(calls.results.last?.photo.map { "\($0)" }?.contains("still only") == false)
    }

    @Test func filesWithDifferentIdentifiersAreRefused() throws {
        let folder = try TestMedia.temporaryDirectory("live-mismatch")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (photo, movie) = try Self.pair(folder, still: "ID-1", video: "ID-2")
        let calls = Calls()
        PHLivePhoto.request(
            withResourceFileURLs: [photo, movie], placeholderImage: nil, targetSize: .zero, contentMode: .aspectFit, resultHandler: calls.record)
        #expect(calls.wait(1))
        #expect(calls.results.count == 1 && calls.results[0].photo == nil)
        #expect((calls.results[0].info[PHLivePhotoInfoErrorKey] as? PHPhotosError)?.code == .invalidResource)
    }

    @Test func aCancelledRequestIsToldSo() throws {
        let folder = try TestMedia.temporaryDirectory("live-cancel")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (photo, movie) = try Self.pair(folder, still: "ID-1", video: "ID-1")
        // A cancel that comes after the request has delivered does nothing (on a loaded machine the work can finish
        // before this thread runs again): each attempt must be one or the other, never both, and the cancelled
        // path must be seen.
        var sawCancellation = false
        for _ in 0..<20 where !sawCancellation {
            let calls = Calls()
            let id = PHLivePhoto.request(
                withResourceFileURLs: [photo, movie], placeholderImage: nil, targetSize: .zero, contentMode: .aspectFit,
                resultHandler: calls.record)
            PHLivePhoto.cancelRequest(withRequestID: id)
            #expect(calls.wait(1))
            while calls.arrived.wait(timeout: .now() + 0.5) == .success {}
            let results = calls.lock.withLock { calls.results }
            if results.last?.info[PHLivePhotoInfoCancelledKey] as? Bool == true {
                sawCancellation = true
                #expect(results.last?.photo == nil)
                #expect(!results.contains { $0.info[PHLivePhotoInfoIsDegradedKey] as? Bool == false }, "a complete result and a cancel")
            } else {
                // Delivered before the cancel: the degraded and the complete Live Photo, nothing after.
                #expect(results.map { $0.info[PHLivePhotoInfoIsDegradedKey] as? Bool } == [true, false])
            }
        }
        #expect(sawCancellation)
    }

    @Test func aLivePhotoAssetIsRequestedAsALivePhotoAndOthersAreRefused() throws {
        let library = try TestLibrary(name: "LiveAsset")
        defer { library.remove() }
        let (photo, movie) = try Self.pair(library.scratch, still: "ID-9", video: "ID-9")
        let other = library.scratch.appendingPathComponent("plain.jpg")
        try TestMedia.writeImage(to: other, width: 50, height: 40)
        let report = try library.library.importItems(at: [photo, movie, other])
        #expect(report.livePhotosPaired == 1)
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: report.importedLocalIdentifiers, options: library.options())
        let live = try #require(assets.objects(at: IndexSet(0..<assets.count)).first { $0.mediaSubtypes.contains(.photoLive) })
        let plain = try #require(assets.objects(at: IndexSet(0..<assets.count)).first { !$0.mediaSubtypes.contains(.photoLive) })
        let calls = Calls()
        PHImageManager.default().requestLivePhoto(for: live, targetSize: CGSize(width: 200, height: 200), contentMode: .aspectFill, options: nil) {
            calls.record($0, $1)
        }
        #expect(calls.wait(2))
        #expect(calls.results.map { ImageResultInfo($0.info).isDegraded } == [true, false])
        let result = try #require(calls.results.last?.photo)
        #expect(result.size == CGSize(width: 200, height: 200))
        #expect(PHAssetResource.assetResources(for: result).map(\.type).sorted { $0.rawValue < $1.rawValue } == [.photo, .pairedVideo])

        let refused = Calls()
        PHImageManager.default().requestLivePhoto(for: plain, targetSize: .zero, contentMode: .aspectFit, options: nil) { refused.record($0, $1) }
        #expect(refused.wait(1))
        #expect(refused.results.first?.photo == nil)
        #expect(ImageResultInfo(refused.results.first?.info).error?.code == .requestNotSupportedForAsset)
    }
}

@Suite("Video requests")
struct VideoRequestTests {
    @Test func aVideoAssetComesAsAnAVAssetWithItsDurationAndSize() throws {
        let library = try TestLibrary(name: "AVAsset")
        defer { library.remove() }
        let movie = library.scratch.appendingPathComponent("clip.mp4")
        try TestMedia.writeMovie(to: movie, width: 96, height: 64, seconds: 1.5, rotation: 90)
        let photo = try library.makeImage()
        let report = try library.library.importItems(at: [movie, photo])
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: report.importedLocalIdentifiers, options: library.options())
        let video = try #require(assets.objects(at: IndexSet(0..<assets.count)).first { $0.mediaType == .video })
        let still = try #require(assets.objects(at: IndexSet(0..<assets.count)).first { $0.mediaType == .image })
        let done = DispatchSemaphore(value: 0)
        let results = NSLock()
        var delivered: [(AVAsset?, PHPhotosError?)] = []
        for asset in [video, still] {
            PHImageManager.default().requestAVAsset(forVideo: asset, options: nil) { avAsset, _, info in
                results.withLock { delivered.append((avAsset, ImageResultInfo(info).error)) }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 20) == .success)
        }
        let urlAsset = try #require(delivered[0].0 as? AVURLAsset)
        #expect(urlAsset.url == PHAssetResource.assetResources(for: video).first?.fileURL)
        #expect(abs(CMTimeGetSeconds(urlAsset.duration) - 1.5) < 0.1)
        #expect(urlAsset.naturalSize == CGSize(width: 64, height: 96))
        #expect(delivered[1].0 == nil && delivered[1].1?.code == .requestNotSupportedForAsset)
    }
}

extension CachingImageManagerTests {
    @Test func smallerSizesComeFromALargerRenderingWithoutDecodingTheOriginalAgain() throws {
        let library = try TestLibrary(name: "CachingSizes")
        defer { library.remove() }
        let asset = try #require(try ImageManagerTests.markerAssets(library, width: 2000, height: 1500)[6])
        let manager = PHCachingImageManager()
        let options = PHImageRequestOptions()
        options.resizeMode = .exact
        manager.startCachingImages(for: [asset], targetSize: CGSize(width: 1000, height: 1000), contentMode: .aspectFit, options: options)
        manager.waitForCaching()
        // The original is gone: the smaller sizes can only come from the 1000 × 750 rendering in memory.
        try FileManager.default.removeItem(at: try #require(PHAssetResource.assetResources(for: asset).first?.fileURL))
        manager.startCachingImages(for: [asset], targetSize: CGSize(width: 256, height: 256), contentMode: .aspectFill, options: options)
        manager.startCachingImages(for: [asset], targetSize: CGSize(width: 200, height: 200), contentMode: .aspectFit, options: options)
        manager.waitForCaching()
        for (size, mode, expected) in [
            (CGSize(width: 256, height: 256), PHImageContentMode.aspectFill, CGSize(width: 256, height: 256)),
            (CGSize(width: 200, height: 200), .aspectFit, CGSize(width: 200, height: 150)),
        ] {
            var cached: UIImage?
            let sync = PHImageRequestOptions()
            sync.isSynchronous = true
            sync.resizeMode = .exact
            manager.requestImage(for: asset, targetSize: size, contentMode: mode, options: sync) { result, _ in cached = result }
            #expect(cached?.size == expected)
            #expect(ImageManagerTests.isColour(cached?.pixel(x: 1, y: 1), true, false, false))
        }
    }
}
