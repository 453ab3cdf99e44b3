import CVipsShims
import Foundation

/// A single colour everywhere: an infinite extent.
final class ColorNode: ImageNode, @unchecked Sendable {
    /// Premultiplied linear RGBA.
    let rgba: [Double]

    init(rgba: [Double]) {
        self.rgba = rgba
        super.init(extent: .infinite)
    }

    override var isOpaque: Bool { rgba[3] >= 1 }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try Tile.constant(rgba, region)
    }
}

/// Nothing: an empty extent.
final class EmptyNode: ImageNode, @unchecked Sendable {
    init() { super.init(extent: .null) }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try Tile.transparent(region)
    }
}

/// The input inside a rectangle, transparent outside.
final class CropNode: ImageNode, @unchecked Sendable {
    let input: ImageNode

    init(_ input: ImageNode, to rect: CGRect) {
        self.input = input
        let area = input.extent.isEffectivelyInfinite ? rect : input.extent.intersection(rect)
        super.init(extent: area.isNull || area.isEmpty ? .null : PixelRect(covering: area).cgRect)
    }

    override var isOpaque: Bool { input.isOpaque }

    override var inputs: [ImageNode] { [input] }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try renderClipped(region) { (inner) throws(VipsError) -> Tile in try input.render(inner, context) }
    }
}

/// The input's edge pixels repeated to infinity (`clampedToExtent()`).
final class ClampNode: ImageNode, @unchecked Sendable {
    let input: ImageNode

    init(_ input: ImageNode) {
        self.input = input
        super.init(extent: input.extent.isNull ? .null : .infinite)
    }

    override var isOpaque: Bool { input.isOpaque }

    override var inputs: [ImageNode] { [input] }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        guard let own = input.pixelExtent, !own.isEmpty else { return try input.render(region, context) }
        var inner = region.intersection(own)
        if inner.isEmpty {
            // The nearest strip of the input: its edge row or column (or corner pixel) facing the region.
            let x = min(max(region.x, own.x), own.maxX - 1), y = min(max(region.y, own.y), own.maxY - 1)
            let maxX = min(max(region.maxX, own.x + 1), own.maxX), maxY = min(max(region.maxY, own.y + 1), own.maxY)
            inner = PixelRect(x: x, y: y, width: max(1, maxX - x), height: max(1, maxY - y))
        }
        let tile = try input.render(inner, context)
        // Extend to cover the region (and beyond it where the strip lies outside), then cut the region out.
        let union = PixelRect(
            x: min(region.x, inner.x), y: min(region.y, inner.y), width: max(region.maxX, inner.maxX) - min(region.x, inner.x),
            height: max(region.maxY, inner.maxY) - min(region.y, inner.y))
        return try tile.embedded(in: union, repeatingEdges: true).extract(region)
    }
}

/// The input under an affine transform (Core Image's `transformed(by:)`): whole-pixel translations, flips and
/// quarter turns move pixels exactly; anything else resamples (bilinear, or nearest, or Lanczos for a
/// high-quality downsample). A JPEG source scaled to half or less is decoded smaller in the first place.
final class TransformNode: ImageNode, @unchecked Sendable {
    enum Sampling: Sendable { case linear, nearest, highQuality }

    let input: ImageNode
    let transform: CGAffineTransform
    let sampling: Sampling

    init(_ input: ImageNode, _ transform: CGAffineTransform, sampling: Sampling) {
        self.input = input
        self.transform = transform
        self.sampling = sampling
        let extent: CGRect
        if input.extent.isNull {
            extent = .null
        } else if input.extent.isEffectivelyInfinite {
            extent = .infinite
        } else {
            extent = input.extent.applying(transform)
        }
        super.init(extent: extent)
    }

    override var inputs: [ImageNode] { [input] }

