import Foundation
@testable import PortedClient
import Photos
import PhotosTesting
import Testing

/// The iOS-style editor in Compatibility/PortedApp, run: filters by name, orientation applied on load, a JPEG
/// written in place, a thumbnail through CGImage and UIImage, a read-back through render(toBitmap:).
@Suite struct PhotoEditorTests {
    @Test func theEditorExportsThumbnailsAndSamplesAsOnIOS() throws {
        let folder = try TestMedia.temporaryDirectory("ported-editor")
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = folder.appendingPathComponent("portrait.jpg")
        try TestMedia.writeImage(to: original, width: 60, height: 40, orientation: 6)
        let editor = PhotoEditor()
        let exported = folder.appendingPathComponent("sepia.jpg")
        let size = try editor.exportSepia(of: original, to: exported)
        #expect(size == CGSize(width: 40, height: 60))  // the orientation applied on load
        let written = try #require(UIImage(contentsOfFile: exported.path))
        #expect(written.size == CGSize(width: 40, height: 60) && written.imageOrientation == .up)
        let pixel = try #require(written.pixel(x: 20, y: 30))
        #expect(pixel.red > pixel.blue)  // sepia is warm
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["portrait.jpg", "sepia.jpg"])  // no temporary left

        // ImageIO's key as a CFString (a String here), as Apple's: the quality reaches the encoder.
        let photo = try #require(CIImage(contentsOf: original))
        let small = try #require(editor.jpegData(of: photo, quality: 0.1)), large = try #require(editor.jpegData(of: photo, quality: 1))
        #expect(small.count < large.count, "\(small.count) ≥ \(large.count)")
        #expect(PhotoEditor.destinationProperties["kCGImageDestinationLossyCompressionQuality"] as? Double == 0.8)

        let image = try #require(UIImage(contentsOfFile: original.path))
        let thumbnail = try #require(editor.squareThumbnail(of: image, side: 16))
        #expect(thumbnail.cgImage?.width == 16 && thumbnail.cgImage?.height == 16)
        #expect(thumbnail.imageOrientation == .right)

        let stored = try #require(CIImage(contentsOf: original))
        let red = try #require(editor.averageRed(of: stored, in: CGRect(x: 0, y: 0, width: 60, height: 40)))
        // The generated gradient runs red from 0 to 255 across the stored width: its middle averages about half.
        #expect((100...160).contains(Int(red)), "\(red)")
    }

    /// On a library of this machine, and on one `photos serve` serves (the editor's code unchanged).
    @Test(arguments: [LocalLibraryProvider(), ServedLibraryProvider()] as [any LibraryProvider])
    func theEditorEditsLibraryPhotosNonDestructively(_ provider: any LibraryProvider) async throws {
        let library = try TestLibrary(name: "PortedEdits", provider: provider)
        defer { library.remove() }
        let file = try library.makeImage(width: 60, height: 40, orientation: 6)
        let original = try Data(contentsOf: file)
        let identifier = try #require(try library.library.importItems(at: [file]).importedLocalIdentifiers.first)
        func fetch() throws -> PHAsset {
            try #require(PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: library.options()).firstObject)
        }
        let editor = PhotoEditor()
        func apply(_ filter: String) async throws {
            let asset = try fetch()
            let (ok, error) = await withCheckedContinuation { continuation in
                editor.applyFilter(filter, to: asset, in: library.library) { continuation.resume(returning: ($0, $1.map { "\($0)" })) }
            }
            #expect(ok, "\(error ?? "")")
        }
        try await apply("CIPhotoEffectNoir")
        var asset = try fetch()
        #expect(asset.hasAdjustments && asset.adjustmentFormatIdentifier == PhotoEditor.formatIdentifier)
        #expect((asset.pixelWidth, asset.pixelHeight) == (40, 60), "the orientation baked in")
        let filter = await withCheckedContinuation { continuation in editor.appliedFilter(of: asset) { continuation.resume(returning: $0) } }
        #expect(filter == "CIPhotoEffectNoir")
        // Reopened: the new filter replaces the old one (the previous version is still the original).
        try await apply("CIPhotoEffectChrome")
        asset = try fetch()
        #expect(PHAssetResource.assetResources(for: asset).map(\.type).contains(.adjustmentBasePhoto) == false)
        let (reverted, _) = await withCheckedContinuation { continuation in
            editor.revert(asset, in: library.library) { continuation.resume(returning: ($0, $1.map { "\($0)" })) }
        }
        #expect(reverted)
        asset = try fetch()
        #expect(!asset.hasAdjustments)
        let resource = try #require(PHAssetResource.assetResources(for: asset).first)
        let copy = library.scratch.appendingPathComponent("original-again.jpg")
        let options = PHAssetResourceRequestOptions()
        options.isNetworkAccessAllowed = true
        try await PHAssetResourceManager.default().writeData(for: resource, toFile: copy, options: options)
        #expect(try Data(contentsOf: copy) == original)
    }
}
