import CVips
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
