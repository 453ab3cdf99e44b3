import OpenPhotos
import Foundation
import Testing

/// Core Image's coordinates: origin at the bottom left, y up; rows of bitmaps from the top.
@Suite struct GeometryTests {
    let context = CIContext()
    static let red: [UInt8] = [255, 0, 0, 255]
    static let green: [UInt8] = [0, 255, 0, 255]
    static let blue: [UInt8] = [0, 0, 255, 255]
    static let white: [UInt8] = [255, 255, 255, 255]
    static let grey: [UInt8] = [128, 128, 128, 255]

    /// 3×2: top row red, green, blue; bottom row white, grey, grey.
    static let corners = Bitmap(width: 3, height: 2) { x, y in
        y == 0 ? [red, green, blue][x] : (x == 0 ? white : grey)
    }

    @Test func aCGImageRoundTripsExactly() throws {
        let image = CIImage(cgImage: Self.corners.cgImage)
        #expect(image.extent == CGRect(x: 0, y: 0, width: 3, height: 2))
        let back = try #require(context.bitmap(image))
        #expect(back == Self.corners)
    }

    @Test func cropsAreInBottomLeftCoordinates() throws {
        let image = CIImage(cgImage: Self.corners.cgImage)
        // y = 1 is the top row (y up): the crop of (0, 1, 1, 1) is the red top-left pixel.
        let topLeft = image.cropped(to: CGRect(x: 0, y: 1, width: 1, height: 1))
        #expect(topLeft.extent == CGRect(x: 0, y: 1, width: 1, height: 1))
        #expect(try #require(context.bitmap(topLeft))[0, 0] == Self.red)
        let bottomLeft = image.cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(try #require(context.bitmap(bottomLeft))[0, 0] == Self.white)
        // A crop reaching outside is the intersection.
        #expect(image.cropped(to: CGRect(x: 2, y: -5, width: 10, height: 6)).extent == CGRect(x: 2, y: 0, width: 1, height: 1))
        // Rendering a rectangle beyond the extent gives transparent pixels there.
        let around = try #require(context.bitmap(image, CGRect(x: -1, y: 0, width: 2, height: 2)))
        #expect(around[0, 0] == [0, 0, 0, 0])
        #expect(around[1, 0] == Self.red)
    }

    @Test func wholePixelTranslationsMoveExtentAndPixels() throws {
        let moved = CIImage(cgImage: Self.corners.cgImage).transformed(by: CGAffineTransform(translationX: 10, y: -4))
        #expect(moved.extent == CGRect(x: 10, y: -4, width: 3, height: 2))
        #expect(try #require(context.bitmap(moved)) == Self.corners)
    }

    /// What a viewer shows of stored pixels with each EXIF orientation, from the stored pixel grid.
    static func displayed(_ stored: Bitmap, _ orientation: Int) -> Bitmap {
        let (w, h) = (stored.width, stored.height)
        let swaps = orientation >= 5
        let (dw, dh) = swaps ? (h, w) : (w, h)
        return Bitmap(width: dw, height: dh) { x, y in
            let (sx, sy): (Int, Int)
            switch orientation {
            case 2: (sx, sy) = (w - 1 - x, y)
            case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
            case 4: (sx, sy) = (x, h - 1 - y)
            case 5: (sx, sy) = (y, x)
            case 6: (sx, sy) = (y, h - 1 - x)
            case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
            case 8: (sx, sy) = (w - 1 - y, x)
            default: (sx, sy) = (x, y)
            }
            return stored[sx, sy]
        }
    }

    @Test(arguments: 1...8) func orientationsTurnAsEXIFSays(orientation: Int) throws {
        let image = CIImage(cgImage: Self.corners.cgImage).oriented(forExifOrientation: Int32(orientation))
        let expected = Self.displayed(Self.corners, orientation)
        #expect(image.extent == CGRect(x: 0, y: 0, width: expected.width, height: expected.height))
        let rendered = try #require(context.bitmap(image))
        #expect(rendered == expected, "orientation \(orientation):\n\(rendered)\nexpected\n\(expected)")
    }

    @Test func aFileIsReadAsStoredUnlessAskedToApplyItsOrientation() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ci-orientation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Stored 2×3 (PNG, lossless); tagged with orientation 6 through the CGImage → PNG path is not possible, so
        // read the stored pixels and compare the applied orientation with the `oriented` image.
        let url = folder.appendingPathComponent("corners.png")
        try CIContext().writePNGRepresentation(
            of: CIImage(cgImage: Self.corners.cgImage), to: url, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
        let image = try #require(CIImage(contentsOf: url))
        #expect(image.extent == CGRect(x: 0, y: 0, width: 3, height: 2))
        #expect(image.properties["PixelWidth"] as? Int == 3)
        #expect(image.properties["Orientation"] as? Int == 1)
        #expect(try #require(context.bitmap(image)) == Self.corners)
    }

    @Test func aRotationResamplesAboutTheOriginAndLeavesCornersTransparent() throws {
        // A 40×40 opaque white square turned 45°: the extent is the bounding box, corners transparent, centre white.
        let square = CIImage(color: .white).cropped(to: CGRect(x: 0, y: 0, width: 40, height: 40))
        let turned = square.transformed(by: CGAffineTransform(rotationAngle: .pi / 4))
        let side = 40 * 2.0.squareRoot()
        #expect(abs(turned.extent.width - side) < 1e-9 && abs(turned.extent.minX + side / 2) < 1e-9)
        let bitmap = try #require(context.bitmap(turned, CGRect(x: -28, y: 0, width: 56, height: 57)))
        #expect(bitmap[0, 56][3] == 0)  // bottom-left corner of the box: outside the square
        #expect(bitmap[28, 28] == [255, 255, 255, 255])  // centre
    }

    @Test func halfPixelTranslationInterpolatesBilinearly() throws {
        // One row: black, white. Moved right by half a pixel, pixel 1 (covering 1…2) samples halfway between them.
        let row = Bitmap(width: 2, height: 1) { x, _ in x == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] }
        let moved = CIImage(cgImage: row.cgImage).transformed(by: CGAffineTransform(translationX: 0.5, y: 0))
        #expect(moved.extent == CGRect(x: 0.5, y: 0, width: 2, height: 1))
        let bitmap = try #require(context.bitmap(moved, CGRect(x: 1, y: 0, width: 1, height: 1)))
        // Halfway in linear light: 0.5 → sRGB 188.
        #expect(close(bitmap[0, 0], [188, 188, 188, 255], 2), "\(bitmap)")
    }

