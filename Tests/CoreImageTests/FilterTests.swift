import OpenPhotos
import Foundation
import Testing

/// Blurs, geometry, compositing, generators and effects, each against what it is documented to compute.
@Suite struct FilterTests {
    let context = CIContext()

    static func solid(_ c: [UInt8], _ w: Int = 8, _ h: Int = 8) -> CIImage {
        CIImage(cgImage: Bitmap(width: w, height: h) { _, _ in c }.cgImage)
    }

    // MARK: The filter API

    @Test func unknownNamesGiveNilAndAttributesAreApples() throws {
        #expect(CIFilter(name: "CINoSuchFilter") == nil)
        let controls = try #require(CIFilter(name: "CIColorControls"))
        #expect(controls.inputKeys == [kCIInputImageKey, kCIInputSaturationKey, kCIInputBrightnessKey, kCIInputContrastKey])
        #expect(controls.outputKeys == [kCIOutputImageKey])
        let saturation = try #require(controls.attributes[kCIInputSaturationKey] as? [String: Any])
        #expect((saturation[kCIAttributeDefault] as? NSNumber)?.doubleValue == 1)
        #expect((saturation[kCIAttributeSliderMin] as? NSNumber)?.doubleValue == 0)
        #expect((saturation[kCIAttributeSliderMax] as? NSNumber)?.doubleValue == 2)
        #expect(saturation[kCIAttributeClass] as? String == "NSNumber")
        #expect(controls.attributes[kCIAttributeFilterDisplayName] as? String == "Color Controls")
        #expect((controls.value(forKey: kCIInputContrastKey) as? NSNumber)?.doubleValue == 1)
        controls.setValue(2.5, forKey: kCIInputContrastKey)
        #expect((controls.value(forKey: kCIInputContrastKey) as? NSNumber)?.doubleValue == 2.5)
        controls.setDefaults()
        #expect((controls.value(forKey: kCIInputContrastKey) as? NSNumber)?.doubleValue == 1)
        #expect(controls.outputImage == nil)  // no input image
        #expect(CIFilter.filterNames(inCategory: kCICategoryBlur).contains("CIGaussianBlur"))
        #expect(!CIFilter.filterNames(inCategory: kCICategoryBlur).contains("CISepiaTone"))
        #expect(CIFilter.filterNames(inCategories: nil).count >= 48)
        #expect(CIFilter.localizedName(forFilterName: "CISepiaTone") == "Sepia Tone")
    }

