import CVipsShims
import Foundation

/// One step of a ``CIImage``'s recipe. Nodes are immutable and shared between images; rendering asks a node for a
/// rectangle of pixels and the node asks its inputs for the rectangles it needs (Core Image's region of
/// interest), building one lazy libvips pipeline that a sink then pulls through.
class ImageNode: @unchecked Sendable {
    /// The image's extent in Core Image's coordinates (infinite for generators and clamped images).
    let extent: CGRect

    init(extent: CGRect) { self.extent = extent }

    /// The pixels of `region` (transparent outside the extent). Must return a tile of exactly that size.
    func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        fatalError("OpenCoreImage: \(type(of: self)) does not render")
    }

    /// The nodes this one reads.
    var inputs: [ImageNode] { [] }

    /// Whether every pixel inside the extent is opaque (so a crop inside it needs no alpha band).
    var isOpaque: Bool { false }

    /// The whole pixels of the extent (nil when infinite).
    var pixelExtent: PixelRect? {
        if extent.isNull || extent.isEmpty { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
        if extent.isEffectivelyInfinite { return nil }
        return PixelRect(covering: extent)
    }

    /// The part of `region` inside the extent.
    func clip(_ region: PixelRect) -> PixelRect {
        guard let own = pixelExtent else { return region }
        return region.intersection(own)
    }

    /// Renders the part of `region` inside the extent with `body`, transparent around it.
    func renderClipped(_ region: PixelRect, _ body: (PixelRect) throws(VipsError) -> Tile) throws(VipsError) -> Tile {
        let inner = clip(region)
        if inner.isEmpty { return try Tile.transparent(region) }
        return try body(inner).embedded(in: region)
    }
}

/// What a render carries down the graph.
final class RenderContext: @unchecked Sendable {
    /// Whether the sink reads the result top to bottom only (lets sources decode sequentially).
    var sequential: Bool

    init(sequential: Bool) { self.sequential = sequential }
}