    @Test func scalingUpByTwoKeepsPixelCentres() throws {
        let row = Bitmap(width: 2, height: 1) { x, _ in x == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] }
        let scaled = CIImage(cgImage: row.cgImage).transformed(by: CGAffineTransform(scaleX: 2, y: 2))
        #expect(scaled.extent == CGRect(x: 0, y: 0, width: 4, height: 2))
        // Output centres 0.5, 1.5, 2.5, 3.5 map to input 0.25, 0.75, 1.25, 1.75: black, ¼ white, ¾ white, white
        // (in linear light) when the edges are clamped first …
        let clamped = CIImage(cgImage: row.cgImage).clampedToExtent().transformed(by: CGAffineTransform(scaleX: 2, y: 2))
        let bitmap = try #require(context.bitmap(clamped, scaled.extent))
        let values = (0..<4).map { bitmap[$0, 0] }
        #expect(values[0] == [0, 0, 0, 255] && values[3] == [255, 255, 255, 255], "\(values)")
        #expect(close(values[1], [encoded(0.25), encoded(0.25), encoded(0.25), 255], 2), "\(values)")
        #expect(close(values[2], [encoded(0.75), encoded(0.75), encoded(0.75), 255], 2), "\(values)")
        // … and blend with the transparent surround when they are not (as Core Image's): the top row samples a
        // quarter beyond the single input row, so its alpha is ¾.
        let soft = try #require(context.bitmap(scaled))
        #expect(soft[1, 0][3] == 191 && soft[0, 0][3] == 143, "\(soft)")
    }

    @Test func clampedToExtentRepeatsEdgesToInfinity() throws {
        let clamped = CIImage(cgImage: Self.corners.cgImage).clampedToExtent()
        #expect(clamped.extent.isInfinite)
        let bitmap = try #require(context.bitmap(clamped, CGRect(x: -2, y: 0, width: 7, height: 4)))
        #expect(bitmap[0, 0] == Self.red)  // above-left: the top-left pixel repeated
        #expect(bitmap[6, 3] == Self.grey)
        #expect(bitmap[2, 1] == Self.red)
    }

    @Test func renderingAnInfiniteImageWithoutACropFails() {
        #expect(context.createCGImage(CIImage(color: .red), from: CIImage(color: .red).extent) == nil)
        #expect(throws: CIRenderError.infiniteExtent) {
            try context.makeCGImage(CIImage(color: .red), from: .infinite, format: .RGBA8, colorSpace: CGColorSpaceCreateDeviceRGB())
        }
    }

    @Test func compositingOverIsPremultipliedSourceOver() throws {
        let half = CIImage(color: CIColor(red: 1, green: 0, blue: 0, alpha: 0.5)).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2))
        let back = CIImage(color: .blue).cropped(to: CGRect(x: 1, y: 0, width: 2, height: 2))
        let result = half.composited(over: back)
        #expect(result.extent == CGRect(x: 0, y: 0, width: 3, height: 2))
        let bitmap = try #require(context.bitmap(result))
        #expect(close(bitmap[0, 0], [255, 0, 0, 128], 1), "\(bitmap)")  // only the half-transparent red
        #expect(close(bitmap[1, 0], [encoded(0.5), 0, encoded(0.5), 255], 1), "\(bitmap)")  // 0.5 red + 0.5 blue, linear
        #expect(bitmap[2, 0] == Self.blue)
    }
}

