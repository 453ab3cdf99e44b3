import OpenPhotos
import Foundation
import PhotosTesting
import Testing

@Suite("Creating assets")
struct AssetCreationTests {
    @Test func imageFileBecomesAnImageAssetWithItsPixelSize() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let file = try library.makeImage("beach.jpg", width: 120, height: 80)
        var placeholder: PHObjectPlaceholder?
        try library.library.performChangesAndWait {
            let request = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
            request?.creationDate = Date(timeIntervalSince1970: 1_600_000_000)
            request?.isFavorite = true
            request?.location = CLLocation(latitude: 48.85, longitude: 2.35)
            placeholder = request?.placeholderForCreatedAsset
        }
        let identifier = try #require(placeholder?.localIdentifier)
        #expect(identifier.wholeMatch(of: /[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\/L0\/001/) != nil)
        let result = PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: library.options())
        #expect(result.count == 1)
        let asset = try #require(result.firstObject)
        #expect(asset == placeholder)
        #expect(asset.mediaType == .image)
        #expect(asset.mediaSubtypes == [])
        #expect(asset.playbackStyle == .image)
        #expect(asset.pixelWidth == 120)
        #expect(asset.pixelHeight == 80)
        #expect(asset.duration == 0)
        #expect(asset.creationDate == Date(timeIntervalSince1970: 1_600_000_000))
        #expect(asset.isFavorite)
        #expect(!asset.isHidden)
        #expect(asset.sourceType == .typeUserLibrary)
        #expect(asset.location?.coordinate == CLLocationCoordinate2D(latitude: 48.85, longitude: 2.35))
        #expect(asset.canPerform(.delete) && asset.canPerform(.properties))

        let resources = PHAssetResource.assetResources(for: asset)
        #expect(resources.count == 1)
        #expect(resources[0].type == .photo)
        #expect(resources[0].originalFilename == "beach.jpg")
        #expect(resources[0].uniformTypeIdentifier == "public.jpeg")
        #expect(resources[0].assetLocalIdentifier == identifier)
        #expect(resources[0].pixelWidth == 120 && resources[0].pixelHeight == 80)
        #expect(asset.value(forKey: "filename") as? String == "beach.jpg")
        #expect(asset.value(forKey: "noSuchKey") == nil)
        // The original is copied, the source stays.
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    @Test(arguments: [(1, 60, 40), (3, 60, 40), (5, 40, 60), (6, 40, 60), (8, 40, 60)])
    func displayedPixelSizeHonoursOrientation(orientation: Int, width: Int, height: Int) throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let file = try library.makeImage(width: 60, height: 40, orientation: orientation)
        try library.library.performChangesAndWait { _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
        let asset = try #require(PHAsset.fetchAssets(with: library.options()).firstObject)
        #expect(asset.pixelWidth == width)
        #expect(asset.pixelHeight == height)
    }

    @Test func videoFileBecomesAVideoAssetWithDurationAndRotation() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let movie = library.scratch.appendingPathComponent("clip.mp4")
        try TestMedia.writeMovie(to: movie, width: 64, height: 48, seconds: 1, rotation: 90)
        try library.library.performChangesAndWait { _ = PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: movie) }
        let asset = try #require(PHAsset.fetchAssets(with: .video, options: library.options()).firstObject)
        #expect(asset.mediaType == .video)
        #expect(asset.playbackStyle == .video)
        #expect(asset.pixelWidth == 48)
        #expect(asset.pixelHeight == 64)
        #expect(abs(asset.duration - 1.0) < 0.1)
        #expect(PHAssetResource.assetResources(for: asset).map(\.uniformTypeIdentifier) == ["public.mpeg-4"])
    }

    @Test func creationFromAnImage() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let file = try library.makeImage(width: 60, height: 40, orientation: 6)
        let image = try #require(UIImage(contentsOfFile: file.path))
        #expect(image.size == CGSize(width: 40, height: 60))
        #expect(image.imageOrientation == .right)
        #expect(image.scale == 1)
        let png = try #require(image.pngData())
        #expect(UIImage(data: png)?.size == CGSize(width: 40, height: 60))
        #expect(UIImage(data: png)?.imageOrientation == .up)
        #expect(UIImage(data: try #require(image.jpegData(compressionQuality: 0.8)))?.imageOrientation == .right)
        #expect(UIImage(data: Data("text".utf8)) == nil)

        var identifier: String?
        try library.library.performChangesAndWait {
            identifier = PHAssetChangeRequest.creationRequestForAsset(from: image).placeholderForCreatedAsset?.localIdentifier
        }
        let created = try #require(identifier)
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [created], options: library.options()).firstObject)
        #expect(asset.pixelWidth == 40)
        #expect(asset.pixelHeight == 60)
        let resource = try #require(PHAssetResource.assetResources(for: asset).first)
        #expect(resource.uniformTypeIdentifier == "public.jpeg")
        #expect(resource.fileSize == Int64(try Data(contentsOf: file).count))
    }

    @Test func creationRequestWithResourcesAndOptions() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let still = try library.makeImage("IMG_0001.JPG", width: 30, height: 20)
        let movie = library.scratch.appendingPathComponent("IMG_0001.MOV")
        try TestMedia.writeMovie(to: movie, width: 30, height: 20, seconds: 0.5)
        let data = try Data(contentsOf: still)
        try library.library.performChangesAndWait {
            let live = PHAssetCreationRequest.forAsset()
            live.addResource(with: .photo, fileURL: still, options: nil)
            live.addResource(with: .pairedVideo, fileURL: movie, options: nil)
            let fromData = PHAssetCreationRequest.forAsset()
            let options = PHAssetResourceCreationOptions()
            options.originalFilename = "memory.jpg"
            fromData.addResource(with: .photo, data: data, options: options)
        }
        let assets = PHAsset.fetchAssets(with: library.options())
        #expect(assets.count == 2)
        let live = try #require(assets.first { $0.mediaSubtypes.contains(.photoLive) })
        #expect(live.playbackStyle == .livePhoto)
        #expect(PHAssetResource.assetResources(for: live).map(\.type) == [.photo, .pairedVideo])
        let other = try #require(assets.first { !$0.mediaSubtypes.contains(.photoLive) })
        #expect(PHAssetResource.assetResources(for: other).map(\.originalFilename) == ["memory.jpg"])
        #expect(PHAssetCreationRequest.supportsAssetResourceTypes([1, 9]))
        #expect(!PHAssetCreationRequest.supportsAssetResourceTypes([9]))
        #expect(!PHAssetCreationRequest.supportsAssetResourceTypes([1, 2]))
    }

    @Test func shouldMoveFileMovesTheOriginalOnlyOnSuccess() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let file = try library.makeImage()
        let linked = try library.makeImage()
        let link = library.scratch.appendingPathComponent("hardlink.jpg")
        try FileManager.default.linkItem(at: linked, to: link)
        let options = PHAssetResourceCreationOptions()
        options.shouldMoveFile = true
        #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait {
                PHAssetCreationRequest.forAsset().addResource(with: .photo, fileURL: link, options: options)
            }
        }
        #expect(FileManager.default.fileExists(atPath: link.path))
        try library.library.performChangesAndWait {
            PHAssetCreationRequest.forAsset().addResource(with: .photo, fileURL: file, options: options)
        }
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(PHAsset.fetchAssets(with: library.options()).count == 1)
    }

    @Test func badResourcesFailWithTypedErrors() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let text = library.scratch.appendingPathComponent("page.jpg")
        try Data("<html>not found</html>".utf8).write(to: text)
        let empty = library.scratch.appendingPathComponent("empty.heic")
        try Data().write(to: empty)
        let image = try library.makeImage()
        func failure(_ block: () -> Void) -> PHPhotosError.Code? {
            do {
                try library.library.performChangesAndWait(block)
                return nil
            } catch {
                return (error as? PHPhotosError)?.code
            }
        }
        #expect(failure { _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: text) } == .invalidResource)
        #expect(failure { _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: empty) } == .invalidResource)
        #expect(failure { _ = PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: image) } == .invalidResource)
        #expect(
            failure { _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: library.scratch.appendingPathComponent("none.jpg")) }
                == .missingResource)
        #expect(failure { _ = PHAssetCreationRequest.forAsset() } == .invalidResource)
        #expect(PHAsset.fetchAssets(with: library.options()).count == 0)

        let nsError = PHPhotosError(.invalidResource) as NSError
        #expect(nsError.domain == "PHPhotosErrorDomain")
        #expect(nsError.code == 3302)
        do {
            try library.library.performChangesAndWait { _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: text) }
        } catch PHPhotosError.invalidResource {
            // matched by code, as on Apple platforms
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
