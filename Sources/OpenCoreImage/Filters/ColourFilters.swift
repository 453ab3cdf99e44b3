import CVipsShims
import Foundation

/// The colour adjustments: per-pixel formulas in Core Image's working space (linear light, unpremultiplied colours,
/// alpha kept), with Apple's input names, defaults and ranges.
enum ColourFilters {
    static let all: [FilterDefinition] = [
        filter(
            "CIExposureAdjust", "Exposure Adjust", [kCICategoryColorAdjustment],
            [imageInput, FilterInput(kCIInputEVKey, .number, default: 0.0, sliderMin: -10, sliderMax: 10, identity: 0)]
        ) { inputs in
            // Linear light times 2^EV.
            let gain = pow(2, inputs.number(kCIInputEVKey))
            return inputs.image()?.affineColour([gain, 0, 0, 0, gain, 0, 0, 0, gain])
        },
        filter(
            "CIGammaAdjust", "Gamma Adjust", [kCICategoryColorAdjustment],
            [imageInput, FilterInput("inputPower", .number, default: 1.0, sliderMin: 0.25, sliderMax: 4, identity: 1)]
        ) { inputs in
            let power = inputs.number("inputPower")
            return inputs.image()?.colourKernel { (rgb) throws(VipsError) -> VImage in try rgb.signedPower(power) }
        },
        filter(
            "CIColorControls", "Color Controls", [kCICategoryColorAdjustment],
            [
                imageInput,
                FilterInput(kCIInputSaturationKey, .number, default: 1.0, min: 0, sliderMin: 0, sliderMax: 2, identity: 1),
                FilterInput(kCIInputBrightnessKey, .number, default: 0.0, min: -1, sliderMin: -1, sliderMax: 1, identity: 0),
                FilterInput(kCIInputContrastKey, .number, default: 1.0, min: 0, sliderMin: 0.25, sliderMax: 4, identity: 1),
            ]
        ) { inputs in
            let (s, b, c) = (inputs.number(kCIInputSaturationKey), inputs.number(kCIInputBrightnessKey), inputs.number(kCIInputContrastKey))
            let (matrix, offset) = ColourMath.colorControls(saturation: s, brightness: b, contrast: c)
            return inputs.image()?.affineColour(matrix, offset)
        },
        filter(
            "CIHueAdjust", "Hue Adjust", [kCICategoryColorAdjustment],
            [
                imageInput,
                FilterInput(kCIInputAngleKey, .number, default: 0.0, sliderMin: -.pi, sliderMax: .pi, identity: 0, type: kCIAttributeTypeAngle),
            ]
        ) { inputs in
            return inputs.image()?.affineColour(ColourMath.hueRotation(inputs.number(kCIInputAngleKey)))
        },
        filter(
            "CIVibrance", "Vibrance", [kCICategoryColorAdjustment],
            [imageInput, FilterInput(kCIInputAmountKey, .number, default: 0.0, sliderMin: -1, sliderMax: 1, identity: 0)]
        ) { inputs in
            let amount = inputs.number(kCIInputAmountKey)
            return inputs.image()?.colourKernel { (rgb) throws(VipsError) -> VImage in try ColourMath.vibrance(rgb, amount) }
        },
        filter(
            "CITemperatureAndTint", "Temperature and Tint", [kCICategoryColorAdjustment],
            [
                imageInput,
                FilterInput("inputNeutral", .vector, default: CIVector(x: 6500, y: 0), type: kCIAttributeTypeOffset),
                FilterInput("inputTargetNeutral", .vector, default: CIVector(x: 6500, y: 0), type: kCIAttributeTypeOffset),
            ]
        ) { inputs in
            let source = inputs.vector("inputNeutral"), target = inputs.vector("inputTargetNeutral")
            return inputs.image()?.affineColour(ColourMath.whiteBalance(from: (source.x, source.y), to: (target.x, target.y)))
        },
        filter(
            "CIWhitePointAdjust", "White Point Adjust", [kCICategoryColorAdjustment],
            [imageInput, FilterInput(kCIInputColorKey, .color, default: CIColor.white)]
        ) { inputs in
            // The colour given becomes white: each channel divided by the colour's (linear) component.
            let white = inputs.color(kCIInputColorKey).workingRGBA
            let gains = (0..<3).map { white[$0] > 0 ? white[3] / white[$0] : 1 }
            return inputs.image()?.affineColour([gains[0], 0, 0, 0, gains[1], 0, 0, 0, gains[2]])
        },
        filter(
            "CIColorMatrix", "Color Matrix", [kCICategoryColorAdjustment],
            [
                imageInput, FilterInput("inputRVector", .vector, default: CIVector(x: 1, y: 0, z: 0, w: 0)),
                FilterInput("inputGVector", .vector, default: CIVector(x: 0, y: 1, z: 0, w: 0)),
                FilterInput("inputBVector", .vector, default: CIVector(x: 0, y: 0, z: 1, w: 0)),
                FilterInput("inputAVector", .vector, default: CIVector(x: 0, y: 0, z: 0, w: 1)),
                FilterInput(kCIInputBiasVectorKey, .vector, default: CIVector(x: 0, y: 0, z: 0, w: 0)),
            ]
        ) { inputs in
            // s' = (s·R, s·G, s·B, s·A) + bias on unpremultiplied RGBA.
            let rows = ["inputRVector", "inputGVector", "inputBVector", "inputAVector"].map { key in
                (0..<4).map { Double(inputs.vector(key).value(at: $0)) }
            }
            let bias = (0..<4).map { Double(inputs.vector(kCIInputBiasVectorKey).value(at: $0)) }
            let keepsOpacity = rows[3] == [0, 0, 0, 1] && bias[3] == 0
            if keepsOpacity && rows[0..<3].allSatisfy({ $0[3] == 0 }) {
                // Colours from colours only: an affine colour step, merged with its neighbours.
                return inputs.image()?.affineColour(rows[0..<3].flatMap { $0[0..<3] }, Array(bias[0..<3]))
            }
            return inputs.image()?.rgbaKernel(keepsOpacity: keepsOpacity) { (rgba) throws(VipsError) -> VImage in
                try rgba.recombined(rows.flatMap { $0 }).linear([1, 1, 1, 1], bias)
            }
        },
        filter(
            "CIColorClamp", "Color Clamp", [kCICategoryColorAdjustment],
            [
                imageInput, FilterInput("inputMinComponents", .vector, default: CIVector(x: 0, y: 0, z: 0, w: 0)),
                FilterInput("inputMaxComponents", .vector, default: CIVector(x: 1, y: 1, z: 1, w: 1)),
            ]
        ) { inputs in
            let low = (0..<4).map { Double(inputs.vector("inputMinComponents").value(at: $0)) }
            let high = (0..<4).map { Double(inputs.vector("inputMaxComponents").value(at: $0)) }
            return inputs.image()?.rgbaKernel(keepsOpacity: high[3] >= 1 && low[3] <= 1) { (rgba) throws(VipsError) -> VImage in
                let bands = try (0..<4).map { (i) throws(VipsError) -> VImage in try ColourConversion.clamp(try rgba.band(i), low[i], high[i]) }
                return try VipsCall("bandjoin").images("in", bands).output()
            }
        },
        filter(
            "CIColorPolynomial", "Color Polynomial", [kCICategoryColorAdjustment],
            ["inputRedCoefficients", "inputGreenCoefficients", "inputBlueCoefficients", "inputAlphaCoefficients"].reduce(into: [imageInput]) {
                $0.append(FilterInput($1, .vector, default: CIVector(x: 0, y: 1, z: 0, w: 0)))
            }
        ) { inputs in
            // c' = a0 + a1·c + a2·c² + a3·c³ per channel (unpremultiplied).
            let coefficients = ["inputRedCoefficients", "inputGreenCoefficients", "inputBlueCoefficients", "inputAlphaCoefficients"].map {
                key in (0..<4).map { Double(inputs.vector(key).value(at: $0)) }
            }
            return inputs.image()?.rgbaKernel(keepsOpacity: coefficients[3] == [0, 1, 0, 0]) { (rgba) throws(VipsError) -> VImage in
                let bands = try (0..<4).map { (i) throws(VipsError) -> VImage in
                    try ColourMath.polynomial(try rgba.band(i), coefficients[i])
                }
                return try VipsCall("bandjoin").images("in", bands).output()
            }
        },
        filter(
            "CIToneCurve", "Tone Curve", [kCICategoryColorAdjustment],
            [imageInput]
                + [(0.0, 0.0), (0.25, 0.25), (0.5, 0.5), (0.75, 0.75), (1.0, 1.0)].enumerated().map { index, point in
                    FilterInput("inputPoint\(index)", .vector, default: CIVector(x: point.0, y: point.1), type: kCIAttributeTypeOffset)
                }
        ) { inputs in
            // A monotone cubic through the five points, applied to each channel in the sRGB-encoded (perceptual)
            // version of the working space.
            let points = (0..<5).map { inputs.vector("inputPoint\($0)").cgPointValue }
            let curve = ToneCurve(points: points.map { (Double($0.x), Double($0.y)) })
            return inputs.image()?.colourKernel { (rgb) throws(VipsError) -> VImage in try rgb.perceptualCurve(curve.value) }
        },
        filter(
            "CIColorInvert", "Color Invert", [kCICategoryColorEffect],
            [imageInput]
        ) { inputs in
            inputs.image()?.affineColour([-1, 0, 0, 0, -1, 0, 0, 0, -1], [1, 1, 1])
        },
        filter(
            "CIColorMonochrome", "Color Monochrome", [kCICategoryColorEffect],
            [
                imageInput, FilterInput(kCIInputColorKey, .color, default: CIColor(red: 0.6, green: 0.45, blue: 0.3)),
                FilterInput(kCIInputIntensityKey, .number, default: 1.0, min: 0, max: 1, identity: 0),
            ]
        ) { inputs in
            // The luminance tinted by the colour, mixed with the original by the intensity.
            let tint = inputs.color(kCIInputColorKey).workingRGBA
            let intensity = inputs.number(kCIInputIntensityKey)
            // (1 − i)·c + i·tint·luminance: one matrix.
            var matrix = [Double](repeating: 0, count: 9)
            for r in 0..<3 { for c in 0..<3 { matrix[r * 3 + c] = intensity * tint[r] * ColourMath.luma[c] + (r == c ? 1 - intensity : 0) } }
            return inputs.image()?.affineColour(matrix)
        },
        filter(
            "CIColorPosterize", "Color Posterize", [kCICategoryColorEffect],
            [imageInput, FilterInput("inputLevels", .number, default: 6.0, min: 1, sliderMin: 2, sliderMax: 30)]
        ) { inputs in
            // Each sRGB-encoded channel rounded down to one of `levels` steps.
            let levels = max(1, inputs.number("inputLevels"))
            return inputs.image()?.colourKernel { (rgb) throws(VipsError) -> VImage in
                let encoded = try ColourConversion.clamp(try ColourConversion.linearToSRGB(rgb))
                let scaled = try encoded.linear([levels], [0])
                let floored = try VipsCall("round").image("in", scaled).enumeration("round", "floor").output()
                let stepped = try ColourConversion.clamp(try floored.linear([1 / max(1, levels - 1)], [0]))
                return try ColourConversion.sRGBToLinear(stepped)
            }
        },
        filter(
            "CISepiaTone", "Sepia Tone", [kCICategoryColorEffect],
            [imageInput, FilterInput(kCIInputIntensityKey, .number, default: 1.0, min: 0, max: 1, identity: 0)]
        ) { inputs in
            let intensity = inputs.number(kCIInputIntensityKey)
            // (1 − i)·c + i·S·c: one matrix.
            let matrix = (0..<9).map { (1 - intensity) * AffineColourNode.identity[$0] + intensity * ColourMath.sepia[$0] }
            return inputs.image()?.affineColour(matrix)
        },
        filter(
            "CIColorCube", "Color Cube", [kCICategoryColorEffect],
            [
                imageInput, FilterInput("inputCubeDimension", .number, default: 2.0, min: 2, max: 128, type: kCIAttributeTypeCount),
                FilterInput("inputCubeData", .data, default: ColourCube.identityData(dimension: 2)),
                FilterInput("inputExtrapolate", .number, default: 0.0, type: kCIAttributeTypeBoolean),
            ]
        ) { inputs in
            guard let cube = ColourCube(dimension: Int(inputs.number("inputCubeDimension")), data: inputs.data("inputCubeData")) else {
                return nil
            }
            return inputs.image()?.colourKernel { (rgb) throws(VipsError) -> VImage in try cube.apply(rgb) }
        },
        filter(
            "CIColorCubeWithColorSpace", "Color Cube with ColorSpace", [kCICategoryColorEffect],
            [
                imageInput, FilterInput("inputCubeDimension", .number, default: 2.0, min: 2, max: 128, type: kCIAttributeTypeCount),
                FilterInput("inputCubeData", .data, default: ColourCube.identityData(dimension: 2)),
                FilterInput("inputColorSpace", .colorSpace, default: nil),
                FilterInput("inputExtrapolate", .number, default: 0.0, type: kCIAttributeTypeBoolean),
            ]
        ) { inputs in
            guard let cube = ColourCube(dimension: Int(inputs.number("inputCubeDimension")), data: inputs.data("inputCubeData")) else {
                return nil
            }
            // The lookup happens on the colours encoded in that space (sRGB-encoded for sRGB: how looks are made).
            let space = inputs.colorSpace("inputColorSpace")?.encoding
            return inputs.image()?.colourKernel { (rgb) throws(VipsError) -> VImage in
                guard let space else { return try cube.apply(rgb) }
                var encoded = rgb
                if space.primaries == .displayP3 { encoded = try encoded.recombined(ColourConversion.sRGBToP3) }
                if space.transfer == .sRGB { encoded = try ColourConversion.linearToSRGB(encoded) }
                var looked = try cube.apply(encoded)
                if space.transfer == .sRGB { looked = try ColourConversion.sRGBToLinear(looked) }
                if space.primaries == .displayP3 { looked = try looked.recombined(ColourConversion.p3ToSRGB) }
                return looked
            }
        },
    ]
}