@testable import OpenCoreImage
import PhotosTesting

/// A chain that begins with a downscale of a JPEG decodes it smaller in the first place (libjpeg's DCT scaling),
/// by the largest factor that still leaves at least the pixels kept — also through a straighten, whose clamp and
/// turn are merged with the scale into one resampling.
@Suite struct ShrinkOnLoadTests {
    @Test func aDownscaledJPEGIsDecodedAtTheLargestSufficientShrink() throws {
        let folder = try TestMedia.temporaryDirectory("shrink-on-load")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("large.jpg")
        try TestMedia.writeImage(to: url, width: 1600, height: 1200)
        let context = CIContext()
        func shrinks(_ make: (CIImage) -> CIImage) throws -> [Int] {
            let image = make(try #require(CIImage(contentsOf: url)))
            _ = try #require(context.createCGImage(image, from: image.extent))
            return SourceNode.decodeShrinks(of: url.path)
        }
        // Making the image and its whole chain decodes nothing; the render decodes once.
        let chain = try #require(CIImage(contentsOf: url)).applyingFilter("CISepiaTone").applyingGaussianBlur(sigma: 2)
            .cropped(to: CGRect(x: 0, y: 0, width: 100, height: 100))
        SourceNode.watchDecodes(of: url.path)
        #expect(SourceNode.decodeShrinks(of: url.path).isEmpty)
        _ = try #require(context.createCGImage(chain, from: chain.extent))
        #expect(SourceNode.decodeShrinks(of: url.path) == [1])
        SourceNode.watchDecodes(of: url.path)  // start over
        #expect(try shrinks { $0 } == [1])
        #expect(try shrinks { $0.transformed(by: CGAffineTransform(scaleX: 0.25, y: 0.25)) } == [1, 4])
        #expect(try shrinks { $0.transformed(by: CGAffineTransform(scaleX: 0.3, y: 0.3)) } == [1, 4, 2])
        let preview = try shrinks {
            $0.transformed(by: CGAffineTransform(scaleX: 0.1, y: 0.1)).applyingFilter("CIStraightenFilter", parameters: [kCIInputAngleKey: 0.05])
        }
        #expect(preview == [1, 4, 2, 8])
    }
}

/// HEIF grids (iPhone photos) are decoded tile by tile as regions need them, turned upright, with the same pixels
/// libheif's whole-image decode gives.
@Suite struct HEIFTileTests {
    static let colours: [[UInt8]] = [[220, 40, 40], [40, 200, 60], [50, 60, 210], [230, 220, 50], [200, 60, 200], [60, 200, 210]]

    @Test func aGridIsReadTileByTileWithEachTileInPlace() throws {
        let folder = try TestMedia.temporaryDirectory("heif-grid")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("grid.heic")
        // 3 × 2 tiles of 64 px, one colour each, row by row from the top.
        try TestMedia.writeHEICGrid(to: url, width: 192, height: 128, tile: 64) { x, y in Self.colours[(y / 64) * 3 + x / 64] }
        #expect(try SourceNode.heifTiles(url.path, loader: "VipsForeignLoadHeifFile") != nil)
        let image = try #require(CIImage(contentsOf: url))
        #expect(image.extent == CGRect(x: 0, y: 0, width: 192, height: 128))
        let bitmap = try #require(CIContext().bitmap(image))
        for row in 0..<2 {
            for column in 0..<3 {
                let got = bitmap[column * 64 + 32, row * 64 + 32]
                #expect(close(got, Self.colours[row * 3 + column] + [255], 6), "tile \(column),\(row): \(got)")
            }
        }
    }

