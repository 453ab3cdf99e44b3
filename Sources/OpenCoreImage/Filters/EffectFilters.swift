import CVipsShims
import Foundation

/// Looks and effects: the Photos app's photo effects, vignettes, highlight and shadow recovery, pixellation.
///
/// Apple's photo effects are colour lookup tables it does not publish; the ones here are OpenPhotoKit's own looks in
/// the same spirit (a monochrome, a high-contrast monochrome, a faded, a warm instant-film and a cool processed look
/// …), made of documented operations, so they are stable and testable but not pixel-identical to Apple's.
enum EffectFilters {
    static func effect(_ name: String, _ displayName: String, _ look: @escaping @Sendable (VImage) throws(VipsError) -> VImage) -> FilterDefinition {
        filter(name, displayName, [kCICategoryColorEffect], [imageInput]) { inputs in inputs.image()?.colourKernel(look) }
    }

    static func grey(_ rgb: VImage) throws(VipsError) -> VImage { try rgb.luminance().replicated(3) }

    /// `gain · v + offset` on the sRGB-encoded values v — one curve of each linear value, applied through a 16-bit
    /// table (looks clip to the sRGB gamut).
    static func perceptual(_ rgb: VImage, gain: Double, offset: Double) throws(VipsError) -> VImage {
        try rgb.perceptualCurve { v in gain * v + offset }
    }