/// The formulas, kept apart so tests can state them.
enum ColourMath {
    /// The sRGB transfer curve, encoding a linear value in 0…1.
    static func encodeSRGB(_ x: Double) -> Double { x <= 0.003_130_8 ? x * 12.92 : 1.055 * pow(x, 1 / 2.4) - 0.055 }

    /// The sRGB transfer curve, decoding an encoded value in 0…1.
    static func decodeSRGB(_ v: Double) -> Double { v <= 0.040_45 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }

    /// Rec. 709 luminance weights (as Core Image's colour kernels use).
    static let luma = [0.2125, 0.7154, 0.0721]

    /// The classic sepia matrix (rows: red, green, blue).
    static let sepia: [Double] = [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131]

    /// CIColorControls as a matrix and an offset: saturation mixes with the luminance, brightness adds, contrast
    /// scales about ½ — `k·(M·c + b − ½) + ½`.
    static func colorControls(saturation: Double, brightness: Double, contrast: Double) -> (matrix: [Double], offset: [Double]) {
        var m = [Double](repeating: 0, count: 9)
        for r in 0..<3 { for c in 0..<3 { m[r * 3 + c] = contrast * ((1 - saturation) * luma[c] + (r == c ? saturation : 0)) } }
        return (m, Array(repeating: (brightness - 0.5) * contrast + 0.5, count: 3))
    }

