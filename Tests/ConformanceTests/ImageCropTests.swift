import Foundation
import Photos
import PhotosTesting
import Testing

/// `normalizedCropRect` names a part of the displayed image in unit coordinates, rendered at exactly the target
/// size, on every kind of library — a served one renders it on the server (`crop`) and keeps it apart from its
/// other renderings.
@Suite("Image crops")
struct ImageCropTests {
    static func isColour(_ pixel: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)?, _ r: Bool, _ g: Bool, _ b: Bool) -> Bool {
        guard let pixel else { return false }
        // JPEG's chroma subsampling bleeds saturated colours a little: the wanted channels stay high, the others low.
        func on(_ v: UInt8, _ want: Bool) -> Bool { want ? v > 180 : v < 130 }
        return on(pixel.red, r) && on(pixel.green, g) && on(pixel.blue, b)
    }

    static func isGrey(_ pixel: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)?) -> Bool {
        guard let pixel else { return false }
        return [pixel.red, pixel.green, pixel.blue].allSatisfy { abs(Int($0) - 128) < 30 }
    }

    @Test(arguments: LibraryProviders.conformance)
    func aCropIsThePartOfTheDisplayedImageItNames(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "ImageCrop", provider: provider)
        defer { library.remove() }
        // Stored turned (EXIF orientation 6), displayed 400 × 300: red top left, green top right, blue bottom left,
        // grey in the centre.
        let file = library.scratch.appendingPathComponent("marker.jpg")
        try TestMedia.writeMarkerImage(to: file.path, width: 400, height: 300, orientation: 6)
        var identifier = ""
        try library.library.performChangesAndWait {
            identifier = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)!.placeholderForCreatedAsset!.localIdentifier
        }
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: library.options()).firstObject)
        #expect(asset.pixelWidth == 400 && asset.pixelHeight == 300)
        func image(_ size: CGSize, _ mode: PHImageContentMode, _ crop: CGRect, resize: PHImageRequestOptionsResizeMode = .exact) -> (
            UIImage?, [AnyHashable: Any]?
        ) {
            let options = PHImageRequestOptions()
            options.isSynchronous = true
            options.isNetworkAccessAllowed = true
            options.resizeMode = resize
            options.normalizedCropRect = crop
            var result: (UIImage?, [AnyHashable: Any]?) = (nil, nil)
            PHImageManager.default().requestImage(for: asset, targetSize: size, contentMode: mode, options: options) { result = ($0, $1) }
            return result
        }

        // The whole image first: a rendering of that size must not answer for a part of it.
        let (whole, _) = image(CGSize(width: 100, height: 100), .aspectFit, .zero)
        #expect(whole?.size == CGSize(width: 100, height: 75))
        #expect(Self.isColour(whole?.pixel(x: 98, y: 1), false, true, false), "the whole image's top right is green")

        // The top-left quarter: red at its top left, the image's grey centre at its bottom right.
        let (quarter, info) = image(CGSize(width: 100, height: 100), .aspectFit, CGRect(x: 0, y: 0, width: 0.5, height: 0.5))
        let cropped = try #require(quarter, "\(String(describing: info))")
        #expect(cropped.size == CGSize(width: 100, height: 75))
        #expect(Self.isColour(cropped.pixel(x: 1, y: 1), true, false, false))
        #expect(Self.isGrey(cropped.pixel(x: 98, y: 73)))
        // The top-right quarter: green at its top right, grey at its bottom left.
        let (right, _) = image(CGSize(width: 100, height: 100), .aspectFit, CGRect(x: 0.5, y: 0, width: 0.5, height: 0.5))
        #expect(right?.size == CGSize(width: 100, height: 75))
        #expect(Self.isColour(right?.pixel(x: 98, y: 1), false, true, false) && Self.isGrey(right?.pixel(x: 1, y: 73)))
        // aspectFill with a crop fills the target exactly.
        let (filled, _) = image(CGSize(width: 60, height: 60), .aspectFill, CGRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5))
        #expect(filled?.size == CGSize(width: 60, height: 60))

        // A crop outside the unit square, or without `.exact`, is refused, with an image for neither.
        for (crop, resize) in [
            (CGRect(x: 0.8, y: 0, width: 0.5, height: 0.5), PHImageRequestOptionsResizeMode.exact),
            (CGRect(x: 0, y: 0, width: 0.5, height: 0.5), .fast),
        ] {
            let (refused, info) = image(CGSize(width: 100, height: 100), .aspectFit, crop, resize: resize)
            #expect(refused == nil && ImageResultInfo(info).error?.code == .invalidResource, "\(crop) \(resize): \(String(describing: info))")
        }
    }
}
