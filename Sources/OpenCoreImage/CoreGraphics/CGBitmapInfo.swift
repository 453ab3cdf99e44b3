/// Where the alpha of a pixel is, and whether colours are premultiplied by it.
@frozen public enum CGImageAlphaInfo: UInt32, Sendable, Hashable {
    case none = 0
    case premultipliedLast = 1
    case premultipliedFirst = 2
    case last = 3
    case first = 4
    case noneSkipLast = 5
    case noneSkipFirst = 6
    case alphaOnly = 7

    var hasAlpha: Bool { [.premultipliedLast, .premultipliedFirst, .last, .first, .alphaOnly].contains(self) }
    var isPremultiplied: Bool { self == .premultipliedLast || self == .premultipliedFirst }
    var alphaIsFirst: Bool { self == .premultipliedFirst || self == .first || self == .noneSkipFirst }
    var hasFourComponents: Bool { self != .none && self != .alphaOnly }
}

/// The layout of a bitmap: alpha information, byte order and floating-point components (CoreGraphics' bits).
public struct CGBitmapInfo: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The bits of the alpha information.
    public static let alphaInfoMask = CGBitmapInfo(rawValue: 0x1F)
    /// The bits of the float information.
    public static let floatInfoMask = CGBitmapInfo(rawValue: 0xF00)
    /// Components are floating point.
    public static let floatComponents = CGBitmapInfo(rawValue: 1 << 8)
    /// The bits of the byte order.
    public static let byteOrderMask = CGBitmapInfo(rawValue: 0x7000)
    /// The default byte order (big endian components).
    public static let byteOrderDefault = CGBitmapInfo([])
    /// 16-bit components, little endian.
    public static let byteOrder16Little = CGBitmapInfo(rawValue: 1 << 12)
    /// 32-bit pixels, little endian (BGRA for premultipliedFirst).
    public static let byteOrder32Little = CGBitmapInfo(rawValue: 2 << 12)
    /// 16-bit components, big endian.
    public static let byteOrder16Big = CGBitmapInfo(rawValue: 3 << 12)
    /// 32-bit pixels, big endian.
    public static let byteOrder32Big = CGBitmapInfo(rawValue: 4 << 12)

    /// The layout with `alphaInfo` and default byte order.
    public init(alphaInfo: CGImageAlphaInfo) { self.init(rawValue: alphaInfo.rawValue) }

    var alphaInfo: CGImageAlphaInfo { CGImageAlphaInfo(rawValue: rawValue & Self.alphaInfoMask.rawValue) ?? .none }
    var byteOrder: CGBitmapInfo { CGBitmapInfo(rawValue: rawValue & Self.byteOrderMask.rawValue) }
}

/// How colours outside a destination's gamut are mapped (accepted; conversions here are relative colorimetric).
@frozen public enum CGColorRenderingIntent: Int32, Sendable, Hashable {
    case defaultIntent = 0
    case absoluteColorimetric
    case relativeColorimetric
    case perceptual
    case saturation
}
