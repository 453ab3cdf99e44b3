import CVipsShims
import Foundation

/// Per-pixel arithmetic on float images, the vocabulary filters are written in.
extension VImage {
    func times(_ other: VImage) throws(VipsError) -> VImage { try VipsCall("multiply").image("left", self).image("right", other).output() }
    func plus(_ other: VImage) throws(VipsError) -> VImage { try VipsCall("add").image("left", self).image("right", other).output() }
    func minus(_ other: VImage) throws(VipsError) -> VImage { try VipsCall("subtract").image("left", self).image("right", other).output() }
    func dividedBy(_ other: VImage) throws(VipsError) -> VImage { try VipsCall("divide").image("left", self).image("right", other).output() }

    /// Each value to the power `exponent`, sign kept (Core Image's kernels treat negative extended values so).
    func signedPower(_ exponent: Double) throws(VipsError) -> VImage {
        let magnitude = try VipsCall("abs").image("in", self).output()
        let sign = try VipsCall("sign").image("in", self).output()
        let powered = try VipsCall("math2_const").image("in", magnitude).enumeration("math2", "pow").doubles("c", [exponent]).output()
        return try powered.times(sign)
    }

    /// The 3 colours multiplied by a 3×3 matrix (row-major), or 4 by a 4×4.
    func recombined(_ matrix: [Double]) throws(VipsError) -> VImage {
        let size = matrix.count == 16 ? 4 : 3
        return try VipsCall("recomb").image("in", self).image("m", try ColourConversion.matrixImage(matrix, rows: size)).output()
    }

    /// Rec. 709 luminance of linear RGB (what Core Image's colour kernels weigh with).
    func luminance() throws(VipsError) -> VImage {
        try VipsCall("recomb").image("in", self).image("m", try ColourConversion.matrixImage([0.2125, 0.7154, 0.0721], rows: 1)).output()
    }

    /// One band repeated into `count` bands.
    func replicated(_ count: Int) throws(VipsError) -> VImage {
        try VipsCall("bandjoin").images("in", Array(repeating: self, count: count)).output()
    }

    /// `a + (b − a) · t` per pixel (t one band or as many as a).
    static func mix(_ a: VImage, _ b: VImage, _ t: Double) throws(VipsError) -> VImage {
        if t == 1 { return b }
        if t == 0 { return a }
        return try a.linear([1 - t], [0]).plus(try b.linear([t], [0]))
    }

    static func mix(_ a: VImage, _ b: VImage, by t: VImage) throws(VipsError) -> VImage {
        try a.plus(try b.minus(a).times(t))
    }

    /// A function of each linear value in 0…1 (values outside are clipped to it), through a 65,536-entry table indexed
    /// by the value quantised to 16 bits: three cheap passes instead of per-pixel powers.
    func curve16(_ function: (Double) -> Double) throws(VipsError) -> VImage {
        let size = 65536
        let table = (0..<size).map { Float(function(Double($0) / Double(size - 1))) }
        let made = table.withUnsafeBytes { raw in
            Result { () throws(VipsError) -> VImage in
                try VImage.fromMemory(raw, width: size, height: 1, bands: 1, format: VIPS_FORMAT_FLOAT, interpretation: VIPS_INTERPRETATION_B_W)
            }
        }
        let lut = try made.get()
        let index = try VipsCall("cast").image("in", try linear(Array(repeating: 65535, count: bands), Array(repeating: 0.5, count: bands)))
            .enumeration("format", "ushort").output()  // the cast clips to 0…65535
        return try VipsCall("maplut").image("in", index).image("lut", lut).output()
    }

    /// A curve applied to the sRGB-encoded (perceptual) values, as one function of each linear value through
    /// ``curve16(_:)``; results clip to 0…1.
    func perceptualCurve(_ curve: @escaping (Double) -> Double) throws(VipsError) -> VImage {
        try curve16 { x in ColourMath.decodeSRGB(min(1, max(0, curve(ColourMath.encodeSRGB(x))))) }
    }
}

/// Definitions in a compact form.
func filter(
    _ name: String, _ displayName: String, _ categories: [String], _ inputs: [FilterInput],
    apply: @escaping (FilterInputs) -> CIImage?
) -> FilterDefinition {
    FilterDefinition(
        name: name, displayName: displayName,
        categories: categories + [kCICategoryBuiltIn, kCICategoryStillImage, kCICategoryVideo].filter { !categories.contains($0) },
        inputs: inputs, apply: apply)
}

let imageInput = FilterInput(kCIInputImageKey, .image, name: "Image")

extension CIImage {
    /// A colour kernel over this image (straight linear RGB in, RGB out; alpha kept).
    func colourKernel(_ kernel: @escaping @Sendable (VImage) throws(VipsError) -> VImage) -> CIImage {
        CIImage(node: ColourKernelNode(node, kernel: kernel), properties: properties, sampling: sampling)
    }

    /// `matrix · rgb + offset` on this image's straight linear colours, merged with the affine colour step before it.
    func affineColour(_ matrix: [Double], _ offset: [Double] = [0, 0, 0]) -> CIImage {
        CIImage(node: AffineColourNode.applying(node, matrix: matrix, offset: offset), properties: properties, sampling: sampling)
    }

    /// An RGBA kernel over this image (straight linear RGBA in and out).
    func rgbaKernel(keepsOpacity: Bool, _ kernel: @escaping @Sendable (VImage) throws(VipsError) -> VImage) -> CIImage {
        CIImage(node: RGBAKernelNode(node, keepsOpacity: keepsOpacity, kernel: kernel), properties: properties, sampling: sampling)
    }
}
