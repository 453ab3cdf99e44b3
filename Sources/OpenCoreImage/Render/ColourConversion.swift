import CVipsShims
import Foundation

/// Conversions into and out of the working space (extended linear sRGB, premultiplied alpha, float).
enum ColourConversion {
    /// Display P3 → sRGB primaries, in linear light (D65 both).
    static let p3ToSRGB: [Double] = [
        1.224_940_2, -0.224_940_4, 0, -0.042_056_9, 1.042_057_1, 0, -0.019_637_6, -0.078_636_1, 1.098_273_5,
    ]
    /// sRGB → Display P3 primaries, in linear light.
    static let sRGBToP3: [Double] = [
        0.822_462_1, 0.177_538_0, 0, 0.033_194_1, 0.966_805_8, 0, 0.017_082_7, 0.072_397_4, 0.910_519_9,
    ]

    /// Multiplies each pixel's 3 colours by a 3×3 matrix (row-major).
    static func recomb(_ image: VImage, _ m: [Double]) throws(VipsError) -> VImage {
        try VipsCall("recomb").image("in", image).image("m", try matrixImage(m, rows: 3)).output()
    }

    /// sRGB transfer decoding of float components in 0…1 (extended: mirrored below 0).
    static func sRGBToLinear(_ image: VImage) throws(VipsError) -> VImage {
        let magnitude = try VipsCall("abs").image("in", image).output()
        let sign = try VipsCall("sign").image("in", image).output()
        let low = try magnitude.linear([1 / 12.92], [0])
        let shifted = try magnitude.linear([1 / 1.055], [0.055 / 1.055])
        let high = try VipsCall("math2_const").image("in", shifted).enumeration("math2", "pow").doubles("c", [2.4]).output()
        let isLow = try VipsCall("relational_const").image("in", magnitude).enumeration("relational", "lesseq").doubles("c", [0.040_45]).output()
        let chosen = try VipsCall("ifthenelse").image("cond", isLow).image("in1", low).image("in2", high).output()
        return try VipsCall("multiply").image("left", chosen).image("right", sign).output()
    }

    /// sRGB transfer encoding of linear float components (extended: mirrored below 0); results in 0…1 for 0…1.
    static func linearToSRGB(_ image: VImage) throws(VipsError) -> VImage {
        let magnitude = try VipsCall("abs").image("in", image).output()
        let sign = try VipsCall("sign").image("in", image).output()
        let low = try magnitude.linear([12.92], [0])
        let powered = try VipsCall("math2_const").image("in", magnitude).enumeration("math2", "pow").doubles("c", [1 / 2.4]).output()
        let high = try powered.linear([1.055], [-0.055])
        let isLow = try VipsCall("relational_const").image("in", magnitude).enumeration("relational", "lesseq").doubles("c", [0.003_130_8]).output()
        let chosen = try VipsCall("ifthenelse").image("cond", isLow).image("in1", low).image("in2", high).output()
        return try VipsCall("multiply").image("left", chosen).image("right", sign).output()
    }

    static func clamp(_ image: VImage, _ low: Double = 0, _ high: Double = 1) throws(VipsError) -> VImage {
        let above = try VipsCall("relational_const").image("in", image).enumeration("relational", "more").doubles("c", [high]).output()
        let capped = try VipsCall("ifthenelse").image("cond", above).image("in1", try Tile.constantLike(image, high)).image("in2", image).output()
        let below = try VipsCall("relational_const").image("in", capped).enumeration("relational", "less").doubles("c", [low]).output()
        return try VipsCall("ifthenelse").image("cond", below).image("in1", try Tile.constantLike(image, low)).image("in2", capped).output()
    }