    /// CIColorControls on an image (the photo effects' saturation steps).
    static func colorControls(_ rgb: VImage, saturation: Double, brightness: Double, contrast: Double) throws(VipsError) -> VImage {
        var out = rgb
        if saturation != 1 {
            // One matrix: each output colour is s·c + (1 − s)·luminance.
            var m = [Double](repeating: 0, count: 9)
            for r in 0..<3 { for c in 0..<3 { m[r * 3 + c] = (1 - saturation) * luma[c] + (r == c ? saturation : 0) } }
            out = try out.recombined(m)
        }
        if brightness != 0 || contrast != 1 {
            // (c + b − ½)·k + ½
            out = try out.linear([contrast, contrast, contrast], Array(repeating: (brightness - 0.5) * contrast + 0.5, count: 3))
        }
        return out
    }

    static func colorControls(_ c: [Double], saturation: Double, brightness: Double, contrast: Double) -> [Double] {
        let l = zip(c, luma).map(*).reduce(0, +)
        return c.map { ((l + ($0 - l) * saturation) + brightness - 0.5) * contrast + 0.5 }
    }

    /// A rotation of hue by `angle` radians about the grey axis, luminance kept (the SVG / Filter Effects
    /// `hueRotate` matrix).
    static func hueRotation(_ angle: Double) -> [Double] {
        let c = cos(angle), s = sin(angle)
        let row0: [Double] = [0.213 + c * 0.787 - s * 0.213, 0.715 - c * 0.715 - s * 0.715, 0.072 - c * 0.072 + s * 0.928]
        let row1: [Double] = [0.213 - c * 0.213 + s * 0.143, 0.715 + c * 0.285 + s * 0.140, 0.072 - c * 0.072 - s * 0.283]
        let row2: [Double] = [0.213 - c * 0.213 - s * 0.787, 0.715 - c * 0.715 + s * 0.715, 0.072 + c * 0.928 + s * 0.072]
        return row0 + row1 + row2
    }

