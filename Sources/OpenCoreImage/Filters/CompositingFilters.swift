import CVipsShims
import Foundation

/// Compositing and blend modes on premultiplied colours (F: the image, B: the background, α their alphas).
enum CompositingFilters {
    static let backgroundInput = FilterInput(kCIInputBackgroundImageKey, .image, name: "Background Image")

    static func blend(
        _ name: String, _ displayName: String, _ formula: @escaping @Sendable (VImage, VImage) throws(VipsError) -> VImage
    ) -> FilterDefinition {
        filter(name, displayName, [kCICategoryCompositeOperation], [imageInput, backgroundInput]) { inputs in
            guard let front = inputs.image(), let back = inputs.image(kCIInputBackgroundImageKey) else { return nil }
            let node = CombineNode([front.node, back.node], extent: CombineNode.union([front.node, back.node])) {
                (images) throws(VipsError) -> VImage in try formula(images[0], images[1])
            }
            return CIImage(node: node, properties: back.properties)
        }
    }

    static let all: [FilterDefinition] = [
        // F + B·(1 − αF)
        blend("CISourceOverCompositing", "Source Over") { (f, b) throws(VipsError) -> VImage in try Blend.sourceOver(f, b) },
        // F·B + F·(1 − αB) + B·(1 − αF)
        blend("CIMultiplyCompositing", "Multiply") { (f, b) throws(VipsError) -> VImage in
            let both = try f.times(b)
            let frontOnly = try f.times(try b.band(3).linear([-1], [1]))
            let backOnly = try b.times(try f.band(3).linear([-1], [1]))
            return try both.plus(frontOnly).plus(backOnly)
        },
        // F + B − F·B (colours and alpha alike)
        blend("CIScreenBlendMode", "Screen Blend Mode") { (f, b) throws(VipsError) -> VImage in
            try f.plus(b).minus(try f.times(b))
        },
        // colours F + B; alpha αF + αB − αF·αB
        blend("CILinearDodgeBlendMode", "Linear Dodge Blend Mode") { (f, b) throws(VipsError) -> VImage in
            let colours = try f.band(0, count: 3).plus(try b.band(0, count: 3))
            let (af, ab) = (try f.band(3), try b.band(3))
            let alpha = try af.plus(ab).minus(try af.times(ab))
            return try VipsCall("bandjoin").images("in", [colours, alpha]).output()
        },
        filter(
            "CIBlendWithMask", "Blend with Mask", [kCICategoryStylize],
            [imageInput, backgroundInput, FilterInput(kCIInputMaskImageKey, .image, name: "Mask Image")]
        ) { inputs in
            // B + (F − B)·m, m the mask's luminance (transparent mask: the background).
            CompositingFilters.masked(inputs) { (mask) throws(VipsError) -> VImage in try mask.band(0, count: 3).luminance() }
        },
        filter(
            "CIBlendWithAlphaMask", "Blend with Alpha Mask", [kCICategoryStylize],
            [imageInput, backgroundInput, FilterInput(kCIInputMaskImageKey, .image, name: "Mask Image")]
        ) { inputs in
            // B + (F − B)·αm
            CompositingFilters.masked(inputs) { (mask) throws(VipsError) -> VImage in try mask.band(3) }
        },
    ]

    static func masked(_ inputs: FilterInputs, weight: @escaping @Sendable (VImage) throws(VipsError) -> VImage) -> CIImage? {
        guard let front = inputs.image() else { return nil }
        let back = inputs.image(kCIInputBackgroundImageKey) ?? .empty()
        let mask = inputs.image(kCIInputMaskImageKey) ?? .empty()
        let node = CombineNode([front.node, back.node, mask.node], extent: CombineNode.union([front.node, back.node])) {
            (images) throws(VipsError) -> VImage in
            let m = try ColourConversion.clamp(try weight(images[2]))
            return try images[1].plus(try images[0].minus(images[1]).times(m))
        }
        return CIImage(node: node, properties: front.properties)
    }
}