    /// Decoded pixels (R, G, B(, A) or grey(, A) in uchar, ushort or float, alpha straight) → working space.
    static func toWorking(_ decoded: VImage, hasAlpha: Bool, space: CGColorSpace?) throws(VipsError) -> VImage {
        var image = decoded
        let range: Double =
            image.format == VIPS_FORMAT_UCHAR
            ? 255
            : image.format == VIPS_FORMAT_USHORT
                ? 65535
                : (image.format == VIPS_FORMAT_FLOAT || image.format == VIPS_FORMAT_DOUBLE) ? 1 : 255
        let colourBands = image.bands - (hasAlpha ? 1 : 0)
        var alpha: VImage?
        if hasAlpha {
            alpha = try image.band(colourBands).linear([1 / range], [0])
            image = try image.band(0, count: colourBands)
        }
        if colourBands == 1 || colourBands == 2 {
            let grey = try image.band(0)
            image = try VipsCall("bandjoin").images("in", [grey, grey, grey]).output()
        } else if colourBands > 3 {
            image = try image.band(0, count: 3)
        }
        let encoding = space?.encoding ?? CGColorSpace(name: CGColorSpace.sRGB)!.encoding!
        if space?.encoding == nil, let profile = space?.iccProfile {
            // A profile that is neither sRGB nor Display P3: LittleCMS to CIE Lab, then Lab → linear sRGB.
            let eight = try VipsCall("cast").image("in", image).enumeration("format", range == 65535 ? "ushort" : "uchar").output()
            let tagged = try eight.withMetadata { pointer in
                profile.withUnsafeBytes { cvips_set_meta_blob(pointer, "icc-profile-data", $0.baseAddress, $0.count) }
                cvips_set_interpretation(pointer, Int32((range == 65535 ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB).rawValue))
            }
            let lab = try VipsCall("icc_import").image("in", tagged).bool("embedded", true).enumeration("intent", "relative").output()
            image = try VipsCall("colourspace").image("in", lab).enumeration("space", "scrgb").output()
        } else {
            switch encoding.transfer {
            case .sRGB where range == 255:
                let labelled = try image.withMetadata { cvips_set_interpretation($0, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
                image = try VipsCall("colourspace").image("in", labelled).enumeration("space", "scrgb").output()
            case .sRGB:
                image = try sRGBToLinear(try image.linear([1 / range], [0]))
            case .linear:
                image = try image.linear([1 / range], [0])
            case .gamma22:
                let unit = try image.linear([1 / range], [0])
                image = try VipsCall("math2_const").image("in", unit).enumeration("math2", "pow").doubles("c", [2.2]).output()
            }
            if encoding.primaries == .displayP3 { image = try recomb(image, p3ToSRGB) }
        }
        image = try image.scRGB()
        if let alpha {
            let joined = try VipsCall("bandjoin").images("in", [image, alpha]).output()
            image = try VipsCall("premultiply").image("in", joined).double("max_alpha", 1).output()
        }
        return try image.scRGB()
    }

    /// Working space → components encoded in `space`, straight alpha in 0…1 when there is alpha, float.
    /// Values are clamped to 0…1 unless the space is extended.
    static func fromWorking(_ tile: Tile, space: CGColorSpace) throws(CIRenderError) -> VImage {
        guard let encoding = space.encoding else { throw .unsupportedColorSpace(space.description) }
        do {
            var image = tile.image
            var alpha: VImage?
            if tile.hasAlpha {
                let straight = try VipsCall("unpremultiply").image("in", image).double("max_alpha", 1).output()
                image = try straight.band(0, count: 3)
                alpha = try straight.band(3)
            }
            if encoding.gray {
                let luminance = try VipsCall("recomb").image("in", image).image("m", try matrixImage([0.2126, 0.7152, 0.0722], rows: 1)).output()
                image = luminance
            } else if encoding.primaries == .displayP3 {
                image = try recomb(image, sRGBToP3)
            }
            if !encoding.extended { image = try clamp(image) }
            switch encoding.transfer {
            case .sRGB: image = try linearToSRGB(image)
            case .linear: break
            case .gamma22:
                let positive = try clamp(image, 0, .greatestFiniteMagnitude)
                image = try VipsCall("math2_const").image("in", positive).enumeration("math2", "pow").doubles("c", [1 / 2.2]).output()
            }
            if let alpha { image = try VipsCall("bandjoin").images("in", [image, try clamp(alpha)]).output() }
            return image
        } catch {
            throw .vips(error)
        }
    }

    static func matrixImage(_ values: [Double], rows: Int) throws(VipsError) -> VImage {
        let pointer = values.withUnsafeBufferPointer {
            vips_image_new_matrix_from_array(Int32(values.count / rows), Int32(rows), $0.baseAddress, Int32(values.count))
        }
        guard let pointer else { throw VipsError.take("matrix") }
        return VImage(owning: pointer)
    }
}

extension Tile {
    /// An image of one value, the size and band count of `like`.
    static func constantLike(_ like: VImage, _ value: Double) throws(VipsError) -> VImage {
        let black = try VipsCall("black").int("width", like.width).int("height", like.height).int("bands", like.bands).output()
        return try black.linear([0], [value])
    }
}