    @Test(.enabled(if: TestMedia.sharedMediaFolder != nil)) func aTurnedIPhoneGridMatchesTheWholeImageDecode() throws {
        let url = try #require(TestMedia.sharedMediaFolder).appendingPathComponent("livephoto/IMG_4394.HEIC")
        let tiled = try #require(try SourceNode.heifTiles(url.path, loader: "VipsForeignLoadHeifFile"))
        #expect(tiled.width == 3024 && tiled.height == 4032)  // upright (stored 4032×3024, turned 270° ccw)
        // The same file from memory goes through libvips' heifload (the whole image at once): the same pixels.
        let image = try #require(CIImage(contentsOf: url))
        let whole = try #require(CIImage(data: try Data(contentsOf: url)))
        #expect(image.extent == whole.extent)
        let context = CIContext()
        for (x, y) in [(100, 100), (1512, 2016), (2900, 3900), (3000, 50), (517, 1023)] {
            let area = CGRect(x: x, y: y, width: 8, height: 8)
            #expect(context.bitmap(image, area) == context.bitmap(whole, area), "\(x),\(y)")
        }
    }
}

/// Consecutive affine colour steps merge into one matrix and one offset (one pass), with the same result.
@Suite struct ColourKernelMergingTests {
    @Test func exposureColourControlsAndSepiaBecomeOneStep() throws {
        let source = FilterTests.solid([200, 100, 50, 255], 2, 2)
        let chain = source.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 1])
            .applyingFilter("CIColorControls", parameters: [kCIInputSaturationKey: 0.5, kCIInputContrastKey: 1.2])
            .applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: -1])
        let merged = try #require(chain.node as? AffineColourNode)
        #expect(merged.input is SourceNode)
        // The same pixels as the formulas applied one after another.
        let c = [200, 100, 50].map { linear(UInt8($0)) }.map { $0 * 2 }
        let l = 0.2125 * c[0] + 0.7154 * c[1] + 0.0721 * c[2]
        let expected = c.map { (v: Double) -> UInt8 in encoded((((l + (v - l) * 0.5) - 0.5) * 1.2 + 0.5) / 2) }
        let pixel = try #require(CIContext().bitmap(chain))[1, 1]
        #expect(close(pixel, expected + [255], 1), "\(pixel) vs \(expected)")
        #expect(
            source.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 1]).applyingFilter(
                "CIExposureAdjust", parameters: [kCIInputEVKey: -1]
            ).node is AffineColourNode)
    }
}

/// The shortcut is taken for exactly the shapes it handles.
@Suite struct DirectColourRenderPlanTests {
    let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!

    func plans(_ image: CIImage, _ space: CGColorSpace? = nil, _ format: CIFormat = .RGBA8) throws -> Bool {
        let layout = try BitmapLayout(format: format, colorSpace: space ?? sRGB, premultiplied: true)
        return DirectColourRender.plan(image.node, region: PixelRect(covering: image.extent), layout: layout, colorSpace: space ?? sRGB) != nil
    }

    @Test func onlyColourStepsOverOpaqueSRGBBitmapsIntoSRGBBytes() throws {
        let frame = CIImage(cgImage: BitmapColourRenderTests.frame)
        let tinted = frame.applyingFilter("CIColorMatrix", parameters: ["inputRVector": CIVector(x: 1.1, y: 0, z: 0, w: 0)])
        #expect(try plans(frame))
        #expect(try plans(tinted.cropped(to: CGRect(x: 2, y: 2, width: 10, height: 10))))
        #expect(try plans(tinted.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 1])), "merged into one step")
        // Not: a filter reading neighbours, another output space or format, a source with alpha, a region past the extent.
        #expect(try !plans(tinted.applyingFilter("CIGaussianBlur", parameters: [kCIInputRadiusKey: 2]).cropped(to: frame.extent)))
        #expect(try !plans(tinted, CGColorSpace(name: CGColorSpace.displayP3)!))
        #expect(try !plans(tinted, nil, .BGRA8))
        #expect(try !plans(CIImage(cgImage: GeometryTests.corners.cgImage)))
        let layout = try BitmapLayout(format: .RGBA8, colorSpace: sRGB, premultiplied: true)
        #expect(
            DirectColourRender.plan(tinted.node, region: PixelRect(x: -1, y: 0, width: 10, height: 10), layout: layout, colorSpace: sRGB) == nil)
        // A matrix that uses alpha stays an RGBA kernel.
        #expect(try !plans(frame.applyingFilter("CIColorMatrix", parameters: ["inputRVector": CIVector(x: 1, y: 0, z: 0, w: 0.5)])))
    }
}
