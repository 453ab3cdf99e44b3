import CVipsShims
import Foundation

/// Generators: images of infinite extent computed from coordinates (crop them before rendering). Colours are
/// interpolated in the working space (linear, premultiplied), as Core Image's.
enum GeneratorFilters {
    static let all: [FilterDefinition] = [
        filter("CIConstantColorGenerator", "Constant Color", [kCICategoryGenerator], [FilterInput(kCIInputColorKey, .color, default: CIColor.red)]) {
            inputs in CIImage(color: inputs.color(kCIInputColorKey))
        },
        filter(
            "CILinearGradient", "Linear Gradient", [kCICategoryGradient],
            [
                FilterInput("inputPoint0", .vector, default: CIVector(x: 0, y: 0), type: kCIAttributeTypePosition),
                FilterInput("inputPoint1", .vector, default: CIVector(x: 200, y: 200), type: kCIAttributeTypePosition),
                FilterInput("inputColor0", .color, default: CIColor.white), FilterInput("inputColor1", .color, default: CIColor.black),
            ]
        ) { inputs in
            // t = clamp(((p − p0)·d) / |d|², 0, 1), d = p1 − p0; colour = mix(c0, c1, t).
            GeneratorFilters.linearGradient(inputs) { $0 }
        },
        filter(
            "CISmoothLinearGradient", "Smooth Linear Gradient", [kCICategoryGradient],
            [
                FilterInput("inputPoint0", .vector, default: CIVector(x: 0, y: 0), type: kCIAttributeTypePosition),
                FilterInput("inputPoint1", .vector, default: CIVector(x: 200, y: 200), type: kCIAttributeTypePosition),
                FilterInput("inputColor0", .color, default: CIColor.white), FilterInput("inputColor1", .color, default: CIColor.black),
            ]
        ) { inputs in
            // As CILinearGradient, with t eased by smoothstep: t' = t²·(3 − 2t) (no visible band at either end).
            GeneratorFilters.linearGradient(inputs) { (t) throws(VipsError) -> VImage in
                let squared = try VipsCall("multiply").image("left", t).image("right", t).output()
                return try VipsCall("multiply").image("left", squared).image("right", try t.linear([-2], [3])).output()
            }
        },
        filter(
            "CIRadialGradient", "Radial Gradient", [kCICategoryGradient],
            [
                FilterInput(kCIInputCenterKey, .vector, default: CIVector(x: 150, y: 150), type: kCIAttributeTypePosition),
                FilterInput("inputRadius0", .number, default: 5.0, min: 0, sliderMin: 0, sliderMax: 800, type: kCIAttributeTypeDistance),
                FilterInput("inputRadius1", .number, default: 100.0, min: 0, sliderMin: 0, sliderMax: 800, type: kCIAttributeTypeDistance),
                FilterInput("inputColor0", .color, default: CIColor.white), FilterInput("inputColor1", .color, default: CIColor.black),
            ]
        ) { inputs in
            // t = clamp((|p − centre| − r0) / (r1 − r0), 0, 1).
            let centre = inputs.vector(kCIInputCenterKey).cgPointValue
            let (r0, r1) = (inputs.number("inputRadius0"), inputs.number("inputRadius1"))
            let span = abs(r1 - r0) < 1e-9 ? 1e-9 : r1 - r0
            let (c0, c1) = (inputs.color("inputColor0").workingRGBA, inputs.color("inputColor1").workingRGBA)
            return CIImage(
                node: GeneratorNode(opaque: c0[3] >= 1 && c1[3] >= 1) { (x, y) throws(VipsError) -> VImage in
                    let distance = try GeneratorFilters.distance(x, y, centre)
                    return try GeneratorFilters.ramp(try ColourConversion.clamp(try distance.linear([1 / span], [-r0 / span])), c0, c1)
                })
        },
        filter(
            "CIGaussianGradient", "Gaussian Gradient", [kCICategoryGradient],
            [
                FilterInput(kCIInputCenterKey, .vector, default: CIVector(x: 150, y: 150), type: kCIAttributeTypePosition),
                FilterInput("inputColor0", .color, default: CIColor.white),
                FilterInput("inputColor1", .color, default: CIColor(red: 0, green: 0, blue: 0, alpha: 0)),
                FilterInput(kCIInputRadiusKey, .number, default: 300.0, min: 0, sliderMin: 1, sliderMax: 800, type: kCIAttributeTypeDistance),
            ]
        ) { inputs in
            // inputColor0 at the centre giving way to inputColor1 by a Gaussian of the distance whose 3σ is the radius:
            // t = 1 − exp(−d² / (2σ²)), σ = radius / 3 (99% inputColor1 at the radius).
            let centre = inputs.vector(kCIInputCenterKey).cgPointValue
            let sigma = max(1e-6, inputs.number(kCIInputRadiusKey) / 3)
            let (c0, c1) = (inputs.color("inputColor0").workingRGBA, inputs.color("inputColor1").workingRGBA)
            return CIImage(
                node: GeneratorNode(opaque: c0[3] >= 1 && c1[3] >= 1) { (x, y) throws(VipsError) -> VImage in
                    let distance = try GeneratorFilters.distance(x, y, centre)
                    let exponent = try distance.times(distance).linear([-1 / (2 * sigma * sigma)], [0])
                    let weight = try VipsCall("math").image("in", exponent).enumeration("math", "exp").output()
                    return try GeneratorFilters.ramp(try weight.linear([-1], [1]), c0, c1)
                })
        },
        filter(
            "CIHueSaturationValueGradient", "Hue/Saturation/Value Gradient", [kCICategoryGradient],
            [
                FilterInput("inputValue", .number, default: 1.0, min: 0, sliderMin: 0, sliderMax: 1, type: kCIAttributeTypeScalar),
                FilterInput(kCIInputRadiusKey, .number, default: 300.0, min: 0, sliderMin: 0, sliderMax: 800, type: kCIAttributeTypeDistance),
                FilterInput("inputSoftness", .number, default: 1.0, min: 0, sliderMin: 0, sliderMax: 10, type: kCIAttributeTypeScalar),
                FilterInput("inputDither", .number, default: 1.0, min: 0, sliderMin: 0, sliderMax: 3, type: kCIAttributeTypeScalar),
                FilterInput("inputColorSpace", .colorSpace, default: CGColorSpace(name: CGColorSpace.sRGB)),
            ]
        ) { inputs in
            GeneratorFilters.hueSaturationValueWheel(
                value: inputs.number("inputValue"), radius: inputs.number(kCIInputRadiusKey), softness: inputs.number("inputSoftness"),
                space: inputs.colorSpace("inputColorSpace"))
        },
        filter(
            "CICheckerboardGenerator", "Checkerboard", [kCICategoryGenerator],
            [
                FilterInput(kCIInputCenterKey, .vector, default: CIVector(x: 150, y: 150), type: kCIAttributeTypePosition),
                FilterInput("inputColor0", .color, default: CIColor.white), FilterInput("inputColor1", .color, default: CIColor.black),
                FilterInput(kCIInputWidthKey, .number, default: 80.0, min: 0, sliderMin: 0, sliderMax: 800, type: kCIAttributeTypeDistance),
                FilterInput(kCIInputSharpnessKey, .number, default: 1.0, min: 0, sliderMin: 0, sliderMax: 1),
            ]
        ) { inputs in
            // Squares of the width with a corner at the centre; colour 0 where ⌊(x−cx)/w⌋ + ⌊(y−cy)/w⌋ is even.
            let centre = inputs.vector(kCIInputCenterKey).cgPointValue
            let width = max(1e-6, inputs.number(kCIInputWidthKey))
            let (c0, c1) = (inputs.color("inputColor0").workingRGBA, inputs.color("inputColor1").workingRGBA)
            return CIImage(
                node: GeneratorNode(opaque: c0[3] >= 1 && c1[3] >= 1) { (x, y) throws(VipsError) -> VImage in
                    let cx = try VipsCall("round").image("in", try x.linear([1 / width], [-Double(centre.x) / width])).enumeration("round", "floor")
                        .output()
                    let cy = try VipsCall("round").image("in", try y.linear([1 / width], [-Double(centre.y) / width])).enumeration("round", "floor")
                        .output()
                    let sum = try cx.plus(cy)
                    // parity = sum − 2·⌊sum / 2⌋
                    let half = try VipsCall("round").image("in", try sum.linear([0.5], [0])).enumeration("round", "floor").output()
                    let parity = try sum.minus(try half.linear([2], [0]))
                    return try GeneratorFilters.ramp(parity, c0, c1)
                })
        },
    ]

