import CVipsShims
import Foundation

/// Several images combined pixel by pixel (premultiplied RGBA each, rendered at the same region).
final class CombineNode: ImageNode, @unchecked Sendable {
    let sources: [ImageNode]
    let operation: @Sendable ([VImage]) throws(VipsError) -> VImage

    init(_ sources: [ImageNode], extent: CGRect, operation: @escaping @Sendable ([VImage]) throws(VipsError) -> VImage) {
        self.sources = sources
        self.operation = operation
        super.init(extent: extent)
    }

    override var inputs: [ImageNode] { sources }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try renderClipped(region) { (inner) throws(VipsError) -> Tile in
            var images: [VImage] = []
            for source in sources { images.append(try source.render(inner, context).withAlpha().image) }
            return Tile(try operation(images).scRGB(), inner)
        }
    }

    /// The union of the sources' extents.
    static func union(_ nodes: [ImageNode]) -> CGRect {
        if nodes.contains(where: { $0.extent.isEffectivelyInfinite }) { return .infinite }
        return nodes.map(\.extent).reduce(CGRect.null) { $0.union($1) }
    }
}

/// A colour kernel that also sees each pixel's position (centre, Core Image coordinates): vignettes.
final class PositionalKernelNode: ImageNode, @unchecked Sendable {
    let input: ImageNode
    let kernel: @Sendable (_ rgb: VImage, _ x: VImage, _ y: VImage) throws(VipsError) -> VImage

    init(_ input: ImageNode, kernel: @escaping @Sendable (VImage, VImage, VImage) throws(VipsError) -> VImage) {
        self.input = input
        self.kernel = kernel
        super.init(extent: input.extent)
    }

    override var inputs: [ImageNode] { [input] }
    override var isOpaque: Bool { input.isOpaque }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try renderClipped(region) { (inner) throws(VipsError) -> Tile in
            let xy = try VipsCall("xyz").int("width", inner.width).int("height", inner.height).output()
            let x = try xy.band(0).linear([1], [Double(inner.x) + 0.5])
            let y = try xy.band(1).linear([-1], [Double(inner.maxY) - 0.5])
            return try input.render(inner, context).mappingColours { (rgb) throws(VipsError) -> VImage in try kernel(rgb, x, y) }
        }
    }
}

/// Square cells of one colour each, the average of the cell, on a grid through `center` (CIPixellate).
final class PixellateNode: ImageNode, @unchecked Sendable {
    let input: ImageNode
    let cell: Int
    let center: (x: Int, y: Int)

    init(_ input: ImageNode, cell: Int, center: CGPoint) {
        self.input = input
        self.cell = max(1, cell)
        self.center = (Int(center.x.rounded()), Int(center.y.rounded()))
        super.init(extent: input.extent)
    }

    override var inputs: [ImageNode] { [input] }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try renderClipped(region) { (inner) throws(VipsError) -> Tile in
            func down(_ v: Int, _ origin: Int) -> Int { origin + Int((Double(v - origin) / Double(cell)).rounded(.down)) * cell }
            func up(_ v: Int, _ origin: Int) -> Int { origin + Int((Double(v - origin) / Double(cell)).rounded(.up)) * cell }
            let x0 = down(inner.x, center.x), y0 = down(inner.y, center.y)
            let aligned = PixelRect(x: x0, y: y0, width: up(inner.maxX, center.x) - x0, height: up(inner.maxY, center.y) - y0)
            // Cells are averaged over the pixels inside the extent (the edges repeated, so edge cells are not darkened).
            let tile: Tile
            if let own = input.pixelExtent, !own.contains(aligned) {
                let available = aligned.intersection(own)
                tile = try input.render(available, context).embedded(in: aligned, repeatingEdges: true)
            } else {
                tile = try input.render(aligned, context)
            }
            let small = try VipsCall("shrink").image("in", tile.image).double("hshrink", Double(cell)).double("vshrink", Double(cell)).output()
            let big = try VipsCall("zoom").image("input", small).int("xfac", cell).int("yfac", cell).output()
            return try Tile(try big.scRGB(), aligned).extract(inner)
        }
    }
}

/// A projective warp: output pixels sample the input through a homography (CIPerspectiveCorrection).
final class HomographyNode: ImageNode, @unchecked Sendable {
    let input: ImageNode
    /// Maps output coordinates to input coordinates: (h0 x + h1 y + h2, h3 x + h4 y + h5) / (h6 x + h7 y + 1).
    let h: [Double]
    let sourceArea: CGRect

    init(_ input: ImageNode, homography h: [Double], outputExtent: CGRect, sourceArea: CGRect) {
        self.input = input
        self.h = h
        self.sourceArea = sourceArea
        super.init(extent: outputExtent)
    }

    override var inputs: [ImageNode] { [input] }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try renderClipped(region) { (inner) throws(VipsError) -> Tile in
            var needed = PixelRect(covering: sourceArea.insetBy(dx: -2, dy: -2))
            if let own = input.pixelExtent { needed = needed.intersection(own) }
            if needed.isEmpty { return try Tile.transparent(inner) }
            let source = try input.render(needed, RenderContext(sequential: false)).withAlpha()
            let xy = try VipsCall("xyz").int("width", inner.width).int("height", inner.height).output()
            let x = try xy.band(0).linear([1], [Double(inner.x) + 0.5])
            let y = try xy.band(1).linear([-1], [Double(inner.maxY) - 0.5])
            let w = try x.linear([h[6]], [1]).plus(try y.linear([h[7]], [0]))
            let sx = try x.linear([h[0]], [h[2]]).plus(try y.linear([h[1]], [0])).dividedBy(w)
            let sy = try x.linear([h[3]], [h[5]]).plus(try y.linear([h[4]], [0])).dividedBy(w)
            // Input coordinates → libvips' pixel indices in the rendered source (centres at integers, rows down).
            let column = try sx.linear([1], [-Double(needed.x) - 0.5])
            let row = try sy.linear([-1], [Double(needed.maxY) - 0.5])
            let index = try VipsCall("bandjoin").images("in", [column, row]).output()
            let out = try VipsCall("mapim").image("in", source.image).image("index", index).interpolate("interpolate", "bilinear").output()
            return Tile(try out.scRGB(), inner)
        }
    }

    /// The homography taking the unit square's corners (0,0), (1,0), (1,1), (0,1) to the four points.
    static func squareToQuad(_ p: [CGPoint]) -> [Double] {
        let (x0, y0, x1, y1, x2, y2, x3, y3) = (
            Double(p[0].x), Double(p[0].y), Double(p[1].x), Double(p[1].y), Double(p[2].x), Double(p[2].y), Double(p[3].x), Double(p[3].y)
        )
        let dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2
        let sx = x0 - x1 + x2 - x3, sy = y0 - y1 + y2 - y3
        let det = dx1 * dy2 - dx2 * dy1
        let g = det == 0 ? 0 : (sx * dy2 - dx2 * sy) / det
        let hh = det == 0 ? 0 : (dx1 * sy - sx * dy1) / det
        return [x1 - x0 + g * x1, x3 - x0 + hh * x3, x0, y1 - y0 + g * y1, y3 - y0 + hh * y3, y0, g, hh]
    }
}