    /// Vibrance: saturation raised more where colours are dull (amount −1…1).
    static func vibrance(_ rgb: VImage, _ amount: Double) throws(VipsError) -> VImage {
        guard amount != 0 else { return rgb }
        let maximum = try VipsCall("bandrank").images("in", [try rgb.band(0), try rgb.band(1), try rgb.band(2)]).int("index", 2).output()
        let minimum = try VipsCall("bandrank").images("in", [try rgb.band(0), try rgb.band(1), try rgb.band(2)]).int("index", 0).output()
        let chroma = try ColourConversion.clamp(try maximum.minus(minimum))
        // factor = 1 + amount·(1 − chroma)
        let factor = try chroma.linear([-amount], [1 + amount])
        let grey = try rgb.luminance().replicated(3)
        return try grey.plus(try rgb.minus(grey).times(factor))
    }

    static func polynomial(_ x: VImage, _ a: [Double]) throws(VipsError) -> VImage {
        let x2 = try x.times(x)
        let x3 = try x2.times(x)
        return try x.linear([a[1]], [a[0]]).plus(try x2.linear([a[2]], [0])).plus(try x3.linear([a[3]], [0]))
    }

    // MARK: White balance

    /// CIE xy of a colour temperature (Kelvin) on the daylight / Planckian locus, shifted by `tint` along the
    /// isotherm (positive: towards magenta), as camera raw converters and Core Image interpret (temperature, tint).
    static func chromaticity(temperature: Double, tint: Double) -> (x: Double, y: Double) {
        let t = min(max(temperature, 1667), 25000)
        // Kim et al.'s cubic spline approximation of the Planckian locus.
        let x: Double =
            t <= 4000
            ? -0.266_123_9e9 / (t * t * t) - 0.234_358_9e6 / (t * t) + 0.877_695_6e3 / t + 0.179_910
            : -3.025_846_9e9 / (t * t * t) + 2.107_037_9e6 / (t * t) + 0.222_634_7e3 / t + 0.240_390
        let y: Double
        if t <= 2222 {
            y = -1.106_381_4 * x * x * x - 1.348_110_20 * x * x + 2.185_558_32 * x - 0.202_196_83
        } else if t <= 4000 {
            y = -0.954_947_6 * x * x * x - 1.374_185_93 * x * x + 2.091_370_15 * x - 0.167_488_67
        } else {
            y = 3.081_758_0 * x * x * x - 5.873_386_70 * x * x + 3.751_129_97 * x - 0.370_014_83
        }
        // Tint: a step perpendicular to the locus in uv, 1 unit of tint = 1/3000 Δuv (Adobe's convention).
        let denominator = -2 * x + 12 * y + 3
        let u = 4 * x / denominator
        var v = 6 * y / denominator
        let dv = -tint / 3000
        v += dv
        let d2 = 2 * u - 8 * v + 4
        return (3 * u / d2, 2 * v / d2)
    }

