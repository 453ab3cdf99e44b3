import CVipsShims
import Foundation
import UniformTypeIdentifiers

/// CoreGraphics' bitmap image for Linux: immutable pixels in memory with their layout and colour space.
///
/// Rows run from the top of the image down, as CoreGraphics stores them (Core Image's bottom-left origin is a
/// matter of its coordinates, not of the bytes). 8, 16 and 32-bit (float) components are read; RGB with or without
/// alpha in any of CoreGraphics' alpha positions, grey, and both 32-bit byte orders (`BGRA` is
/// `premultipliedFirst` with `byteOrder32Little`).
public final class CGImage: @unchecked Sendable, CustomStringConvertible {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// Bits of each component: 8, 16 or 32 (float).
    public let bitsPerComponent: Int
    /// Bits of each pixel.
    public let bitsPerPixel: Int
    /// Bytes from one row to the next.
    public let bytesPerRow: Int
    /// Where alpha is, the byte order and whether components are floats.
    public let bitmapInfo: CGBitmapInfo
    /// The colour space of the pixels.
    public let colorSpace: CGColorSpace?
    /// The bytes.
    public let dataProvider: CGDataProvider?
    /// Whether the image may be interpolated when drawn (kept, not used here).
    public let shouldInterpolate: Bool
    /// The rendering intent (kept, not used here).
    public let renderingIntent: CGColorRenderingIntent
    /// The type of the file the image was decoded from, when it was.
    public let utType: CFString?

    /// Where alpha is and whether colours are premultiplied.
    public var alphaInfo: CGImageAlphaInfo { bitmapInfo.alphaInfo }
    /// Whether the image is a mask (never here).
    public var isMask: Bool { false }
    /// The bytes.
    var bytes: NSData { dataProvider?.data ?? NSData() }

    /// An image of the bytes `provider` gives, laid out as described; nil for a layout CoreGraphics would refuse
    /// (too few bytes, components of a size it does not read, a pixel size that does not hold the components).
    public init?(
        width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int, space: CGColorSpace,
        bitmapInfo: CGBitmapInfo, provider: CGDataProvider, decode: UnsafePointer<CGFloat>?, shouldInterpolate: Bool,
        intent: CGColorRenderingIntent
    ) {
        guard width > 0, height > 0, [8, 16, 32].contains(bitsPerComponent) else { return nil }
        let alpha = bitmapInfo.alphaInfo
        let components = space.numberOfComponents + (alpha.hasFourComponents ? 1 : 0)
        guard bitsPerPixel == components * bitsPerComponent, bytesPerRow >= width * bitsPerPixel / 8 else { return nil }
        guard bitmapInfo.contains(.floatComponents) == (bitsPerComponent == 32) else { return nil }
        guard let data = provider.data, data.length >= bytesPerRow * (height - 1) + width * bitsPerPixel / 8 else { return nil }
        self.width = width
        self.height = height
        self.bitsPerComponent = bitsPerComponent
        self.bitsPerPixel = bitsPerPixel
        self.bytesPerRow = bytesPerRow
        self.bitmapInfo = bitmapInfo
        self.colorSpace = space
        self.dataProvider = provider
        self.shouldInterpolate = shouldInterpolate
        self.renderingIntent = intent
        self.utType = nil
    }

    package init(
        width: Int, height: Int, bitsPerComponent: Int, components: Int, bitmapInfo: CGBitmapInfo, colorSpace: CGColorSpace?,
        bytes: Data, utType: CFString? = nil
    ) {
        self.width = width
        self.height = height
        self.bitsPerComponent = bitsPerComponent
        self.bitsPerPixel = bitsPerComponent * components
        self.bytesPerRow = width * bitsPerComponent * components / 8
        self.bitmapInfo = bitmapInfo
        self.colorSpace = colorSpace
        self.dataProvider = CGDataProvider(bytes: bytes)
        self.shouldInterpolate = true
        self.renderingIntent = .defaultIntent
        self.utType = utType
    }

    /// The part of the image inside `rect` (pixels, from the top left), or nil when they do not meet.
    public func cropping(to rect: CGRect) -> CGImage? {
        let area = rect.standardized.integral.intersection(CGRect(x: 0, y: 0, width: width, height: height))
        guard !area.isNull, area.width >= 1, area.height >= 1 else { return nil }
        let (x, y, w, h) = (Int(area.minX), Int(area.minY), Int(area.width), Int(area.height))
        let pixelBytes = bitsPerPixel / 8
        var cropped = Data(count: w * h * pixelBytes)
        let source = bytes
        cropped.withUnsafeMutableBytes { target in
            for row in 0..<h {
                let from = source.bytes + (y + row) * bytesPerRow + x * pixelBytes
                (target.baseAddress! + row * w * pixelBytes).copyMemory(from: from, byteCount: w * pixelBytes)
            }
        }
        return CGImage(
            width: w, height: h, bitsPerComponent: bitsPerComponent, components: bitsPerPixel / bitsPerComponent,
            bitmapInfo: bitmapInfo, colorSpace: colorSpace, bytes: cropped, utType: utType)
    }

