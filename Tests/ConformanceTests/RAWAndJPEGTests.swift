import Foundation
import OpenPhotos
import PhotosTesting
import Testing

/// RAW + JPEG (iOS 27): a camera's pair imports as one asset — the JPEG its photo, the RAW its alternate photo — and
/// `originalResourceChoice` says which of the two the asset shows; a RAW alone is an asset of its own, rendered by
/// LibRaw.
@Suite("RAW + JPEG")
struct RAWAndJPEGTests {
    /// The library's rendering of `asset`'s `version`, 64 × 48, and its centre pixel.
    static func centre(_ asset: PHAsset, version: PHImageRequestOptionsVersion = .current) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)? {
        let options = PHImageRequestOptions()
        options.isSynchronous = true
        // As apps of an iCloud library ask: a served library's images are "in the cloud".
        options.isNetworkAccessAllowed = true
        options.version = version
        options.deliveryMode = .highQualityFormat
        var image: UIImage?
        PHImageManager.default().requestImage(for: asset, targetSize: CGSize(width: 64, height: 48), contentMode: .aspectFit, options: options) {
            result, _ in image = result
        }
        return image?.pixel(x: Int((image?.size.width ?? 2) / 2), y: Int((image?.size.height ?? 2) / 2))
    }

    static func isGrey(_ pixel: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)?) -> Bool {
        guard let pixel else { return false }
        return max(pixel.red, pixel.green, pixel.blue) - min(pixel.red, pixel.green, pixel.blue) < 12 && pixel.red > 60
    }

    static func isRed(_ pixel: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)?) -> Bool {
        guard let pixel else { return false }
        return pixel.red > 180 && pixel.green < 90 && pixel.blue < 90
    }

    @Test(arguments: LibraryProviders.conformance)
    func aPairIsOneAssetAndShowsTheChosenOriginal(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "RAWPairs", provider: provider)
        defer { library.remove() }
        let card = library.scratch.appendingPathComponent("DCIM")
        try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
        // A red JPEG and a grey RAW of one shot; a RAW alone; a RAW whose JPEG is in another folder stays alone.
        try TestMedia.writeSolidJPEG(to: card.appendingPathComponent("IMG_0001.JPG"), width: 64, height: 48, red: 230, green: 20, blue: 20)
        try TestMedia.dng(colour: [0.2, 0.2, 0.2]).write(to: card.appendingPathComponent("IMG_0001.DNG"))
        try TestMedia.dng(width: 48, height: 64, colour: [0.3, 0.3, 0.3], orientation: 6).write(to: card.appendingPathComponent("IMG_0002.dng"))
        let report = try library.library.importItems(at: [card])
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.rawPairsJoined == 1)
        #expect(report.importedLocalIdentifiers.count == 2)

        let assets = PHAsset.fetchAssets(withLocalIdentifiers: report.importedLocalIdentifiers, options: library.options())
        let all = assets.objects(at: IndexSet(0..<assets.count))
        let pair = try #require(all.first { PHAssetResource.assetResources(for: $0).count == 2 })
        let alone = try #require(all.first { PHAssetResource.assetResources(for: $0).count == 1 })
        let resources = PHAssetResource.assetResources(for: pair)
        #expect(resources.map(\.type) == [.photo, .alternatePhoto])
        #expect(resources.map(\.originalFilename) == ["IMG_0001.JPG", "IMG_0001.DNG"])
        #expect(resources.map(\.uniformTypeIdentifier) == ["public.jpeg", "public.camera-raw-image"])
        #expect(pair.originalResourceChoice == .compressed)
        #expect((pair.pixelWidth, pair.pixelHeight) == (64, 48))
        #expect(Self.isRed(Self.centre(pair)), "\(String(describing: Self.centre(pair)))")

        // A RAW alone: its own asset, developed by LibRaw, turned by its orientation.
        #expect(PHAssetResource.assetResources(for: alone).map(\.uniformTypeIdentifier) == ["public.camera-raw-image"])
        #expect((alone.pixelWidth, alone.pixelHeight) == (64, 48))
        #expect(Self.isGrey(Self.centre(alone)), "\(String(describing: Self.centre(alone)))")

        // The RAW chosen: the asset shows it (its original and, unedited, its current version); and back.
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: pair).revertAssetContent(to: .raw) }
        let raw = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [pair.localIdentifier], options: library.options()).firstObject)
        #expect(raw.originalResourceChoice == .raw)
        #expect(Self.isGrey(Self.centre(raw)), "\(String(describing: Self.centre(raw)))")
        #expect(Self.isGrey(Self.centre(raw, version: .original)))
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: raw).revertAssetContent(to: .compressed) }
        let back = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [pair.localIdentifier], options: library.options()).firstObject)
        #expect(back.originalResourceChoice == .compressed && Self.isRed(Self.centre(back)))

        // The RAW of an asset that has none cannot be chosen.
        #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait { PHAssetChangeRequest(for: alone).revertAssetContent(to: .raw) }
        }
        // A creation request makes a pair with the RAW chosen; without a RAW it fails.
        var created = ""
        try library.library.performChangesAndWait {
            let request = PHAssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: card.appendingPathComponent("IMG_0001.JPG"), options: nil)
            request.addResource(with: .alternatePhoto, fileURL: card.appendingPathComponent("IMG_0001.DNG"), options: nil)
            request.originalResourceChoice = .raw
            created = request.placeholderForCreatedAsset!.localIdentifier
        }
        let made = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [created], options: library.options()).firstObject)
        #expect(made.originalResourceChoice == .raw && Self.isGrey(Self.centre(made)))
        #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait {
                let request = PHAssetCreationRequest.forAsset()
                request.addResource(with: .photo, fileURL: card.appendingPathComponent("IMG_0001.JPG"), options: nil)
                request.originalResourceChoice = .raw
            }
        }

        // An editing input starts from the original asked for: the RAW file itself (for CIRAWFilter), or the JPEG.
        for (choice, name) in [(PHAsset.OriginalResourceChoice.raw, "IMG_0001.DNG"), (.compressed, "IMG_0001.JPG")] {
            let options = PHContentEditingInputRequestOptions()
            options.originalResourceChoice = choice
            options.isNetworkAccessAllowed = true
            let input = try blockingInput(pair, options)
            #expect(input.fullSizeImageURL?.lastPathComponent == name)
            #expect(input.displaySizeImage != nil)
        }
    }

    func blockingInput(_ asset: PHAsset, _ options: PHContentEditingInputRequestOptions) throws -> PHContentEditingInput {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: PHContentEditingInput?
        asset.requestContentEditingInput(with: options) { input, _ in
            result = input
            done.signal()
        }
        done.wait()
        return try #require(result)
    }
}