    /// The linear-sRGB matrix that adapts colours seen under `from` (temperature, tint) to look as under `to`
    /// (Bradford cone response, von Kries scaling).
    static func whiteBalance(from source: (CGFloat, CGFloat), to target: (CGFloat, CGFloat)) -> [Double] {
        let s = chromaticity(temperature: Double(source.0), tint: Double(source.1))
        let t = chromaticity(temperature: Double(target.0), tint: Double(target.1))
        func xyz(_ c: (x: Double, y: Double)) -> [Double] { [c.x / c.y, 1, (1 - c.x - c.y) / c.y] }
        let bradford: [Double] = [0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296]
        let inverseBradford: [Double] = [0.986_993, -0.147_054, 0.159_963, 0.432_305, 0.518_360, 0.049_291, -0.008_529, 0.040_043, 0.968_487]
        let sRGBToXYZ: [Double] = [
            0.412_456_4, 0.357_576_1, 0.180_437_5, 0.212_672_9, 0.715_152_2, 0.072_175_0, 0.019_333_9, 0.119_192_0, 0.950_304_1,
        ]
        let xyzToSRGB: [Double] = [
            3.240_454_2, -1.537_138_5, -0.498_531_4, -0.969_266_0, 1.876_010_8, 0.041_556_0, 0.055_643_4, -0.204_025_9, 1.057_225_2,
        ]
        let coneSource = multiply(bradford, xyz(s)), coneTarget = multiply(bradford, xyz(t))
        // Warming a photo taken under `from` means treating `from`'s white as the target's: scale by target/source.
        let scale: [Double] = [coneTarget[0] / coneSource[0], 0, 0, 0, coneTarget[1] / coneSource[1], 0, 0, 0, coneTarget[2] / coneSource[2]]
        let adapt = product(inverseBradford, product(scale, bradford))
        return product(xyzToSRGB, product(adapt, sRGBToXYZ))
    }

