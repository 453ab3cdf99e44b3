import CVipsShims
import Foundation
import UniformTypeIdentifiers

/// A colour space, named as CoreGraphics names them, or an ICC profile.
///
/// Core Image renders into the RGB spaces here: sRGB, Display P3 and their linear and extended variants are exact
/// (a 3×3 matrix in linear light and the sRGB transfer curve: no colour-management engine in the way). Images
/// tagged with any other ICC profile are read through LittleCMS. Grey spaces take the luminance.
public final class CGColorSpace: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// sRGB (IEC 61966-2-1): the default of images and of rendering.
    public static let sRGB: CFString = "kCGColorSpaceSRGB"
    /// sRGB whose components may go below 0 and above 1.
    public static let extendedSRGB: CFString = "kCGColorSpaceExtendedSRGB"
    /// sRGB primaries, linear transfer.
    public static let linearSRGB: CFString = "kCGColorSpaceLinearSRGB"
    /// sRGB primaries, linear transfer, unbounded: Core Image's working space.
    public static let extendedLinearSRGB: CFString = "kCGColorSpaceExtendedLinearSRGB"
    /// Linear RGB with sRGB primaries (the generic linear space).
    public static let genericRGBLinear: CFString = "kCGColorSpaceGenericRGBLinear"
    /// Display P3: DCI-P3 primaries, D65 white, the sRGB transfer curve. iPhone photos are in it.
    public static let displayP3: CFString = "kCGColorSpaceDisplayP3"
    /// Display P3 whose components may go below 0 and above 1.
    public static let extendedDisplayP3: CFString = "kCGColorSpaceExtendedDisplayP3"
    /// Display P3 primaries, linear transfer.
    public static let linearDisplayP3: CFString = "kCGColorSpaceLinearDisplayP3"
    /// Display P3 primaries, linear transfer, unbounded.
    public static let extendedLinearDisplayP3: CFString = "kCGColorSpaceExtendedLinearDisplayP3"
    /// Grey with a 2.2 gamma.
    public static let genericGrayGamma2_2: CFString = "kCGColorSpaceGenericGrayGamma2_2"
    /// Linear grey.
    public static let linearGray: CFString = "kCGColorSpaceLinearGray"
    /// Linear grey, unbounded.
    public static let extendedLinearGray: CFString = "kCGColorSpaceExtendedLinearGray"

    /// The RGB primaries of a named space.
    enum Primaries: Sendable { case sRGB, displayP3 }
    /// How components encode light.
    enum Transfer: Sendable { case sRGB, linear, gamma22 }

    /// What rendering needs to know of a named space.
    struct Encoding: Sendable, Hashable {
        var primaries: Primaries
        var transfer: Transfer
        var extended: Bool
        var gray: Bool
    }

    private static let encodings: [CFString: Encoding] = [
        sRGB: Encoding(primaries: .sRGB, transfer: .sRGB, extended: false, gray: false),
        extendedSRGB: Encoding(primaries: .sRGB, transfer: .sRGB, extended: true, gray: false),
        linearSRGB: Encoding(primaries: .sRGB, transfer: .linear, extended: false, gray: false),
        extendedLinearSRGB: Encoding(primaries: .sRGB, transfer: .linear, extended: true, gray: false),
        genericRGBLinear: Encoding(primaries: .sRGB, transfer: .linear, extended: false, gray: false),
        displayP3: Encoding(primaries: .displayP3, transfer: .sRGB, extended: false, gray: false),
        extendedDisplayP3: Encoding(primaries: .displayP3, transfer: .sRGB, extended: true, gray: false),
        linearDisplayP3: Encoding(primaries: .displayP3, transfer: .linear, extended: false, gray: false),
        extendedLinearDisplayP3: Encoding(primaries: .displayP3, transfer: .linear, extended: true, gray: false),
        genericGrayGamma2_2: Encoding(primaries: .sRGB, transfer: .gamma22, extended: false, gray: true),
        linearGray: Encoding(primaries: .sRGB, transfer: .linear, extended: false, gray: true),
        extendedLinearGray: Encoding(primaries: .sRGB, transfer: .linear, extended: true, gray: true),
    ]

    /// The space's name, or nil for one made from an ICC profile.
    public let name: CFString?
    let encoding: Encoding?
    let iccProfile: Data?

    /// The named colour space; nil for a name CoreGraphics does not have here.
    public init?(name: CFString) {
        guard let encoding = Self.encodings[name] else { return nil }
        self.name = name
        self.encoding = encoding
        self.iccProfile = nil
    }

    /// A colour space from an ICC profile's bytes; a profile of sRGB or Display P3 is recognised as that space.
    public init?(iccData: CFData) {
        let bytes = iccData as Data
        guard bytes.count >= 132, bytes[36..<40].elementsEqual("acsp".utf8) else { return nil }
        let known = Self.recognise(profile: bytes)
        self.name = known
        self.encoding = known.flatMap { Self.encodings[$0] }
        self.iccProfile = bytes
    }

    /// The family of the space's components.
    public var model: CGColorSpaceModel { encoding?.gray == true ? .monochrome : .rgb }

    /// Colour components (without alpha): 1 for grey, 3 for RGB.
    public var numberOfComponents: Int { model == .monochrome ? 1 : 3 }

    /// Whether the space's gamut is wider than sRGB.
    public var isWideGamutRGB: Bool { encoding?.primaries == .displayP3 || encoding?.extended == true }

    /// Whether images can be rendered into this space here.
    public var supportsOutput: Bool { encoding != nil }

    /// OpenPhotoKit: the space to render an edit of an image whose space is `space` into — `space` itself where images
    /// can be rendered into it here (sRGB, Display P3 and their variants, from a name or recognised in a profile);
    /// Display P3 for any other RGB profile (Adobe RGB (1998), ProPhoto, an input-class or Lab-based profile), whose
    /// gamut keeps more of theirs than sRGB's, with its profile written into the file; sRGB without a space. Editors
    /// pass it to `CIContext`'s write methods so that photos with any profile can be edited (thumbnails convert the
    /// same way).
    public static func renderingDestination(for space: CGColorSpace?) -> CGColorSpace {
        if let space, space.supportsOutput { return space }
        return CGColorSpace(name: space == nil ? sRGB : displayP3)!
    }

    /// The ICC profile of the space: the one it was made from, or libvips' built-in sRGB or Display P3 profile.
    public func copyICCData() -> CFData? {
        if let iccProfile { return NSData(data: iccProfile) }
        return iccProfileForTagging.map { NSData(data: $0) }
    }

    /// The profile written into files rendered in this space (nil for linear spaces, which carry none here).
    var iccProfileForTagging: Data? {
        if let iccProfile { return iccProfile }
        guard let encoding, encoding.transfer == .sRGB, !encoding.gray else { return nil }
        return encoding.primaries == .displayP3 ? Self.p3Profile : Self.sRGBProfile
    }

    /// libvips' built-in profiles, loaded once (Swift's static initialisation is thread-safe; libvips' loader is
    /// then never called concurrently).
    static let p3Profile = builtinProfile("p3")
    static let sRGBProfile = builtinProfile("srgb")

    static func builtinProfile(_ name: String) -> Data? {
        VipsRuntime.start()
        var length = 0
        guard let bytes = cvips_builtin_profile(name, &length) else { return nil }
        return Data(bytesNoCopy: bytes, count: length, deallocator: .custom { pointer, _ in g_free(pointer) })
    }

    /// sRGB or Display P3 from a profile's primaries (the red and green colorant tags, D50-adapted X values: sRGB
    /// 0.436 / 0.385, Display P3 0.515 / 0.292), whatever its description says; nil for any other profile.
    static func recognise(profile: Data) -> CFString? {
        let bytes = [UInt8](profile)
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        guard let count = u32(128), count < 256 else { return nil }
        func colorantX(_ signature: String) -> Double? {
            let tag = Array(signature.utf8)
            for i in 0..<count {
                let entry = 132 + i * 12
                guard entry + 12 <= bytes.count else { return nil }
                guard Array(bytes[entry..<entry + 4]) == tag, let offset = u32(entry + 4), let raw = u32(offset + 8) else { continue }
                return Double(Int32(bitPattern: UInt32(raw))) / 65536
            }
            return nil
        }
        guard let red = colorantX("rXYZ"), let green = colorantX("gXYZ") else { return nil }
        if abs(red - 0.515) < 0.02, abs(green - 0.292) < 0.02 { return displayP3 }
        if abs(red - 0.436) < 0.02, abs(green - 0.385) < 0.02 { return sRGB }
        return nil
    }

    /// Spaces are equal when they have the same name and profile.
    public static func == (lhs: CGColorSpace, rhs: CGColorSpace) -> Bool {
        lhs.name == rhs.name && lhs.iccProfile == rhs.iccProfile
    }

    /// Hashes the name and profile.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(iccProfile)
    }

    /// A description for logs.
    public var description: String { "<CGColorSpace \(name ?? "ICC profile of \(iccProfile?.count ?? 0) bytes")>" }
}

/// The family of a colour space's components.
@frozen public enum CGColorSpaceModel: Int32, Sendable, Hashable {
    case unknown = -1
    case monochrome = 0
    case rgb = 1
    case cmyk = 2
    case lab = 3
    case deviceN = 4
    case indexed = 5
    case pattern = 6
    case XYZ = 7
}

/// The device RGB space: sRGB here.
public func CGColorSpaceCreateDeviceRGB() -> CGColorSpace { CGColorSpace(name: CGColorSpace.sRGB)! }

/// The device grey space: grey with a 2.2 gamma here.
public func CGColorSpaceCreateDeviceGray() -> CGColorSpace { CGColorSpace(name: CGColorSpace.genericGrayGamma2_2)! }