    @Test func aKeyTheFilterDoesNotHaveTrapsWithCoreImagesMessage() async {
        await #expect(processExitsWith: .failure) {
            CIFilter(name: "CISepiaTone")!.setValue(1, forKey: "inputNoSuchKey")
        }
        await #expect(processExitsWith: .failure) {
            CIFilter(name: "CISepiaTone")!.setValue("strong", forKey: kCIInputIntensityKey)
        }
    }

    // MARK: Blurs

    @Test func aGaussianBlurGrowsTheExtentByThreeSigmaAndKeepsAClampedFlatImageFlat() throws {
        let flat = Self.solid([100, 150, 200, 255])
        let blurred = flat.applyingGaussianBlur(sigma: 2)
        #expect(blurred.extent == CGRect(x: -6, y: -6, width: 20, height: 20))
        let clamped = flat.clampedToExtent().applyingGaussianBlur(sigma: 2).cropped(to: flat.extent)
        let bitmap = try #require(context.bitmap(clamped))
        #expect(bitmap.bytes.count == 8 * 8 * 4)
        for y in 0..<8 { for x in 0..<8 { #expect(close(bitmap[x, y], [100, 150, 200, 255], 1)) } }
        // Unclamped, the edges fade into the transparent surround: a pixel's alpha is the Gaussian's mass over the
        // 8×8 square, Φ-differences in x times in y (pixel 4: (Φ(1.75) − Φ(−2.25))² = 0.898 → 229; pixel 0:
        // (Φ(3.75) − Φ(−0.25))² = 0.358 → 91).
        let soft = try #require(context.bitmap(blurred, flat.extent))
        #expect(abs(Int(soft[4, 4][3]) - 229) <= 2 && abs(Int(soft[0, 0][3]) - 91) <= 2, "\(soft[4, 4]) \(soft[0, 0])")
    }

    @Test func aBoxBlurAveragesInLinearLight() throws {
        // Columns black, white, black … : a 3-wide box gives ⅓ or ⅔ white in linear light.
        let stripes = CIImage(cgImage: Bitmap(width: 6, height: 3) { x, _ in x % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] }.cgImage)
        let box = try #require(CIFilter(name: "CIBoxBlur", parameters: [kCIInputImageKey: stripes.clampedToExtent(), kCIInputRadiusKey: 1]))
        let output = try #require(box.outputImage)
        let bitmap = try #require(context.bitmap(output, stripes.extent))
        #expect(close(bitmap[2, 1], [encoded(2.0 / 3), encoded(2.0 / 3), encoded(2.0 / 3), 255], 1), "\(bitmap)")  // white, black, white
        #expect(close(bitmap[3, 1], [encoded(1.0 / 3), encoded(1.0 / 3), encoded(1.0 / 3), 255], 1), "\(bitmap)")
    }

    @Test func unsharpMaskLeavesFlatAreasAndRaisesEdges() throws {
        let edge = CIImage(cgImage: Bitmap(width: 10, height: 4) { x, _ in x < 5 ? [60, 60, 60, 255] : [200, 200, 200, 255] }.cgImage)
        let sharpened = edge.clampedToExtent().applyingFilter("CIUnsharpMask", parameters: [kCIInputRadiusKey: 1.5, kCIInputIntensityKey: 1])
        let bitmap = try #require(context.bitmap(sharpened, edge.extent))
        #expect(close(bitmap[0, 1], [60, 60, 60, 255], 1) && close(bitmap[9, 1], [200, 200, 200, 255], 1))
        #expect(bitmap[5, 1][0] > 200 && bitmap[4, 1][0] < 60, "\(bitmap)")
    }

    // MARK: Geometry

    @Test func straightenKeepsTheExtentFilledAndZeroIsTheIdentity() throws {
        let image = CIImage(cgImage: Bitmap(width: 40, height: 30) { x, y in [UInt8(x * 6), UInt8(y * 8), 100, 255] }.cgImage)
        let straight = image.applyingFilter("CIStraightenFilter", parameters: [kCIInputAngleKey: 2.5 * Double.pi / 180])
        #expect(straight.extent == image.extent)
        let bitmap = try #require(context.bitmap(straight))
        for (x, y) in [(0, 0), (39, 0), (0, 29), (39, 29)] { #expect(bitmap[x, y][3] == 255, "corner \(x),\(y) is not opaque") }
        let identity = image.applyingFilter("CIStraightenFilter", parameters: [kCIInputAngleKey: 0])
        let original = try #require(context.bitmap(image))
        #expect(context.bitmap(identity) == original)
    }

    @Test func lanczosScaleSizesTheExtent() throws {
        let image = Self.solid([10, 200, 30, 255], 64, 32)
        let half = image.applyingFilter("CILanczosScaleTransform", parameters: [kCIInputScaleKey: 0.5, kCIInputAspectRatioKey: 1])
        #expect(half.extent == CGRect(x: 0, y: 0, width: 32, height: 16))
        let bitmap = try #require(context.bitmap(half))
        #expect(close(bitmap[16, 8], [10, 200, 30, 255], 1))
        let wide = image.applyingFilter("CILanczosScaleTransform", parameters: [kCIInputScaleKey: 0.5, kCIInputAspectRatioKey: 2])
        #expect(wide.extent.size == CGSize(width: 64, height: 16))
    }

    @Test func perspectiveCorrectionOfAnUprightRectangleIsThatRectangle() throws {
        let image = CIImage(cgImage: Bitmap(width: 20, height: 10) { x, y in [UInt8(x * 12), UInt8(y * 25), 50, 255] }.cgImage)
        let corrected = image.applyingFilter(
            "CIPerspectiveCorrection",
            parameters: [
                "inputBottomLeft": CIVector(x: 2, y: 2), "inputBottomRight": CIVector(x: 12, y: 2), "inputTopRight": CIVector(x: 12, y: 8),
                "inputTopLeft": CIVector(x: 2, y: 8),
            ])
        #expect(corrected.extent == CGRect(x: 2, y: 2, width: 10, height: 6))
        let expected = try #require(context.bitmap(image.cropped(to: CGRect(x: 2, y: 2, width: 10, height: 6))))
        let got = try #require(context.bitmap(corrected))
        for y in 0..<6 { for x in 0..<10 { #expect(close(got[x, y], expected[x, y], 1), "\(x),\(y): \(got[x, y]) vs \(expected[x, y])") } }
    }

    // MARK: Compositing

    @Test func blendModesFollowTheirFormulasInLinearLight() throws {
        let a: [UInt8] = [200, 100, 50, 255], b: [UInt8] = [100, 180, 240, 255]
        func blended(_ name: String) throws -> [UInt8] {
            let out = Self.solid(a, 2, 2).applyingFilter(name, parameters: [kCIInputBackgroundImageKey: Self.solid(b, 2, 2)])
            return try #require(context.bitmap(out))[1, 1]
        }
        let (la, lb) = (a.prefix(3).map(linear), b.prefix(3).map(linear))
        #expect(close(try blended("CIMultiplyCompositing"), zip(la, lb).map { encoded($0 * $1) } + [255]))
        #expect(close(try blended("CIScreenBlendMode"), zip(la, lb).map { encoded($0 + $1 - $0 * $1) } + [255]))
        #expect(close(try blended("CILinearDodgeBlendMode"), zip(la, lb).map { encoded($0 + $1) } + [255]))
        #expect(try blended("CISourceOverCompositing") == a)
    }

    @Test func blendWithMaskTakesTheImageWhereTheMaskIsWhite() throws {
        let mask = CIImage(cgImage: Bitmap(width: 2, height: 1) { x, _ in x == 0 ? [255, 255, 255, 255] : [0, 0, 0, 255] }.cgImage)
        let out = Self.solid([255, 0, 0, 255], 2, 1).applyingFilter(
            "CIBlendWithMask", parameters: [kCIInputBackgroundImageKey: Self.solid([0, 0, 255, 255], 2, 1), kCIInputMaskImageKey: mask])
        let bitmap = try #require(context.bitmap(out))
        #expect(bitmap[0, 0] == [255, 0, 0, 255] && bitmap[1, 0] == [0, 0, 255, 255])
    }

    // MARK: Generators

    @Test func gradientsAndCheckerboardsAreComputedFromCoordinates() throws {
        let gradient = try #require(
            CIFilter(name: "CILinearGradient", parameters: ["inputPoint0": CIVector(x: 0, y: 0), "inputPoint1": CIVector(x: 100, y: 0)])?.outputImage)
        #expect(gradient.extent.isInfinite)
        let row = try #require(context.bitmap(gradient, CGRect(x: -10, y: 0, width: 120, height: 1)))
        #expect(row[0, 0] == [255, 255, 255, 255] && row[119, 0] == [0, 0, 0, 255])
        #expect(close(row[60, 0], [encoded(0.495), encoded(0.495), encoded(0.495), 255], 1), "\(row[60, 0])")  // x = 50.5
        // The smooth gradient eases t with smoothstep: at x = 25.5, t = 0.255 → 3t² − 2t³ ≈ 0.162.
        let smoothFilter = CIFilter.smoothLinearGradient()
        smoothFilter.point0 = CGPoint(x: 0, y: 0)
        smoothFilter.point1 = CGPoint(x: 100, y: 0)
        let smooth = try #require(smoothFilter.outputImage)
        let eased = try #require(context.bitmap(smooth, CGRect(x: 0, y: 0, width: 100, height: 1)))
        let t = 0.255
        let weight = 3 * t * t - 2 * t * t * t
        #expect(close(eased[25, 0], [encoded(1 - weight), encoded(1 - weight), encoded(1 - weight), 255], 1), "\(eased[25, 0])")
        #expect(eased[0, 0] == [255, 255, 255, 255] && close(eased[99, 0], [0, 0, 0, 255], 1))
        let radial = try #require(
            CIFilter(name: "CIRadialGradient", parameters: [kCIInputCenterKey: CIVector(x: 0, y: 0), "inputRadius0": 10, "inputRadius1": 20])?
                .outputImage)
        let ring = try #require(context.bitmap(radial, CGRect(x: 0, y: 0, width: 30, height: 1)))
        #expect(ring[5, 0] == [255, 255, 255, 255] && ring[25, 0] == [0, 0, 0, 255])
        let board = try #require(
            CIFilter(name: "CICheckerboardGenerator", parameters: [kCIInputCenterKey: CIVector(x: 0, y: 0), kCIInputWidthKey: 4])?.outputImage)
        let squares = try #require(context.bitmap(board, CGRect(x: -4, y: 0, width: 8, height: 4)))
        // Rows from the top: y from 3.5 down to 0.5, all in the first row of squares; x < 0 is the odd column.
        #expect(squares[0, 0] == [0, 0, 0, 255] && squares[5, 0] == [255, 255, 255, 255])
    }

    @Test func aGaussianGradientAndTheHueSaturationValueWheel() throws {
        // Gaussian: t = 1 − exp(−d² / (2σ²)) with σ = radius / 3; colour 0 at the centre, colour 1 past the radius.
        let gaussian = CIFilter.gaussianGradient()
        #expect(gaussian.radius == 300 && gaussian.center == CGPoint(x: 150, y: 150) && gaussian.color1.alpha == 0)
        gaussian.center = .zero
        gaussian.radius = 30
        gaussian.color1 = .black
        let gradient = try #require(gaussian.outputImage)
        let row = try #require(context.bitmap(gradient, CGRect(x: 0, y: 0, width: 40, height: 1)))
        let t = 1 - exp(-(10.5 * 10.5 + 0.25) / (2 * 100.0))
        #expect(close(row[0, 0], [255, 255, 255, 255], 1) && close(row[39, 0], [0, 0, 0, 255], 1), "\(row[0, 0]) \(row[39, 0])")
        #expect(close(row[10, 0], [encoded(1 - t), encoded(1 - t), encoded(1 - t), 255], 1), "\(row[10, 0])")
        // By default colour 1 is clear: far away, nothing.
        let byDefault = try #require(CIFilter.gaussianGradient().outputImage)
        let clear = try #require(context.bitmap(byDefault, CGRect(x: 1000, y: 0, width: 1, height: 1)))
        #expect(clear[0, 0] == [0, 0, 0, 0])

        // The wheel: centred on the origin, as wide as its diameter; hue is the angle from +x, saturation d / radius.
        let wheel = try #require(CIFilter.hueSaturationValueGradient().outputImage)
        #expect(wheel.extent == CGRect(x: -300, y: -300, width: 600, height: 600))
        let pixels = try #require(context.bitmap(wheel, CGRect(x: 0, y: 0, width: 301, height: 301)))
        func at(_ x: Int, _ y: Int) -> [UInt8] { pixels[x, 300 - y] }  // rows from the top; (x + 0.5, y + 0.5)
        let s = (200.5 * 200.5 + 0.25).squareRoot() / 300
        // The components are sRGB's own (the default space), so they come out as they are computed.
        func component(_ v: Double) -> UInt8 { UInt8((255 * v).rounded()) }
        #expect(close(at(200, 0), [255, component(1 - s), component(1 - s), 255], 1), "red: \(at(200, 0))")
        // 90°: hue 1.5 sixths → (1 − S/2, 1, 1 − S): a yellowish green.
        #expect(close(at(0, 200), [component(1 - s / 2), 255, component(1 - s), 255], 1), "90°: \(at(0, 200))")
        #expect(at(0, 0) == [255, 255, 255, 255])
        #expect(at(290, 290) == [0, 0, 0, 0])
        // No value: black.
        let dim = CIFilter.hueSaturationValueGradient()
        dim.value = 0
        let black = try #require(dim.outputImage)
        #expect(try #require(context.bitmap(black, CGRect(x: 0, y: 0, width: 1, height: 1)))[0, 0] == [0, 0, 0, 255])
    }

    // MARK: Effects

    @Test func monochromeEffectsAreGreyAndVignettesDarkenOnlyTheEdges() throws {
        let colourful = CIImage(cgImage: Bitmap(width: 4, height: 4) { x, y in [UInt8(x * 60), UInt8(y * 60), 180, 255] }.cgImage)
        for name in ["CIPhotoEffectMono", "CIPhotoEffectNoir", "CIPhotoEffectTonal"] {
            let bitmap = try #require(context.bitmap(colourful.applyingFilter(name)))
            for y in 0..<4 {
                for x in 0..<4 { let p = bitmap[x, y]; #expect(abs(Int(p[0]) - Int(p[2])) <= 1 && abs(Int(p[1]) - Int(p[2])) <= 1, "\(name)") }
            }
        }
        for name in ["CIPhotoEffectChrome", "CIPhotoEffectFade", "CIPhotoEffectInstant", "CIPhotoEffectProcess", "CIPhotoEffectTransfer"] {
            #expect(context.bitmap(colourful.applyingFilter(name)) != context.bitmap(colourful), "\(name) changed nothing")
        }
        // Radius 1: the corners get the whole intensity (light × (1 − 0.5)), the centre nothing.
        let grey = Self.solid([128, 128, 128, 255], 41, 41)
        let vignetted = try #require(
            context.bitmap(grey.applyingFilter("CIVignette", parameters: [kCIInputIntensityKey: 0.5, kCIInputRadiusKey: 1])))
        #expect(vignetted[20, 20] == [128, 128, 128, 255])
        #expect(
            close(
                vignetted[0, 0], [encoded(linear(128) * 0.5 * 1.03), encoded(linear(128) * 0.5 * 1.03), encoded(linear(128) * 0.5 * 1.03), 255], 3),
            "\(vignetted[0, 0])")
    }

    @Test func pixellateAveragesEachCell() throws {
        let image = CIImage(cgImage: Bitmap(width: 4, height: 2) { x, _ in x % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] }.cgImage)
        let cells = image.applyingFilter("CIPixellate", parameters: [kCIInputCenterKey: CIVector(x: 0, y: 0), kCIInputScaleKey: 2])
        let bitmap = try #require(context.bitmap(cells))
        let half = encoded(0.5)
        for x in 0..<4 { #expect(close(bitmap[x, 0], [half, half, half, 255], 1), "\(bitmap)") }
    }
}
