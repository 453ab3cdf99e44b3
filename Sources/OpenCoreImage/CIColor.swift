import Foundation

/// A colour with alpha, its components in a colour space (sRGB unless told): what filters take as colour inputs.
public final class CIColor: NSObject, @unchecked Sendable {
    /// The red component.
    public let red: CGFloat
    /// The green component.
    public let green: CGFloat
    /// The blue component.
    public let blue: CGFloat
    /// The alpha component.
    public let alpha: CGFloat
    /// The colour space of the components.
    public let colorSpace: CGColorSpace

    /// A colour of sRGB components (0…1; extended values allowed).
    public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat = 1) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
        self.colorSpace = CGColorSpace(name: CGColorSpace.sRGB)!
    }

    /// A colour of components in `colorSpace`; nil for a space that is not RGB.
    public init?(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat = 1, colorSpace: CGColorSpace) {
        guard colorSpace.model == .rgb, colorSpace.encoding != nil else { return nil }
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
        self.colorSpace = colorSpace
    }

    /// A colour from a string of 3 or 4 numbers, as `CIColor.stringRepresentation` writes them ("0.5 0.2 0.1 1").
    public convenience init(string representation: String) {
        let values = representation.split(whereSeparator: { $0 == " " || $0 == "[" || $0 == "]" }).compactMap { Double($0) }
        self.init(
            red: values.count > 0 ? values[0] : 0, green: values.count > 1 ? values[1] : 0, blue: values.count > 2 ? values[2] : 0,
            alpha: values.count > 3 ? values[3] : 1)
    }

    /// Red, green, blue and alpha: 4.
    public var numberOfComponents: Int { 4 }
    /// The components: red, green, blue, alpha.
    public var components: [CGFloat] { [red, green, blue, alpha] }
    /// The components as "r g b a".
    public var stringRepresentation: String { "\(red) \(green) \(blue) \(alpha)" }

    /// Black, opaque, in sRGB.
    public static let black = CIColor(red: 0, green: 0, blue: 0)
    /// White, opaque, in sRGB.
    public static let white = CIColor(red: 1, green: 1, blue: 1)
    /// Gray, opaque, in sRGB.
    public static let gray = CIColor(red: 0.5, green: 0.5, blue: 0.5)
    /// Red, opaque, in sRGB.
    public static let red = CIColor(red: 1, green: 0, blue: 0)
    /// Green, opaque, in sRGB.
    public static let green = CIColor(red: 0, green: 1, blue: 0)
    /// Blue, opaque, in sRGB.
    public static let blue = CIColor(red: 0, green: 0, blue: 1)
    /// Cyan, opaque, in sRGB.
    public static let cyan = CIColor(red: 0, green: 1, blue: 1)
    /// Magenta, opaque, in sRGB.
    public static let magenta = CIColor(red: 1, green: 0, blue: 1)
    /// Yellow, opaque, in sRGB.
    public static let yellow = CIColor(red: 1, green: 1, blue: 0)
    /// Transparent black.
    public static let clear = CIColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// The colour in the working space: linear sRGB primaries (unbounded), premultiplied.
    var workingRGBA: [Double] {
        let encoding = colorSpace.encoding!
        var rgb = [red, green, blue].map { Double($0) }
        switch encoding.transfer {
        case .sRGB: rgb = rgb.map(Self.decodeSRGB)
        case .gamma22: rgb = rgb.map { pow(max(0, $0), 2.2) }
        case .linear: break
        }
        if encoding.primaries == .displayP3 {
            let m = ColourConversion.p3ToSRGB
            rgb = [
                m[0] * rgb[0] + m[1] * rgb[1] + m[2] * rgb[2], m[3] * rgb[0] + m[4] * rgb[1] + m[5] * rgb[2],
                m[6] * rgb[0] + m[7] * rgb[1] + m[8] * rgb[2],
            ]
        }
        let a = Double(alpha)
        return rgb.map { $0 * a } + [a]
    }

    static func decodeSRGB(_ v: Double) -> Double {
        let m = abs(v)
        let linear = m <= 0.040_45 ? m / 12.92 : pow((m + 0.055) / 1.055, 2.4)
        return v < 0 ? -linear : linear
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CIColor else { return false }
        return components == other.components && colorSpace == other.colorSpace
    }

    public override var hash: Int { components.hashValue }
    public override var description: String { "<CIColor \(stringRepresentation)>" }
}
