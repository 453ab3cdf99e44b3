import CVipsShims
import Foundation

/// A per-pixel colour operation on straight (unpremultiplied) linear RGB; alpha passes through.
final class ColourKernelNode: ImageNode, @unchecked Sendable {
    let input: ImageNode
    let kernel: @Sendable (VImage) throws(VipsError) -> VImage

    init(_ input: ImageNode, kernel: @escaping @Sendable (VImage) throws(VipsError) -> VImage) {
        self.input = input
        self.kernel = kernel
        super.init(extent: input.extent)
    }

    override var isOpaque: Bool { input.isOpaque }

    override var inputs: [ImageNode] { [input] }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try renderClipped(region) { (inner) throws(VipsError) -> Tile in
            try input.render(inner, context).mappingColours(kernel)
        }
    }
}

/// A per-pixel operation on straight linear RGBA (4 bands, alpha 0…1), whose result is premultiplied again.
final class RGBAKernelNode: ImageNode, @unchecked Sendable {
    let input: ImageNode
    let kernel: @Sendable (VImage) throws(VipsError) -> VImage
    let keepsOpacity: Bool

    init(_ input: ImageNode, keepsOpacity: Bool, kernel: @escaping @Sendable (VImage) throws(VipsError) -> VImage) {
        self.input = input
        self.kernel = kernel
        self.keepsOpacity = keepsOpacity
        super.init(extent: input.extent)
    }

    override var isOpaque: Bool { keepsOpacity && input.isOpaque }

    override var inputs: [ImageNode] { [input] }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try renderClipped(region) { (inner) throws(VipsError) -> Tile in
            let tile = try input.render(inner, context).withAlpha()
            let straight = try VipsCall("unpremultiply").image("in", tile.image).double("max_alpha", 1).output()
            let mapped = try kernel(straight)
            let premultiplied = try VipsCall("premultiply").image("in", mapped).double("max_alpha", 1).output()
            let result = Tile(try premultiplied.scRGB(), inner)
            return keepsOpacity && input.isOpaque ? try result.droppingAlpha() : result
        }
    }
}

/// Two images combined pixel by pixel (premultiplied); the extent is the union of theirs (or the background's).
final class CompositeNode: ImageNode, @unchecked Sendable {
    let foreground: ImageNode
    let background: ImageNode
    let operation: @Sendable (_ foreground: VImage, _ background: VImage) throws(VipsError) -> VImage
    let unionExtent: Bool

    init(
        _ foreground: ImageNode, over background: ImageNode, unionExtent: Bool = true,
        operation: @escaping @Sendable (VImage, VImage) throws(VipsError) -> VImage
    ) {
        self.foreground = foreground
        self.background = background
        self.operation = operation
        self.unionExtent = unionExtent
        let extent: CGRect
        if !unionExtent {
            extent = background.extent
        } else if foreground.extent.isEffectivelyInfinite || background.extent.isEffectivelyInfinite {
            extent = .infinite
        } else {
            extent = foreground.extent.union(background.extent)
        }
        super.init(extent: extent)
    }

    override var isOpaque: Bool { background.isOpaque && background.extent.contains(foreground.extent) }

    override var inputs: [ImageNode] { [foreground, background] }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try renderClipped(region) { (inner) throws(VipsError) -> Tile in
            let front = try foreground.render(inner, context).withAlpha()
            let back = try background.render(inner, context).withAlpha()
            let combined = Tile(try operation(front.image, back.image).scRGB(), inner)
            return isOpaque && background.pixelExtent.map({ $0.contains(inner) }) == true ? try combined.droppingAlpha() : combined
        }
    }
}

/// An operation that reads neighbouring pixels (blurs, sharpening): the input is rendered `margin` pixels beyond
/// the region asked for, transparent beyond its extent as Core Image's are (clamp the input to avoid dark edges).
final class NeighbourhoodNode: ImageNode, @unchecked Sendable {
    let input: ImageNode
    let margin: Int
    let operation: @Sendable (Tile) throws(VipsError) -> VImage