    /// The same pixels tagged with another colour space of as many components; nil otherwise.
    public func copy(colorSpace space: CGColorSpace) -> CGImage? {
        guard space.numberOfComponents == (colorSpace?.numberOfComponents ?? 3) else { return nil }
        return CGImage(
            width: width, height: height, bitsPerComponent: bitsPerComponent, components: bitsPerPixel / bitsPerComponent,
            bitmapInfo: bitmapInfo, colorSpace: space, bytes: tightBytes())
    }

    /// A description for logs.
    public var description: String {
        "<CGImage \(width)×\(height) \(bitsPerComponent) bpc \(bitsPerPixel) bpp alpha \(alphaInfo) \(colorSpace?.name ?? "ICC")>"
    }

    /// The rows without padding.
    func tightBytes() -> Data {
        let rowBytes = width * bitsPerPixel / 8
        let source = bytes
        if rowBytes == bytesPerRow { return Data(bytes: source.bytes, count: rowBytes * height) }
        var tight = Data(count: rowBytes * height)
        tight.withUnsafeMutableBytes { target in
            for row in 0..<height {
                (target.baseAddress! + row * rowBytes).copyMemory(from: source.bytes + row * bytesPerRow, byteCount: rowBytes)
            }
        }
        return tight
    }

    /// The pixels as a libvips image: components in R, G, B(, A) order (or grey), alpha straight (unpremultiplied,
    /// in the components' range), and whether there is alpha.
    func vipsImage() throws(VipsError) -> (image: VImage, hasAlpha: Bool) {
        let alpha = alphaInfo
        let colour = colorSpace?.numberOfComponents ?? 3
        let stored = bitsPerPixel / bitsPerComponent
        var tight = tightBytes()
        let componentBytes = bitsPerComponent / 8
        // Reorder to colour first, alpha (or the skipped component) last.
        let little = bitmapInfo.byteOrder == .byteOrder32Little || bitmapInfo.byteOrder == .byteOrder16Little
        if stored == 4, componentBytes == 1 {
            let order: [Int]
            switch (alpha.alphaIsFirst, little) {
            case (false, false): order = [0, 1, 2, 3]  // RGBA
            case (true, false): order = [1, 2, 3, 0]  // ARGB
            case (true, true): order = [2, 1, 0, 3]  // BGRA in memory
            case (false, true): order = [3, 2, 1, 0]  // ABGR in memory
            }
            if order != [0, 1, 2, 3] { Self.permute(&tight, order) }
        } else if stored == 4, alpha.alphaIsFirst {
            // 16 and 32-bit ARGB: rotate each pixel's components.
            let pixelBytes = 4 * componentBytes
            tight.withUnsafeMutableBytes { raw in
                var pixel = [UInt8](repeating: 0, count: pixelBytes)
                var i = 0
                while i + pixelBytes <= raw.count {
                    for k in 0..<pixelBytes { pixel[k] = raw[i + k] }
                    for k in 0..<pixelBytes { raw[i + k] = pixel[(k + componentBytes) % pixelBytes] }
                    i += pixelBytes
                }
            }
        }
        let format: VipsBandFormat =
            componentBytes == 1 ? VIPS_FORMAT_UCHAR : componentBytes == 2 ? VIPS_FORMAT_USHORT : VIPS_FORMAT_FLOAT
        let interpretation: VipsInterpretation =
            colour == 1
            ? (componentBytes == 2 ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_B_W)
            : (componentBytes == 2 ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB)
        let made = tight.withUnsafeBytes { raw in
            Result { () throws(VipsError) -> VImage in
                try VImage.fromMemory(raw, width: width, height: height, bands: stored, format: format, interpretation: interpretation)
            }
        }
        var image = try made.get()
        switch alpha {
        case .noneSkipLast, .noneSkipFirst:
            image = try VipsCall("extract_band").image("in", image).int("band", 0).int("n", colour).output()
            return (image, false)
        case .premultipliedLast, .premultipliedFirst:
            let maximum = componentBytes == 1 ? 255.0 : componentBytes == 2 ? 65535.0 : 1.0
            image = try VipsCall("unpremultiply").image("in", image).double("max_alpha", maximum).output()
            image = try VipsCall("cast").image("in", image).enumeration("format", Self.nickname(format)).output()
            return (image, true)
        default:
            return (image, alpha.hasAlpha)
        }
    }

    /// Reorders 4-byte pixels in place: component k of the result is byte `order[k]` of the source pixel.
    static func permute(_ bytes: inout Data, _ order: [Int]) {
        let (o0, o1, o2, o3) = (order[0], order[1], order[2], order[3])
        bytes.withUnsafeMutableBytes { raw in
            let p = raw.bindMemory(to: UInt8.self)
            var pixel = (UInt8(0), UInt8(0), UInt8(0), UInt8(0))
            var i = 0
            while i + 3 < p.count {
                pixel = (p[i], p[i + 1], p[i + 2], p[i + 3])
                withUnsafeBytes(of: pixel) { source in
                    p[i] = source[o0]
                    p[i + 1] = source[o1]
                    p[i + 2] = source[o2]
                    p[i + 3] = source[o3]
                }
                i += 4
            }
        }
    }

    static func nickname(_ format: VipsBandFormat) -> String {
        switch format {
        case VIPS_FORMAT_UCHAR: "uchar"
        case VIPS_FORMAT_USHORT: "ushort"
        default: "float"
        }
    }
}