    static func multiply(_ m: [Double], _ v: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: 3)
        for r in 0..<3 { for k in 0..<3 { out[r] += m[r * 3 + k] * v[k] } }
        return out
    }

    static func product(_ a: [Double], _ b: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: 9)
        for r in 0..<3 { for c in 0..<3 { for k in 0..<3 { out[r * 3 + c] += a[r * 3 + k] * b[k * 3 + c] } } }
        return out
    }
}

/// A monotone cubic (Fritsch–Carlson) through points sorted by x: no overshoot between them.
struct ToneCurve: Sendable {
    let xs: [Double]
    let ys: [Double]
    let slopes: [Double]

    init(points: [(Double, Double)]) {
        let sorted = points.sorted { $0.0 < $1.0 }
        xs = sorted.map(\.0)
        ys = sorted.map(\.1)
        let n = xs.count
        var secants = [Double](repeating: 0, count: max(0, n - 1))
        for i in 0..<(n - 1) where xs[i + 1] > xs[i] { secants[i] = (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]) }
        var m = [Double](repeating: 0, count: n)
        if n > 1 {
            m[0] = secants[0]
            m[n - 1] = secants[n - 2]
            for i in 1..<(n - 1) { m[i] = secants[i - 1] * secants[i] <= 0 ? 0 : (secants[i - 1] + secants[i]) / 2 }
            for i in 0..<(n - 1) where secants[i] == 0 {
                m[i] = 0
                m[i + 1] = 0
            }
            for i in 0..<(n - 1) where secants[i] != 0 {
                let a = m[i] / secants[i], b = m[i + 1] / secants[i]
                let h = a * a + b * b
                if h > 9 {
                    let t = 3 / h.squareRoot()
                    m[i] = t * a * secants[i]
                    m[i + 1] = t * b * secants[i]
                }
            }
        }
        slopes = m
    }

    func value(_ x: Double) -> Double {
        guard let first = xs.first, let last = xs.last else { return x }
        if x <= first { return ys[0] }
        if x >= last { return ys[ys.count - 1] }
        var i = 0
        while i < xs.count - 2, x > xs[i + 1] { i += 1 }
        let h = xs[i + 1] - xs[i]
        guard h > 0 else { return ys[i] }
        let t = (x - xs[i]) / h
        let t2 = t * t, t3 = t2 * t
        let h00: Double = 2 * t3 - 3 * t2 + 1
        let h10: Double = t3 - 2 * t2 + t
        let h01: Double = -2 * t3 + 3 * t2
        let h11: Double = t3 - t2
        let start: Double = h00 * ys[i] + h10 * h * slopes[i]
        let end: Double = h01 * ys[i + 1] + h11 * h * slopes[i + 1]
        return start + end
    }
}