    static let all: [FilterDefinition] = [
        effect("CIPhotoEffectMono", "Photo Effect Mono") { (rgb) throws(VipsError) -> VImage in try EffectFilters.grey(rgb) },
        effect("CIPhotoEffectNoir", "Photo Effect Noir") { (rgb) throws(VipsError) -> VImage in
            // A smoothstep S-curve on the perceptual grey: deep blacks, bright whites.
            try EffectFilters.grey(rgb).perceptualCurve { x in x * x * (3 - 2 * x) }
        },
        effect("CIPhotoEffectTonal", "Photo Effect Tonal") { (rgb) throws(VipsError) -> VImage in
            try EffectFilters.perceptual(try EffectFilters.grey(rgb), gain: 0.9, offset: 0.5 - 0.45 + 0.02)
        },
        effect("CIPhotoEffectChrome", "Photo Effect Chrome") { (rgb) throws(VipsError) -> VImage in
            let vivid = try ColourMath.colorControls(rgb, saturation: 1.25, brightness: 0, contrast: 1)
            return try EffectFilters.perceptual(vivid, gain: 1.1, offset: 0.5 - 0.55)
        },
        effect("CIPhotoEffectFade", "Photo Effect Fade") { (rgb) throws(VipsError) -> VImage in
            let muted = try ColourMath.colorControls(rgb, saturation: 0.7, brightness: 0, contrast: 1)
            return try EffectFilters.perceptual(muted, gain: 0.85, offset: 0.1)
        },
        effect("CIPhotoEffectInstant", "Photo Effect Instant") { (rgb) throws(VipsError) -> VImage in
            let warm = try ColourMath.colorControls(rgb, saturation: 0.85, brightness: 0, contrast: 1).recombined([
                1.06, 0.02, 0, 0.01, 1.0, 0, 0, 0.02, 0.86,
            ])
            return try EffectFilters.perceptual(warm, gain: 0.9, offset: 0.06)
        },
        effect("CIPhotoEffectProcess", "Photo Effect Process") { (rgb) throws(VipsError) -> VImage in
            let cool = try rgb.recombined([0.92, 0.03, 0.05, 0, 1.0, 0.03, 0.04, 0.06, 1.08])
            return try EffectFilters.perceptual(cool, gain: 1.12, offset: 0.5 - 0.56)
        },
        effect("CIPhotoEffectTransfer", "Photo Effect Transfer") { (rgb) throws(VipsError) -> VImage in
            let warm = try ColourMath.colorControls(rgb, saturation: 0.9, brightness: 0, contrast: 1).recombined([
                1.1, 0.04, 0, 0.02, 1.0, 0, 0, 0.05, 0.85,
            ])
            return try EffectFilters.perceptual(warm, gain: 1.05, offset: 0.5 - 0.525 + 0.02)
        },
        filter(
            "CIVignette", "Vignette", [kCICategoryColorEffect],
            [
                imageInput, FilterInput(kCIInputIntensityKey, .number, default: 0.0, min: -1, max: 1, identity: 0),
                FilterInput(kCIInputRadiusKey, .number, default: 1.0, min: 0, max: 2, identity: 0),
            ]
        ) { inputs in
            // Light times 1 − intensity·smoothstep(0, 1, radius·d), d the distance from the extent's centre over half
            // its diagonal: nothing at the centre, the full intensity where radius·d reaches 1.
            guard let image = inputs.image() else { return nil }
            let extent = image.extent
            guard !extent.isNull, !extent.isEffectivelyInfinite else { return image }
            let (intensity, radius) = (inputs.number(kCIInputIntensityKey), inputs.number(kCIInputRadiusKey))
            let centre = CGPoint(x: extent.midX, y: extent.midY)
            let half = max(1, Double(hypot(extent.width, extent.height)) / 2)
            return EffectFilters.vignette(image, centre: centre, intensity: intensity, inner: 0, outer: 1 / max(radius, 1e-6) * half)
        },
        filter(
            "CIVignetteEffect", "Vignette Effect", [kCICategoryColorEffect],
            [
                imageInput, FilterInput(kCIInputCenterKey, .vector, default: CIVector(x: 150, y: 150), type: kCIAttributeTypePosition),
                FilterInput(kCIInputRadiusKey, .number, default: 150.0, min: 0, sliderMin: 0, sliderMax: 2000, type: kCIAttributeTypeDistance),
                FilterInput(kCIInputIntensityKey, .number, default: 1.0, min: -1, max: 1, identity: 0),
                FilterInput("inputFalloff", .number, default: 0.5, min: 0, max: 1),
            ]
        ) { inputs in
            // Unchanged within radius·(1 − falloff) of the centre, the full intensity beyond radius·(1 + falloff).
            guard let image = inputs.image() else { return nil }
            let radius = inputs.number(kCIInputRadiusKey), falloff = inputs.number("inputFalloff")
            return EffectFilters.vignette(
                image, centre: inputs.vector(kCIInputCenterKey).cgPointValue, intensity: inputs.number(kCIInputIntensityKey),
                inner: radius * (1 - falloff), outer: radius * (1 + falloff))
        },
        filter(
            "CIHighlightShadowAdjust", "Highlight and Shadow Adjust", [kCICategoryColorAdjustment],
            [
                imageInput, FilterInput(kCIInputRadiusKey, .number, default: 0.0, min: 0, sliderMin: 0, sliderMax: 10),
                FilterInput("inputShadowAmount", .number, default: 0.0, min: -1, max: 1, identity: 0),
                FilterInput("inputHighlightAmount", .number, default: 1.0, min: 0, max: 1, identity: 1),
            ]
        ) { inputs in
            // On the perceptual luminance L: shadows lifted (or deepened) by shadow·L·(1 − L)³·2, highlights pulled
            // down by (1 − highlight)·L³·(1 − L)·3; the colours scaled by the change in linear luminance.
            let (shadow, highlight) = (inputs.number("inputShadowAmount"), inputs.number("inputHighlightAmount"))
            guard shadow != 0 || highlight != 1 else { return inputs.image() }
            return inputs.image()?.colourKernel { (rgb) throws(VipsError) -> VImage in
                let luminance = try rgb.luminance()
                let target = try luminance.perceptualCurve { l in
                    let darks = shadow * l * (1 - l) * (1 - l) * (1 - l) * 2
                    let brights = (1 - highlight) * l * l * l * (1 - l) * 3
                    return l + darks - brights
                }
                let safe = try luminance.linear([1], [1e-6])
                return try rgb.times(try target.linear([1], [1e-6]).dividedBy(safe))
            }
        },
        filter(
            "CIPixellate", "Pixellate", [kCICategoryStylize],
            [
                imageInput, FilterInput(kCIInputCenterKey, .vector, default: CIVector(x: 150, y: 150), type: kCIAttributeTypePosition),
                FilterInput(kCIInputScaleKey, .number, default: 8.0, min: 1, sliderMin: 1, sliderMax: 100, type: kCIAttributeTypeDistance),
            ]
        ) { inputs in
            guard let image = inputs.image() else { return nil }
            let cell = max(1, Int(inputs.number(kCIInputScaleKey).rounded()))
            return CIImage(
                node: PixellateNode(image.node, cell: cell, center: inputs.vector(kCIInputCenterKey).cgPointValue), properties: image.properties)
        },
    ]

    /// Light times 1 − intensity·smoothstep(inner, outer, distance from centre).
    static func vignette(_ image: CIImage, centre: CGPoint, intensity: Double, inner: Double, outer: Double) -> CIImage {
        guard intensity != 0 else { return image }
        let span = max(1e-6, outer - inner)
        let node = PositionalKernelNode(image.node) { (rgb, x, y) throws(VipsError) -> VImage in
            let distance = try GeneratorFilters.distance(x, y, centre)
            let t = try ColourConversion.clamp(try distance.linear([1 / span], [-inner / span]))
            let smooth = try t.times(t).times(try t.linear([-2], [3]))
            let factor = try smooth.linear([-intensity], [1])
            return try rgb.times(factor)
        }
        return CIImage(node: node, properties: image.properties)
    }
}