    /// A gradient along inputPoint0 → inputPoint1 from inputColor0 to inputColor1, its t (clamped to 0…1) shaped by
    /// `ease`.
    static func linearGradient(_ inputs: FilterInputs, ease: @escaping @Sendable (VImage) throws(VipsError) -> VImage) -> CIImage {
        let p0 = inputs.vector("inputPoint0").cgPointValue, p1 = inputs.vector("inputPoint1").cgPointValue
        let (dx, dy) = (Double(p1.x - p0.x), Double(p1.y - p0.y))
        let length2 = max(1e-12, dx * dx + dy * dy)
        let (c0, c1) = (inputs.color("inputColor0").workingRGBA, inputs.color("inputColor1").workingRGBA)
        return CIImage(
            node: GeneratorNode(opaque: c0[3] >= 1 && c1[3] >= 1) { (x, y) throws(VipsError) -> VImage in
                let projection = try x.linear([dx / length2], [-Double(p0.x) * dx / length2]).plus(
                    try y.linear([dy / length2], [-Double(p0.y) * dy / length2]))
                return try GeneratorFilters.ramp(try ease(try ColourConversion.clamp(projection)), c0, c1)
            })
    }

    /// A colour wheel centred on the origin, as CIHueSaturationValueGradient: the hue is the angle (red along +x,
    /// counter-clockwise), the saturation the distance over the radius, the value fixed; components are those of
    /// `space` (sRGB when nil). Outside the radius it is clear, with an edge `softness` pixels wide; the extent is the
    /// wheel's square. Dithering is not needed: the wheel is rendered in floating point, without bands to hide.
    static func hueSaturationValueWheel(value: Double, radius: Double, softness: Double, space: CGColorSpace?) -> CIImage {
        let radius = max(0, radius), value = min(1, max(0, value))
        guard radius > 0 else { return CIImage.empty() }
        let space = space ?? CGColorSpace(name: CGColorSpace.sRGB)!
        let wheel = GeneratorNode(opaque: false) { (x, y) throws(VipsError) -> VImage in
            let distance = try distance(x, y, .zero)
            let saturation = try ColourConversion.clamp(try distance.linear([1 / radius], [0]))
            // Hue in sixths of a turn (0…6): atan2(y, x) as vips' "atan2" gives degrees 0…360.
            let degrees = try VipsCall("math2").image("left", y).image("right", x).enumeration("math2", "atan2").output()
            let sixths = try degrees.linear([1.0 / 60], [0])
            // HSV → RGB without branches: for n = 5, 3, 1: k = (n + h) mod 6, c = V − V·S·clamp(2 − |k − 2|, 0, 1).
            let channels = try [5.0, 3.0, 1.0].map { (n) throws(VipsError) -> VImage in
                let k = try VipsCall("remainder_const").image("in", try sixths.linear([1], [n])).doubles("c", [6]).output()
                let ramp = try ColourConversion.clamp(
                    try VipsCall("abs").image("in", try k.linear([1], [-2])).output().linear([-1], [2]))
                return try saturation.times(ramp).linear([-value], [value])
            }
            let rgb = try VipsCall("bandjoin").images("in", channels).output()
            let edge = max(1e-3, softness)
            let alpha = try ColourConversion.clamp(try distance.linear([-1 / edge], [radius / edge]))
            let working = try ColourConversion.toWorking(rgb, hasAlpha: false, space: space)
            let premultiplied = try working.times(try alpha.replicated(3))
            return try VipsCall("bandjoin").images("in", [premultiplied, alpha]).output()
        }
        return CIImage(node: wheel).cropped(to: CGRect(x: -radius, y: -radius, width: 2 * radius, height: 2 * radius))
    }

    /// Premultiplied colours mixed by t (one band, 0…1).
    static func ramp(_ t: VImage, _ c0: [Double], _ c1: [Double]) throws(VipsError) -> VImage {
        let replicated = try t.replicated(4)
        let differences = zip(c0, c1).map { $1 - $0 }
        return try replicated.linear(differences, c0)
    }

    static func distance(_ x: VImage, _ y: VImage, _ centre: CGPoint) throws(VipsError) -> VImage {
        let dx = try x.linear([1], [-Double(centre.x)]), dy = try y.linear([1], [-Double(centre.y)])
        let squared = try dx.times(dx).plus(try dy.times(dy))
        return try VipsCall("math2_const").image("in", squared).enumeration("math2", "pow").doubles("c", [0.5]).output()
    }
}
