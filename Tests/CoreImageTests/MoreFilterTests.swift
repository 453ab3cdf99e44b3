import OpenPhotos
import Foundation
import Testing

/// The remaining filters against their stated formulas, and inputs at their minimum, maximum and defaults.
@Suite struct MoreFilterTests {
    let context = CIContext()
    static let colours: [[UInt8]] = [[200, 100, 50, 255], [10, 128, 240, 255], [128, 128, 128, 255], [30, 30, 30, 255], [240, 240, 240, 255]]
    static let image = CIImage(cgImage: Bitmap(width: colours.count, height: 1) { x, _ in colours[x] }.cgImage)

    func pixels(_ name: String, _ parameters: [String: Any] = [:]) throws -> [[UInt8]] {
        let output = Self.image.applyingFilter(name, parameters: parameters)
        let bitmap = try #require(context.bitmap(output, Self.image.extent))
        return (0..<Self.colours.count).map { bitmap[$0, 0] }
    }

    static func luminance(_ c: [Double]) -> Double { 0.2125 * c[0] + 0.7154 * c[1] + 0.0721 * c[2] }

    /// Every filter with every numeric input at its minimum, maximum and default (from its own attributes) renders.
    @Test func everyFilterRendersAtItsInputsExtremes() throws {
        for name in CIFilter.filterNames(inCategories: nil) {
            let filter = try #require(CIFilter(name: name))
            for key in filter.inputKeys {
                let attributes = filter.attributes[key] as? [String: Any] ?? [:]
                guard attributes[kCIAttributeClass] as? String == "NSNumber" else { continue }
                for bound in [kCIAttributeSliderMin, kCIAttributeSliderMax, kCIAttributeDefault] {
                    guard let value = attributes[bound] as? NSNumber else { continue }
                    let probe = try #require(CIFilter(name: name))
                    if probe.inputKeys.contains(kCIInputImageKey) { probe.setValue(Self.image, forKey: kCIInputImageKey) }
                    if probe.inputKeys.contains(kCIInputBackgroundImageKey) { probe.setValue(Self.image, forKey: kCIInputBackgroundImageKey) }
                    if probe.inputKeys.contains(kCIInputMaskImageKey) { probe.setValue(Self.image, forKey: kCIInputMaskImageKey) }
                    probe.setValue(value, forKey: key)
                    guard let output = probe.outputImage else {
                        // Only a cube whose dimension no longer matches its data may refuse.
                        #expect(name.hasPrefix("CIColorCube"), "\(name) \(key)=\(value) gave no output")
                        continue
                    }
                    let area = output.extent.isInfinite ? Self.image.extent : output.extent.intersection(Self.image.extent.insetBy(dx: -20, dy: -20))
                    guard !area.isNull, !area.isEmpty else { continue }
                    #expect(context.createCGImage(output, from: area) != nil, "\(name) \(key)=\(value) did not render")
                }
            }
        }
    }