/// A 3-D colour lookup table (Core Image's layout: RGBA floats, red varying fastest, then green, then blue),
/// looked up with trilinear interpolation: the cube is laid out as N slices of N×N side by side, libvips' `mapim`
/// interpolates within the two nearest blue slices and the results are mixed.
struct ColourCube: @unchecked Sendable {
    let dimension: Int
    let table: VImage

    init?(dimension: Int, data: Data?) {
        guard let data, (2...128).contains(dimension), data.count == dimension * dimension * dimension * 4 * MemoryLayout<Float>.size
        else { return nil }
        let n = dimension
        let floats = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        // Slice b at x offset b·N: pixel (r + b·N, g) = entry (r, g, b).
        var laid = [Float](repeating: 0, count: n * n * n * 3)
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n {
                    let source = ((b * n + g) * n + r) * 4
                    let target = (g * n * n + b * n + r) * 3
                    laid[target] = floats[source]
                    laid[target + 1] = floats[source + 1]
                    laid[target + 2] = floats[source + 2]
                }
            }
        }
        guard
            let image = laid.withUnsafeBytes({
                try? VImage.fromMemory($0, width: n * n, height: n, bands: 3, format: VIPS_FORMAT_FLOAT, interpretation: VIPS_INTERPRETATION_scRGB)
            })
        else { return nil }
        self.dimension = n
        self.table = image
    }

    /// The identity cube's bytes.
    static func identityData(dimension n: Int) -> Data {
        var floats: [Float] = []
        for b in 0..<n { for g in 0..<n { for r in 0..<n { floats += [Float(r), Float(g), Float(b)].map { $0 / Float(n - 1) } + [1] } } }
        return floats.withUnsafeBytes { Data($0) }
    }

    func apply(_ rgb: VImage) throws(VipsError) -> VImage {
        let n = Double(dimension)
        let scaled = try ColourConversion.clamp(rgb).linear([n - 1, n - 1, n - 1], [0, 0, 0])
        let (r, g, b) = (try scaled.band(0), try scaled.band(1), try scaled.band(2))
        let b0 = try ColourConversion.clamp(try VipsCall("round").image("in", b).enumeration("round", "floor").output(), 0, n - 2)
        let fraction = try b.minus(b0)
        let x0 = try r.plus(try b0.linear([n], [0]))
        let x1 = try x0.linear([1], [n])
        let index0 = try VipsCall("bandjoin").images("in", [x0, g]).output()
        let index1 = try VipsCall("bandjoin").images("in", [x1, g]).output()
        let s0 = try VipsCall("mapim").image("in", table).image("index", index0).interpolate("interpolate", "bilinear").output()
        let s1 = try VipsCall("mapim").image("in", table).image("index", index1).interpolate("interpolate", "bilinear").output()
        return try VImage.mix(s0, s1, by: fraction)
    }
}
