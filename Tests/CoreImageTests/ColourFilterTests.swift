import OpenPhotos
import Foundation
import Testing

/// Each colour filter against its formula, on pixels whose values are known: 8-bit sRGB in, the formula applied in
/// linear light (Core Image's working space), 8-bit sRGB out. Tolerance: 1 level of 8 bits unless stated.
@Suite struct ColourFilterTests {
    let context = CIContext()
    static let samples: [[UInt8]] = [[200, 100, 50, 255], [10, 128, 240, 255], [128, 128, 128, 255], [0, 0, 0, 255], [255, 255, 255, 255]]
    static var image: CIImage {
        CIImage(cgImage: Bitmap(width: samples.count, height: 1) { x, _ in samples[x] }.cgImage)
    }

    func rendered(_ name: String, _ parameters: [String: Any]) throws -> [[UInt8]] {
        let filter = try #require(CIFilter(name: name, parameters: parameters.merging([kCIInputImageKey: Self.image]) { a, _ in a }))
        let output = try #require(filter.outputImage)
        let bitmap = try #require(context.bitmap(output, Self.image.extent))
        return (0..<Self.samples.count).map { bitmap[$0, 0] }
    }

    func expect(_ name: String, _ parameters: [String: Any], tolerance: Int = 1, _ formula: ([Double]) -> [Double]) throws {
        let out = try rendered(name, parameters)
        for (index, sample) in Self.samples.enumerated() {
            let expected = formula(sample.prefix(3).map(linear)).map(encoded) + [255]
            #expect(close(out[index], expected, tolerance), "\(name) \(parameters) of \(sample): \(out[index]) expected \(expected)")
        }
    }

    @Test(arguments: [-2.0, -1, 0, 0.5, 1, 3]) func exposureMultipliesLinearLightByTwoToTheEV(ev: Double) throws {
        try expect("CIExposureAdjust", [kCIInputEVKey: ev]) { $0.map { $0 * pow(2, ev) } }
    }

    @Test func gammaRaisesLinearValuesToThePower() throws {
        try expect("CIGammaAdjust", ["inputPower": 0.5]) { $0.map { pow($0, 0.5) } }
        try expect("CIGammaAdjust", ["inputPower": 2.2]) { $0.map { pow($0, 2.2) } }
    }

    @Test(arguments: [(1.0, 0.0, 1.0), (0.0, 0.0, 1.0), (2.0, 0.0, 1.0), (1.0, 0.2, 1.0), (1.0, -0.3, 1.0), (1.0, 0.0, 0.5), (0.6, 0.1, 1.3)])
    func colorControlsFollowTheDocumentedFormulas(saturation: Double, brightness: Double, contrast: Double) throws {
        try expect(
            "CIColorControls", [kCIInputSaturationKey: saturation, kCIInputBrightnessKey: brightness, kCIInputContrastKey: contrast]
        ) { c in
            // Saturation mixes with the Rec. 709 luminance; brightness adds; contrast scales about ½.
            let l: Double = 0.2125 * c[0] + 0.7154 * c[1] + 0.0721 * c[2]
            return c.map { (v: Double) -> Double in ((l + (v - l) * saturation) + brightness - 0.5) * contrast + 0.5 }
        }
    }

    @Test func sepiaIsTheSepiaMatrixMixedByIntensity() throws {
        let m: [Double] = [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131]
        for intensity in [0.0, 0.5, 1.0] {
            try expect("CISepiaTone", [kCIInputIntensityKey: intensity]) { c in
                var out: [Double] = []
                for r in 0..<3 {
                    let toned: Double = m[r * 3] * c[0] + m[r * 3 + 1] * c[1] + m[r * 3 + 2] * c[2]
                    out.append(c[r] + (toned - c[r]) * intensity)
                }
                return out
            }
        }
    }

    @Test func colorMatrixMultipliesUnpremultipliedRGBAAndAddsTheBias() throws {
        // Red from blue, green halved, blue from red plus 0.1.
        try expect(
            "CIColorMatrix",
            [
                "inputRVector": CIVector(x: 0, y: 0, z: 1, w: 0), "inputGVector": CIVector(x: 0, y: 0.5, z: 0, w: 0),
                "inputBVector": CIVector(x: 1, y: 0, z: 0, w: 0), kCIInputBiasVectorKey: CIVector(x: 0, y: 0, z: 0.1, w: 0),
            ]
        ) { [$0[2], $0[1] * 0.5, $0[0] + 0.1] }
    }