    init(_ input: ImageNode, margin: Int, growsExtent: Bool, operation: @escaping @Sendable (Tile) throws(VipsError) -> VImage) {
        self.input = input
        self.margin = margin
        self.operation = operation
        let extent =
            growsExtent && !input.extent.isEffectivelyInfinite && !input.extent.isNull
            ? input.extent.insetBy(dx: CGFloat(-margin), dy: CGFloat(-margin)) : input.extent
        super.init(extent: extent)
    }

    override var inputs: [ImageNode] { [input] }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try renderClipped(region) { (inner) throws(VipsError) -> Tile in
            let grown = inner.insetBy(-margin)
            let tile = try input.render(grown, context)
            let out = Tile(try operation(tile).scRGB(), grown)
            return try out.extract(inner)
        }
    }
}

/// Pixels computed from their coordinates (gradients, checkerboards): an infinite extent.
final class GeneratorNode: ImageNode, @unchecked Sendable {
    /// Given images of each pixel centre's x and y (Core Image coordinates), the premultiplied RGBA.
    let generate: @Sendable (_ x: VImage, _ y: VImage) throws(VipsError) -> VImage
    let opaque: Bool

    init(opaque: Bool = false, generate: @escaping @Sendable (VImage, VImage) throws(VipsError) -> VImage) {
        self.generate = generate
        self.opaque = opaque
        super.init(extent: .infinite)
    }

    override var isOpaque: Bool { opaque }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        let xy = try VipsCall("xyz").int("width", region.width).int("height", region.height).output()
        let x = try xy.band(0).linear([1], [Double(region.x) + 0.5])
        let y = try xy.band(1).linear([-1], [Double(region.maxY) - 0.5])
        let tile = Tile(try generate(x, y).scRGB(), region)
        return opaque ? try tile.droppingAlpha() : tile
    }
}

/// An affine colour operation — `M · rgb + b` on straight linear colours, alpha kept — which consecutive ones merge
/// into (exposure, colour controls, hue, white point, temperature and tint, sepia, invert, monochrome): a chain of
/// them costs one matrix and one offset pass, as Core Image concatenates its colour kernels.
final class AffineColourNode: ImageNode, @unchecked Sendable {
    let input: ImageNode
    /// Row-major 3×3.
    let matrix: [Double]
    let offset: [Double]

    init(_ input: ImageNode, matrix: [Double], offset: [Double]) {
        self.input = input
        self.matrix = matrix
        self.offset = offset
        super.init(extent: input.extent)
    }

    /// `matrix · rgb + offset` applied after `node` (merged when `node` is itself one).
    static func applying(_ node: ImageNode, matrix: [Double], offset: [Double]) -> ImageNode {
        guard let previous = node as? AffineColourNode else { return AffineColourNode(node, matrix: matrix, offset: offset) }
        var merged = [Double](repeating: 0, count: 9)
        var shifted = offset
        for r in 0..<3 {
            for c in 0..<3 { for k in 0..<3 { merged[r * 3 + c] += matrix[r * 3 + k] * previous.matrix[k * 3 + c] } }
            for k in 0..<3 { shifted[r] += matrix[r * 3 + k] * previous.offset[k] }
        }
        return AffineColourNode(previous.input, matrix: merged, offset: shifted)
    }

    static let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]

    override var inputs: [ImageNode] { [input] }
    override var isOpaque: Bool { input.isOpaque }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        let (matrix, offset) = (self.matrix, self.offset)
        return try renderClipped(region) { (inner) throws(VipsError) -> Tile in
            try input.render(inner, context).mappingColours { (rgb) throws(VipsError) -> VImage in
                var out = rgb
                let diagonal = matrix[1] == 0 && matrix[2] == 0 && matrix[3] == 0 && matrix[5] == 0 && matrix[6] == 0 && matrix[7] == 0
                if diagonal {
                    if [matrix[0], matrix[4], matrix[8]] != [1, 1, 1] || offset != [0, 0, 0] {
                        out = try out.linear([matrix[0], matrix[4], matrix[8]], offset)
                    }
                    return out
                }
                out = try out.recombined(matrix)
                if offset != [0, 0, 0] { out = try out.linear([1, 1, 1], offset) }
                return out
            }
        }
    }
}
