import Foundation

/// Options for creating a ``CIImage``.
public struct CIImageOption: Hashable, Sendable, RawRepresentable, ExpressibleByStringLiteral {
    /// The option's name.
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// An option of that name.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// An option of that name.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// A `Bool`: apply the file's orientation to the pixels (false by default, as Apple's).
    public static let applyOrientationProperty = CIImageOption("kCIImageApplyOrientationProperty")
    /// A ``CGColorSpace`` the pixels are in (overrides the file's profile), or `NSNull` for no colour management.
    public static let colorSpace = CIImageOption("kCIImageColorSpace")
    /// A dictionary that replaces the file's ``CIImage/properties``.
    public static let properties = CIImageOption("kCIImageProperties")
    /// A `Bool`: sample with the nearest pixel instead of bilinear interpolation.
    public static let nearestSampling = CIImageOption("kCIImageNearestSampling")
    /// Accepted and ignored here (auxiliary images are not read).
    public static let auxiliaryDepth = CIImageOption("kCIImageAuxiliaryDepth")
    /// Accepted and ignored (auxiliary images are not read).
    public static let auxiliaryDisparity = CIImageOption("kCIImageAuxiliaryDisparity")
    /// Accepted and ignored (auxiliary images are not read).
    public static let auxiliaryPortraitEffectsMatte = CIImageOption("kCIImageAuxiliaryPortraitEffectsMatte")
    /// Accepted and ignored (no HDR gain maps here).
    public static let expandToHDR = CIImageOption("kCIImageExpandToHDR")
}

/// Options for a ``CIContext``.
public struct CIContextOption: Hashable, Sendable, RawRepresentable, ExpressibleByStringLiteral {
    /// The option's name.
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// An option of that name.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// An option of that name.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// A ``CGColorSpace`` to work in. Accepted; the working space is always extended linear sRGB here.
    public static let workingColorSpace = CIContextOption("kCIContextWorkingColorSpace")
    /// A ``CIFormat`` to work in. Accepted; the working format is always 32-bit float here.
    public static let workingFormat = CIContextOption("kCIContextWorkingFormat")
    /// A ``CGColorSpace`` that renders without an explicit space produce (sRGB by default).
    public static let outputColorSpace = CIContextOption("kCIContextOutputColorSpace")
    /// A `Bool`: whether `createCGImage` output is premultiplied (true by default).
    public static let outputPremultiplied = CIContextOption("kCIContextOutputPremultiplied")
    /// Accepted and ignored: libvips keeps no intermediates between renders here.
    public static let cacheIntermediates = CIContextOption("kCIContextCacheIntermediates")
    /// Accepted and ignored: rendering is always on the CPU here.
    public static let useSoftwareRenderer = CIContextOption("kCIContextUseSoftwareRenderer")
    /// Accepted and ignored.
    public static let priorityRequestLow = CIContextOption("kCIContextPriorityRequestLow")
    /// A `Bool`: downscales use a Lanczos kernel (true by default, as Apple's).
    public static let highQualityDownsample = CIContextOption("kCIContextHighQualityDownsample")
    /// A `String` naming the context in logs.
    public static let name = CIContextOption("kCIContextName")
    /// Accepted and ignored.
    public static let allowLowPower = CIContextOption("kCIContextAllowLowPower")
}

/// Options for the encoded representations a ``CIContext`` writes.
public struct CIImageRepresentationOption: Hashable, Sendable, RawRepresentable, ExpressibleByStringLiteral {
    /// The option's name.
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// An option of that name.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// An option of that name.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Accepted and ignored (depth data is not written here).
    public static let avDepthData = CIImageRepresentationOption("kCIImageRepresentationAVDepthData")
    /// Accepted and ignored (depth data is not written here).
    public static let depthImage = CIImageRepresentationOption("kCIImageRepresentationDepthImage")
    /// Accepted and ignored (depth data is not written here).
    public static let disparityImage = CIImageRepresentationOption("kCIImageRepresentationDisparityImage")
    /// Accepted and ignored (no HDR gain maps here).
    public static let hdrImage = CIImageRepresentationOption("kCIImageRepresentationHDRImage")
}

/// The quality of lossy encodings, 0 (smallest) to 1 (best), as ImageIO's key, typed as the representation option it
/// is used as, so `kCGImageDestinationLossyCompressionQuality as CIImageRepresentationOption` compiles as written.
///
/// The `ImageIO` module (brought by `import CoreImage`) declares the same key as a `CFString`, as Apple's; where both
/// fit, that one is chosen.
@_disfavoredOverload
public let kCGImageDestinationLossyCompressionQuality = CIImageRepresentationOption("kCGImageDestinationLossyCompressionQuality")

/// A pixel format for rendering into memory.
public struct CIFormat: Hashable, Sendable, RawRepresentable {
    /// The format's number (OpenPhotoKit's own: Apple's values are not documented).
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 8-bit red, green, blue, alpha.
    public static let RGBA8 = CIFormat(rawValue: 1)
    /// 8-bit blue, green, red, alpha (the little-endian 32-bit `premultipliedFirst` layout).
    public static let BGRA8 = CIFormat(rawValue: 2)
    /// 8-bit alpha, red, green, blue.
    public static let ARGB8 = CIFormat(rawValue: 3)
    /// 8-bit alpha, blue, green, red.
    public static let ABGR8 = CIFormat(rawValue: 4)
    /// 16-bit integer red, green, blue, alpha.
    public static let RGBA16 = CIFormat(rawValue: 5)
    /// 16-bit float red, green, blue, alpha.
    public static let RGBAh = CIFormat(rawValue: 6)
    /// 32-bit float red, green, blue, alpha.
    public static let RGBAf = CIFormat(rawValue: 7)
    /// 8-bit luminance.
    public static let L8 = CIFormat(rawValue: 8)
    /// 16-bit luminance.
    public static let L16 = CIFormat(rawValue: 9)
    /// 32-bit float luminance.
    public static let Lf = CIFormat(rawValue: 10)
    /// 10-bit-per-component packed RGB (accepted by the HEIF writer to mean 10-bit).
    public static let RGB10 = CIFormat(rawValue: 12)

    var name: String {
        switch self {
        case .RGBA8: "RGBA8"
        case .BGRA8: "BGRA8"
        case .ARGB8: "ARGB8"
        case .ABGR8: "ABGR8"
        case .RGBA16: "RGBA16"
        case .RGBAh: "RGBAh"
        case .RGBAf: "RGBAf"
        case .L8: "L8"
        case .L16: "L16"
        case .Lf: "Lf"
        default: "format \(rawValue)"
        }
    }
}

/// ``CIFormat/RGBA8`` by its C name.
public let kCIFormatRGBA8 = CIFormat.RGBA8
/// ``CIFormat/BGRA8`` by its C name.
public let kCIFormatBGRA8 = CIFormat.BGRA8
/// ``CIFormat/ARGB8`` by its C name.
public let kCIFormatARGB8 = CIFormat.ARGB8
/// ``CIFormat/RGBA16`` by its C name.
public let kCIFormatRGBA16 = CIFormat.RGBA16
/// ``CIFormat/RGBAh`` by its C name.
public let kCIFormatRGBAh = CIFormat.RGBAh
/// ``CIFormat/RGBAf`` by its C name.
public let kCIFormatRGBAf = CIFormat.RGBAf