    @Test func colorClampAndPolynomialWorkPerChannel() throws {
        try expect(
            "CIColorClamp", ["inputMinComponents": CIVector(x: 0.1, y: 0, z: 0, w: 0), "inputMaxComponents": CIVector(x: 1, y: 0.2, z: 0.5, w: 1)]
        ) {
            [min(1, max(0.1, $0[0])), min(0.2, $0[1]), min(0.5, $0[2])]
        }
        try expect("CIColorPolynomial", ["inputRedCoefficients": CIVector(x: 0.1, y: 0.5, z: 0.2, w: 0.1)]) { c in
            let r: Double = c[0]
            let red: Double = 0.1 + 0.5 * r + 0.2 * r * r + 0.1 * r * r * r
            return [red, c[1], c[2]]
        }
    }

    @Test func invertAndHueRotationKeepWhatTheyShould() throws {
        try expect("CIColorInvert", [:]) { $0.map { 1 - $0 } }
        // A hue turn keeps luminance (SVG hueRotate's weights; within 0.02, as components leaving 0…1 are clipped
        // in 8 bits) and a full turn is the identity.
        try expect("CIHueAdjust", [kCIInputAngleKey: 2 * Double.pi]) { $0 }
        let turned = try rendered("CIHueAdjust", [kCIInputAngleKey: 1.0])
        let l = { (p: [UInt8]) -> Double in
            let r: Double = 0.213 * linear(p[0])
            return r + 0.715 * linear(p[1]) + 0.072 * linear(p[2])
        }
        #expect(abs(l(turned[0]) - l(Self.samples[0])) < 0.02)
        #expect(turned[2] == [128, 128, 128, 255])  // grey stays grey
    }

    @Test func toneCurvePassesThroughItsFivePointsInPerceptualSpace() throws {
        // The default curve is the identity.
        let identity = try rendered("CIToneCurve", [:])
        for (index, sample) in Self.samples.enumerated() { #expect(close(identity[index], sample, 1), "\(identity[index]) vs \(sample)") }
        // Raising the midpoint: an sRGB-encoded value at a point's x comes out at its y.
        let curved = try rendered("CIToneCurve", ["inputPoint2": CIVector(x: 128.0 / 255, y: 0.75)])
        #expect(close(curved[2], [191, 191, 191, 255], 1), "\(curved[2])")
        #expect(curved[3] == [0, 0, 0, 255] && curved[4] == [255, 255, 255, 255])
    }

    @Test func colorCubeLooksUpColoursAtItsNodesExactly() throws {
        // An identity cube changes nothing; a cube that swaps red and blue swaps them at every node.
        let n = 4
        var swapped: [Float] = []
        for b in 0..<n { for g in 0..<n { for r in 0..<n { swapped += [Float(b), Float(g), Float(r)].map { $0 / Float(n - 1) } + [1] } } }
        let swappedData = swapped.withUnsafeBytes { Data($0) }
        try expect("CIColorCube", [:]) { $0 }
        try expect("CIColorCube", ["inputCubeDimension": n, "inputCubeData": swappedData]) { [$0[2], $0[1], $0[0]] }
        // With a colour space, the lookup is on sRGB-encoded values; a swap is a swap either way.
        try expect(
            "CIColorCubeWithColorSpace",
            ["inputCubeDimension": n, "inputCubeData": swappedData, "inputColorSpace": CGColorSpace(name: CGColorSpace.sRGB)!]
        ) { [$0[2], $0[1], $0[0]] }
        // A cube of the wrong size gives no output.
        let filter = try #require(CIFilter(name: "CIColorCube"))
        filter.setValue(Self.image, forKey: kCIInputImageKey)
        filter.setValue(8, forKey: "inputCubeDimension")
        filter.setValue(swappedData, forKey: "inputCubeData")
        #expect(filter.outputImage == nil)
    }

    @Test func whitePointAdjustMakesTheColourWhite() throws {
        let out = try rendered("CIWhitePointAdjust", [kCIInputColorKey: CIColor(red: 200.0 / 255, green: 100.0 / 255, blue: 50.0 / 255)])
        #expect(close(out[0], [255, 255, 255, 255], 1), "\(out[0])")
    }

    @Test func temperatureAndTintAtEqualNeutralsChangesNothing() throws {
        try expect("CITemperatureAndTint", [:]) { $0 }
        // Declaring the light warmer than the target cools the picture: blue rises relative to red.
        let cooled = try rendered("CITemperatureAndTint", ["inputNeutral": CIVector(x: 4000, y: 0), "inputTargetNeutral": CIVector(x: 6500, y: 0)])
        #expect(cooled[2][2] > cooled[2][0])
    }
}

/// Video frames are 8-bit sRGB bitmaps through colour steps into 8-bit bitmaps: rendered in one pass straight from the
/// bytes (OpenCoreImage's shortcut past libvips), they must be the pixels the general path makes.
@Suite struct BitmapColourRenderTests {
    let context = CIContext()
    let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!