    @Test func monochromeTintsTheLuminance() throws {
        let out = try pixels("CIColorMonochrome", [kCIInputColorKey: CIColor(red: 1, green: 0.5, blue: 0.25), kCIInputIntensityKey: 1])
        let tint = [1.0, 0.5, 0.25].map { (v: Double) -> Double in v <= 0.040_45 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        for (index, colour) in Self.colours.enumerated() {
            let l = Self.luminance(colour.prefix(3).map(linear))
            let expected = tint.map { encoded($0 * l) } + [255]
            #expect(close(out[index], expected, 1), "\(out[index]) vs \(expected)")
        }
        #expect(try pixels("CIColorMonochrome", [kCIInputIntensityKey: 0]) == Self.colours)
    }

    @Test func posterizeRoundsEachEncodedChannelDownToItsLevels() throws {
        let out = try pixels("CIColorPosterize", ["inputLevels": 2])
        // Two levels: each channel 0 below 0.5 (encoded), 1 from 0.5.
        for (index, colour) in Self.colours.enumerated() {
            let expected = colour.prefix(3).map { Double($0) / 255 >= 0.5 ? UInt8(255) : 0 } + [255]
            #expect(out[index] == expected, "\(colour) → \(out[index])")
        }
    }

    @Test func vibranceRaisesDullColoursMoreThanVividOnes() throws {
        #expect(try pixels("CIVibrance", [kCIInputAmountKey: 0]) == Self.colours)
        let out = try pixels("CIVibrance", [kCIInputAmountKey: 1])
        // factor = 1 + amount·(1 − chroma), about the luminance, in linear light.
        for (index, colour) in Self.colours.enumerated() {
            let c = colour.prefix(3).map(linear)
            let chroma = min(1, c.max()! - c.min()!)
            let l = Self.luminance(c)
            let expected = c.map { encoded(l + ($0 - l) * (2 - chroma)) } + [255]
            #expect(close(out[index], expected, 1), "\(out[index]) vs \(expected)")
        }
        #expect(out[2] == Self.colours[2])  // grey stays grey
    }

    @Test func highlightsAndShadowsMoveOnlyTheirEnds() throws {
        #expect(try pixels("CIHighlightShadowAdjust") == Self.colours)  // the defaults change nothing
        let lifted = try pixels("CIHighlightShadowAdjust", ["inputShadowAmount": 1])
        #expect(Int(lifted[3][0]) - 30 > 8 && abs(Int(lifted[4][0]) - 240) <= 3)  // dark lifted, bright (almost) kept
        let pulled = try pixels("CIHighlightShadowAdjust", ["inputHighlightAmount": 0])
        #expect(240 - Int(pulled[4][0]) > 8 && abs(Int(pulled[3][0]) - 30) <= 3)  // bright pulled down, dark (almost) kept
    }

    @Test func vignetteEffectIsFlatInsideAndFullOutside() throws {
        let grey = FilterTests.solid([128, 128, 128, 255], 100, 1)
        let out = grey.applyingFilter(
            "CIVignetteEffect",
            parameters: [kCIInputCenterKey: CIVector(x: 0, y: 0.5), kCIInputRadiusKey: 40, kCIInputIntensityKey: 1, "inputFalloff": 0.25])
        let bitmap = try #require(context.bitmap(out))
        #expect(bitmap[29, 0] == [128, 128, 128, 255])  // within 40·(1 − ¼)
        #expect(bitmap[60, 0] == [0, 0, 0, 255])  // beyond 40·(1 + ¼): light × (1 − 1)
        #expect(bitmap[40, 0][0] < 128 && bitmap[40, 0][0] > 0)
    }

    @Test func discAndMotionBlursAverageTheirShapes() throws {
        // A single white pixel in black, clamped black around: the blurred pixel's linear value is 1 / (area).
        let dot = CIImage(cgImage: Bitmap(width: 21, height: 21) { x, y in x == 10 && y == 10 ? [255, 255, 255, 255] : [0, 0, 0, 255] }.cgImage)
        let disc = dot.clampedToExtent().applyingFilter("CIDiscBlur", parameters: [kCIInputRadiusKey: 2]).cropped(to: dot.extent)
        let discCentre = try #require(context.bitmap(disc))[10, 10][0]
        #expect(close([discCentre], [encoded(1.0 / 13)], 1), "\(discCentre)")  // 13 pixels within radius 2
        let motion = dot.clampedToExtent().applyingFilter("CIMotionBlur", parameters: [kCIInputRadiusKey: 3, kCIInputAngleKey: 0]).cropped(
            to: dot.extent)
        let streak = try #require(context.bitmap(motion))
        #expect(close([streak[10, 10][0]], [encoded(1.0 / 7)], 1) && close([streak[13, 10][0]], [encoded(1.0 / 7)], 1))
        #expect(streak[10, 12][0] == 0)  // horizontal only
    }

    @Test func sharpenLuminanceAndNoiseReductionKeepFlatAreas() throws {
        let flat = FilterTests.solid([120, 60, 200, 255], 12, 12).clampedToExtent()
        for (name, parameters) in [("CISharpenLuminance", [kCIInputSharpnessKey: 2.0]), ("CINoiseReduction", ["inputNoiseLevel": 0.1])] {
            let out = try #require(context.bitmap(flat.applyingFilter(name, parameters: parameters), CGRect(x: 0, y: 0, width: 12, height: 12)))
            #expect(close(out[6, 6], [120, 60, 200, 255], 1), "\(name): \(out[6, 6])")
        }
        // Noise smaller than the level is removed: one pixel 2 levels off its neighbours goes back to them.
        let speck = CIImage(cgImage: Bitmap(width: 5, height: 5) { x, y in x == 2 && y == 2 ? [130, 130, 130, 255] : [128, 128, 128, 255] }.cgImage)
        let cleaned = try #require(
            context.bitmap(
                speck.clampedToExtent().applyingFilter("CINoiseReduction", parameters: ["inputNoiseLevel": 0.05, kCIInputSharpnessKey: 0]),
                speck.extent))
        #expect(cleaned[2, 2] == [128, 128, 128, 255])
    }

    @Test func alphaMaskBlendAndByNameGeometry() throws {
        let mask = CIImage(color: CIColor(red: 0, green: 0, blue: 0, alpha: 0.25)).cropped(to: Self.image.extent)
        let out = Self.image.applyingFilter(
            "CIBlendWithAlphaMask", parameters: [kCIInputBackgroundImageKey: FilterTests.solid([0, 0, 0, 255], 5, 1), kCIInputMaskImageKey: mask])
        let bitmap = try #require(context.bitmap(out))
        #expect(close(bitmap[2, 0], [encoded(linear(128) * 0.25), encoded(linear(128) * 0.25), encoded(linear(128) * 0.25), 255], 1))
        let cropped = Self.image.applyingFilter("CICrop", parameters: ["inputRectangle": CIVector(cgRect: CGRect(x: 1, y: 0, width: 2, height: 1))])
        #expect(cropped.extent == CGRect(x: 1, y: 0, width: 2, height: 1))
        let moved = Self.image.applyingFilter("CIAffineTransform", parameters: [kCIInputTransformKey: CGAffineTransform(scaleX: 2, y: 3)])
        #expect(moved.extent == CGRect(x: 0, y: 0, width: 10, height: 3))
    }

    @Test func nearestSamplingRepeatsPixelsInsteadOfBlending() throws {
        let row = CIImage(cgImage: Bitmap(width: 2, height: 1) { x, _ in x == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] }.cgImage)
        let scaled = row.samplingNearest().clampedToExtent().transformed(by: CGAffineTransform(scaleX: 4, y: 1)).cropped(
            to: CGRect(x: 0, y: 0, width: 8, height: 1))
        let bitmap = try #require(context.bitmap(scaled))
        #expect((0..<8).map { bitmap[$0, 0][0] } == [0, 0, 0, 0, 255, 255, 255, 255])
    }
}