    /// A transform of `node`, merged with the transforms under it so that a chain of them resamples once: a
    /// transform of a transform is one transform, and a transform of a clamped upright scale is a transform of the
    /// clamped source (the same pixels but at the very edges, where the clamp repeats the source's edge instead of
    /// the scaled edge).
    static func fused(_ node: ImageNode, _ matrix: CGAffineTransform, sampling: Sampling) -> ImageNode {
        if let inner = node as? TransformNode, inner.sampling == sampling || inner.sampling == .linear {
            return TransformNode(inner.input, inner.transform.concatenating(matrix), sampling: sampling)
        }
        if let clamp = node as? ClampNode, let inner = clamp.input as? TransformNode, inner.transform.b == 0, inner.transform.c == 0,
            inner.transform.a > 0, inner.transform.d > 0
        {
            return TransformNode(ClampNode(inner.input), inner.transform.concatenating(matrix), sampling: sampling)
        }
        return TransformNode(node, matrix, sampling: sampling)
    }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try renderClipped(region) { (inner) throws(VipsError) -> Tile in
            var child = input
            var t = transform
            if let clamp = input as? ClampNode, let source = clamp.input as? SourceNode, source.shrinksOnLoad,
                let factor = Self.shrinkFactor(t), factor > 1
            {
                let shrunk = ShrunkSourceNode(source, factor: factor)
                child = ClampNode(shrunk)
                t = CGAffineTransform(scaleX: CGFloat(source.width) / CGFloat(shrunk.width), y: CGFloat(source.height) / CGFloat(shrunk.height))
                    .concatenating(t)
            } else if let source = input as? SourceNode, source.shrinksOnLoad {
                if let factor = Self.shrinkFactor(t), factor > 1 {
                    let shrunk = ShrunkSourceNode(source, factor: factor)
                    child = shrunk
                    t = CGAffineTransform(scaleX: CGFloat(source.width) / CGFloat(shrunk.width), y: CGFloat(source.height) / CGFloat(shrunk.height))
                        .concatenating(t)
                }
            }
            // Only whole-pixel translations stream the source top to bottom; resampling, turning and mirroring read
            // it out of order (and libvips' sequential line cache would stall them).
            let streams = context.sequential && t.a == 1 && t.d == 1 && t.b == 0 && t.c == 0
            let childContext = streams ? context : RenderContext(sequential: false)
            if let exact = try Self.exact(child, t, inner, childContext) { return exact }
            return try Self.resample(child, t, inner, sampling, childContext)
        }
    }

    /// The largest JPEG decoding shrink (1, 2, 4, 8) that still leaves at least as many pixels as the transform
    /// keeps.
    static func shrinkFactor(_ t: CGAffineTransform) -> Int? {
        let scale = min((t.a * t.a + t.b * t.b).squareRoot(), (t.c * t.c + t.d * t.d).squareRoot())
        var factor = 1
        while factor < 8, scale * CGFloat(factor * 2) <= 1 + 1e-9 { factor *= 2 }
        return factor
    }

    static func isWhole(_ value: CGFloat) -> Bool { abs(value - value.rounded()) < 1e-9 }

    /// Translations by whole pixels, flips and quarter turns: pixels moved, not resampled.
    static func exact(_ child: ImageNode, _ t: CGAffineTransform, _ inner: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile? {
        let unit = [t.a, t.b, t.c, t.d].allSatisfy { $0 == 0 || abs($0) == 1 }
        let permutation = (t.b == 0 && t.c == 0 && t.a != 0 && t.d != 0) || (t.a == 0 && t.d == 0 && t.b != 0 && t.c != 0)
        guard unit, permutation, isWhole(t.tx), isWhole(t.ty) else { return nil }
        let needed = PixelRect(covering: inner.cgRect.applying(t.inverted()))
        let tile = try child.render(needed, context)
        // In libvips' y-down coordinates the matrix is [a, -c; -b, d].
        let (a, b, c, d) = (Int(t.a), Int(-t.c), Int(-t.b), Int(t.d))
        var image = tile.image
        if b != 0 || d == -1 { image = try cached(image) }  // quarter turns and vertical flips read across strips
        switch (a, b, c, d) {
        case (1, 0, 0, 1): break
        case (-1, 0, 0, 1): image = try VipsCall("flip").image("in", image).enumeration("direction", "horizontal").output()
        case (1, 0, 0, -1): image = try VipsCall("flip").image("in", image).enumeration("direction", "vertical").output()
        case (-1, 0, 0, -1): image = try VipsCall("rot").image("in", image).enumeration("angle", "d180").output()
        case (0, -1, 1, 0): image = try VipsCall("rot").image("in", image).enumeration("angle", "d90").output()
        case (0, 1, -1, 0): image = try VipsCall("rot").image("in", image).enumeration("angle", "d270").output()
        case (0, 1, 1, 0):
            let turned = try VipsCall("rot").image("in", image).enumeration("angle", "d90").output()
            image = try VipsCall("flip").image("in", turned).enumeration("direction", "horizontal").output()
        default:
            let turned = try VipsCall("rot").image("in", image).enumeration("angle", "d270").output()
            image = try VipsCall("flip").image("in", turned).enumeration("direction", "horizontal").output()
        }
        return Tile(image, inner)
    }

    /// Resampling through libvips' affine (or a Lanczos resize for a high-quality downscale).
    static func resample(
        _ child: ImageNode, _ t: CGAffineTransform, _ inner: PixelRect, _ sampling: Sampling, _ context: RenderContext
    ) throws(VipsError) -> Tile {
        let inverse = t.inverted()
        var needed = PixelRect(covering: inner.cgRect.applying(inverse).insetBy(dx: -3, dy: -3))
        if let own = child.pixelExtent { needed = needed.intersection(own) }
        if needed.isEmpty { return try Tile.transparent(inner) }
        var tile = try child.render(needed, context)
        let covered = child.isOpaque && (child.pixelExtent.map { covers(t, $0.cgRect, inner.cgRect) } ?? true)
        if !covered { tile = try tile.withAlpha() }
        let pureScale = t.b == 0 && t.c == 0 && t.a > 0 && t.d > 0
        if sampling == .highQuality, pureScale, t.a < 1 || t.d < 1, covered {
            let resized = try VipsCall("resize").image("in", tile.image).double("scale", t.a).double("vscale", t.d)
                .enumeration("kernel", "lanczos3").output()
            // The resized grid starts at needed.origin × scale; place it, then cut the region out.
            let origin = CGPoint(x: CGFloat(needed.x) * t.a + t.tx, y: CGFloat(needed.maxY) * t.d + t.ty)
            let placed = PixelRect(
                x: Int(origin.x.rounded()), y: Int(origin.y.rounded()) - resized.height, width: resized.width, height: resized.height)
            let available = placed.intersection(inner)
            if available.isEmpty { return try Tile.transparent(inner) }
            return try Tile(resized, placed).extract(available).embedded(in: inner, repeatingEdges: true)
        }
        // libvips' coordinates: X = x, Y = −y (CI's y up); buffer pixel (0, 0) of a region r sits at (r.x, −r.maxY).
        let (a, b, c, d) = (Double(t.a), Double(-t.c), Double(-t.b), Double(t.d))
        let (tx, ty) = (Double(t.tx), Double(-t.ty))
        let (inX, inY) = (Double(needed.x), Double(-needed.maxY))
        let (outX, outY) = (Double(inner.x), Double(-inner.maxY))
        // libvips indexes pixels by their centres (pixel i at i); Core Image's pixel i covers [i, i + 1).
        var odx = a * inX + b * inY + tx - outX + 0.5 * (a + b - 1)
        var ody = c * inX + d * inY + ty - outY + 0.5 * (c + d - 1)
        if sampling == .nearest {
            // libvips' nearest interpolator floors the input position; shift it by half a pixel so it rounds.
            odx -= 0.5 * (a + b)
            ody -= 0.5 * (c + d)
        }
        let interpolator = sampling == .nearest ? "nearest" : "bilinear"
        // Output strips of a turned image need overlapping input rows: keep computed input tiles instead of
        // computing them again for every strip.
        let input = t.b == 0 && t.c == 0 ? tile.image : try cached(tile.image)
        let out = try VipsCall("affine").image("in", input).doubles("matrix", [a, b, c, d]).interpolate("interpolate", interpolator)
            .ints("oarea", [0, 0, inner.width, inner.height]).double("odx", odx).double("ody", ody)
            .enumeration("extend", covered ? "copy" : "background").doubles("background", covered ? [0] : [0, 0, 0, 0])
            .bool("premultiplied", true).output()
        return Tile(try out.scRGB(), inner)
    }

    /// A cache of computed 128×128 tiles in front of an image read out of order, sized for a few rows of tiles
    /// across the image (libvips' tilecache, shared by the worker threads).
    static func cached(_ image: VImage) throws(VipsError) -> VImage {
        let across = (image.width + 127) / 128
        return try VipsCall("tilecache").image("in", image).int("tile_width", 128).int("tile_height", 128)
            .int("max_tiles", across * 6).bool("threaded", true).output()
    }

    /// Whether the transformed rectangle `source` covers `target` (so no transparent pixel can appear in it).
    static func covers(_ t: CGAffineTransform, _ source: CGRect, _ target: CGRect) -> Bool {
        let inverse = t.inverted()
        let corners = [
            CGPoint(x: target.minX, y: target.minY), CGPoint(x: target.maxX, y: target.minY),
            CGPoint(x: target.minX, y: target.maxY), CGPoint(x: target.maxX, y: target.maxY),
        ]
        let margin = source.insetBy(dx: 0.5, dy: 0.5)
        return corners.allSatisfy { margin.contains($0.applying(inverse)) }
    }
}