    /// 64×48 opaque pixels covering every byte value in each channel, as a video frame arrives (RGBX).
    static let frame: CGImage = {
        var bytes = [UInt8](repeating: 0, count: 64 * 48 * 4)
        for i in 0..<(64 * 48) {
            bytes[4 * i] = UInt8(i % 256)
            bytes[4 * i + 1] = UInt8((i * 7 + 3) % 256)
            bytes[4 * i + 2] = UInt8(255 - (i * 13) % 256)
            bytes[4 * i + 3] = 0x5A  // padding: never read as alpha
        }
        return CGImage(
            width: 64, height: 48, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: 64 * 4, space: CGColorSpace(name: CGColorSpace.sRGB)!,
            bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.noneSkipLast.rawValue),
            provider: CGDataProvider(data: NSData(bytes: bytes, length: bytes.count))!,
            decode: nil, shouldInterpolate: false, intent: .defaultIntent)!
    }()

    static let chains: [(String, @Sendable (CIImage) -> CIImage)] = [
        ("none", { $0 }),
        (
            "colour matrix",
            {
                $0.applyingFilter(
                    "CIColorMatrix",
                    parameters: ["inputRVector": CIVector(x: 1.1, y: 0, z: 0, w: 0), "inputBVector": CIVector(x: 0, y: 0.2, z: 0.9, w: 0)])
            }
        ),
        (
            "controls then exposure (merged)",
            {
                $0.applyingFilter("CIColorControls", parameters: [kCIInputSaturationKey: 1.4, kCIInputContrastKey: 1.2, kCIInputBrightnessKey: 0.05])
                    .applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 0.7])
            }
        ),
        ("sepia", { $0.applyingFilter("CISepiaTone", parameters: [kCIInputIntensityKey: 0.8]) }),
        ("invert", { $0.applyingFilter("CIColorInvert") }),
    ]

    @Test(arguments: 0..<5) func bitmapsMatchTheGeneralPath(chain: Int) throws {
        let (name, apply) = Self.chains[chain]
        let image = apply(CIImage(cgImage: Self.frame))
        for bounds in [CGRect(x: 0, y: 0, width: 64, height: 48), CGRect(x: 5, y: 7, width: 30, height: 20)] {
            let general = try #require(context.createCGImage(image, from: bounds, format: .RGBA8, colorSpace: sRGB)?.dataProvider?.data)
            var direct = [UInt8](repeating: 0, count: Int(bounds.width * bounds.height) * 4)
            context.render(
                image.cropped(to: bounds), toBitmap: &direct, rowBytes: Int(bounds.width) * 4, bounds: bounds, format: .RGBA8, colorSpace: sRGB)
            let expected = [UInt8](general as Data)
            let worst = zip(direct, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "\(name) in \(bounds): off by \(worst)")
            #expect(stride(from: 3, to: direct.count, by: 4).allSatisfy { direct[$0] == 255 }, "opaque")
        }
    }

    /// The exact arithmetic: red × 1.1 and blue × 0.9 in linear light, clipped, re-encoded (±1 of the sRGB formula).
    @Test func aColourMatrixIsAppliedInLinearLight() {
        let image = CIImage(cgImage: Self.frame).applyingFilter(
            "CIColorMatrix", parameters: ["inputRVector": CIVector(x: 1.1, y: 0, z: 0, w: 0), "inputBVector": CIVector(x: 0, y: 0, z: 0.9, w: 0)])
        var out = [UInt8](repeating: 0, count: 64 * 48 * 4)
        context.render(image, toBitmap: &out, rowBytes: 64 * 4, bounds: image.extent, format: .RGBA8, colorSpace: sRGB)
        let source = [UInt8](Self.frame.dataProvider!.data! as Data)
        for i in stride(from: 0, to: out.count, by: 4) {
            let want = [encoded(linear(source[i]) * 1.1), source[i + 1], encoded(linear(source[i + 2]) * 0.9), 255]
            #expect(close(Array(out[i..<i + 4]), want), "pixel \(i / 4): \(out[i..<i + 4]) for \(want)")
            if !close(Array(out[i..<i + 4]), want) { break }
        }
    }
}
