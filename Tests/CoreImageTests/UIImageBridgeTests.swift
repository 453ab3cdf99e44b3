import OpenPhotos
import Foundation
import PhotosTesting
import Testing

/// UIImage ↔ CGImage ↔ CIImage as UIKit relates them: the bitmap holds the stored pixels, the orientation is the
/// image's, and rendering applies it.
@Suite struct UIImageBridgeTests {
    @Test func aBitmapKeepsItsPixelsAndTheImageItsOrientation() throws {
        let bitmap = GeometryTests.corners  // 3×2
        let image = UIImage(cgImage: bitmap.cgImage, scale: 2, orientation: .right)
        #expect(image.imageOrientation == .right)
        #expect(image.size == CGSize(width: 1, height: 1.5))  // 2×3 displayed, at scale 2
        let cg = try #require(image.cgImage)
        #expect(cg.width == 3 && cg.height == 2)
        #expect(image.ciImage == nil)
        // Encoded, the orientation is applied to the pixels: the stored top-left (red) shows at the top right,
        // the stored top-right at the bottom right.
        let png = try #require(image.pngData())
        let decoded = try #require(UIImage(data: png))
        #expect(decoded.size == CGSize(width: 2, height: 3))
        let topRight = try #require(decoded.pixel(x: 1, y: 0))
        #expect(topRight.red == 255 && topRight.green == 0 && topRight.blue == 0)
        let bottomRight = try #require(decoded.pixel(x: 1, y: 2))  // the stored top-right (blue)
        #expect(bottomRight.blue == 255 && bottomRight.red == 0)
        let topLeft = try #require(decoded.pixel(x: 0, y: 0))  // the stored bottom-left (white)
        #expect(topLeft.red == 255 && topLeft.green == 255 && topLeft.blue == 255)
    }

    @Test func anEncodedImageGivesItsStoredPixelsAsABitmap() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uiimage-cg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("portrait.jpg")
        try TestMedia.writeImage(to: url, width: 40, height: 30, orientation: 6)
        let image = try #require(UIImage(contentsOfFile: url.path))
        #expect(image.imageOrientation == .right)
        #expect(image.size == CGSize(width: 30, height: 40))
        let cg = try #require(image.cgImage)
        #expect(cg.width == 40 && cg.height == 30)  // stored, not turned
        #expect(cg.bitsPerComponent == 8 && cg.bitsPerPixel == 32 && cg.alphaInfo == .premultipliedLast)
        let ci = try #require(CIImage(image: image))
        #expect(ci.extent == CGRect(x: 0, y: 0, width: 40, height: 30))
    }

    @Test func aRecipeBackedImageHasNoBitmapButRendersWhenEncoded() throws {
        let recipe = CIImage(color: .green).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 3))
        let image = UIImage(ciImage: recipe)
        #expect(image.cgImage == nil)
        #expect(image.ciImage === recipe)
        #expect(image.size == CGSize(width: 4, height: 3))
        let png = try #require(image.pngData())
        let decoded = try #require(UIImage(data: png))
        let p = try #require(decoded.pixel(x: 3, y: 2))
        #expect(p.green == 255 && p.red == 0 && p.alpha == 255)
    }
}
