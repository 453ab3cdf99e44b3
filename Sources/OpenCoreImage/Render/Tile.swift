import CVipsShims
import Foundation

/// A node's rendering of one rectangle: a lazy libvips image exactly that many pixels wide and high, in Core Image's
/// working space — linear light with sRGB primaries, unbounded float (extended linear sRGB) — with 3 bands when
/// every pixel is opaque, or 4 with alpha from 0 to 1 and colours premultiplied by it.
struct Tile {
    var image: VImage
    var region: PixelRect
    var hasAlpha: Bool { image.bands == 4 }

    init(_ image: VImage, _ region: PixelRect) {
        precondition(
            image.width == region.width && image.height == region.height,
            "OpenCoreImage: a node rendered \(image.width)×\(image.height) for \(region)")
        self.image = image
        self.region = region
    }

    /// A rectangle of one colour (premultiplied linear RGBA); 3 bands when opaque.
    static func constant(_ rgba: [Double], _ region: PixelRect) throws(VipsError) -> Tile {
        let opaque = rgba[3] >= 1
        let values = opaque ? Array(rgba.prefix(3)) : rgba
        let black = try VipsCall("black").int("width", region.width).int("height", region.height).int("bands", values.count).output()
        let filled = try VipsCall("linear").image("in", black).doubles("a", values.map { _ in 0 }).doubles("b", values).output()
        return Tile(try filled.scRGB(), region)
    }

    static func transparent(_ region: PixelRect) throws(VipsError) -> Tile { try constant([0, 0, 0, 0], region) }

    /// The same pixels with an alpha band (1 everywhere when there was none).
    func withAlpha() throws(VipsError) -> Tile {
        if hasAlpha { return self }
        let joined = try VipsCall("bandjoin_const").image("in", image).doubles("c", [1]).output()
        return Tile(try joined.scRGB(), region)
    }

    /// The colours without alpha (premultiplied colours, which is what an opaque image is).
    func droppingAlpha() throws(VipsError) -> Tile {
        guard hasAlpha else { return self }
        return Tile(try VipsCall("extract_band").image("in", image).int("band", 0).int("n", 3).output(), region)
    }

    /// The part of the tile inside `sub` (which it must contain).
    func extract(_ sub: PixelRect) throws(VipsError) -> Tile {
        if sub == region { return self }
        precondition(region.contains(sub), "OpenCoreImage: \(sub) is outside \(region)")
        let out = try VipsCall("extract_area").image("input", image).int("left", sub.x - region.x)
            .int("top", region.maxY - sub.maxY).int("width", sub.width).int("height", sub.height).output()
        return Tile(out, sub)
    }

    /// This tile placed in the larger `target`: transparent outside it, or its edge pixels repeated (`copy`).
    func embedded(in target: PixelRect, repeatingEdges: Bool = false) throws(VipsError) -> Tile {
        if target == region { return self }
        let source = repeatingEdges ? self : try withAlpha()
        let out = try VipsCall("embed").image("in", source.image).int("x", region.x - target.x)
            .int("y", target.maxY - region.maxY).int("width", target.width).int("height", target.height)
            .enumeration("extend", repeatingEdges ? "copy" : "black").output()
        return Tile(out, target)
    }

    /// Applies `body` to the straight (unpremultiplied) colours, keeping alpha: how Core Image runs colour kernels.
    func mappingColours(_ body: (VImage) throws(VipsError) -> VImage) throws(VipsError) -> Tile {
        guard hasAlpha else { return Tile(try body(image).scRGB(), region) }
        let straight = try VipsCall("unpremultiply").image("in", image).double("max_alpha", 1).output()
        let colours = try VipsCall("extract_band").image("in", straight).int("band", 0).int("n", 3).output()
        let alpha = try VipsCall("extract_band").image("in", straight).int("band", 3).output()
        let mapped = try body(colours)
        let joined = try VipsCall("bandjoin").images("in", [mapped, alpha]).output()
        let premultiplied = try VipsCall("premultiply").image("in", joined).double("max_alpha", 1).output()
        return Tile(try premultiplied.scRGB(), region)
    }
}

extension VImage {
    /// Float pixels labelled as linear sRGB (libvips' scRGB), so colour conversions treat them as such.
    func scRGB() throws(VipsError) -> VImage {
        var image = self
        if format != VIPS_FORMAT_FLOAT {
            image = try VipsCall("cast").image("in", image).enumeration("format", "float").output()
        }
        if image.interpretation == VIPS_INTERPRETATION_scRGB { return image }
        return try image.withMetadata { cvips_set_interpretation($0, Int32(VIPS_INTERPRETATION_scRGB.rawValue)) }
    }

    /// `a · pixel + b` per band.
    func linear(_ a: [Double], _ b: [Double]) throws(VipsError) -> VImage {
        try VipsCall("linear").image("in", self).doubles("a", a).doubles("b", b).output()
    }

    func band(_ index: Int, count: Int = 1) throws(VipsError) -> VImage {
        try VipsCall("extract_band").image("in", self).int("band", index).int("n", count).output()
    }
}
