import CVipsShims
import Foundation

/// Renders ``CIImage`` recipes into pixels, bitmaps, ``CGImage``s and encoded files.
///
/// A render builds the image's libvips pipeline for the rectangle asked for and runs it once, in parallel strips;
/// contexts hold no GPU state here and are cheap, but may be kept and shared between threads as Apple recommends.
public final class CIContext: @unchecked Sendable {
    /// The options the context was made with.
    let options: [CIContextOption: Any]
    /// The colour space of renders that name none (sRGB unless `.outputColorSpace` says otherwise).
    public let outputColorSpace: CGColorSpace
    /// The working space: always extended linear sRGB here.
    public let workingColorSpace: CGColorSpace? = CGColorSpace(name: CGColorSpace.extendedLinearSRGB)
    /// The working format: always 32-bit float here.
    public var workingFormat: CIFormat { .RGBAf }
    let premultipliedOutput: Bool
    /// The largest rectangle rendered, in pixels (a 1-gigapixel render is refused, not attempted).
    public static let pixelLimit = 1 << 30

    /// A context with the default options.
    public convenience init() { self.init(options: nil) }

    /// A context with options: `.outputColorSpace`, `.outputPremultiplied` are honoured; `.workingColorSpace`,
    /// `.workingFormat`, `.cacheIntermediates`, `.useSoftwareRenderer`, `.priorityRequestLow` are accepted and mean
    /// nothing here.
    public init(options: [CIContextOption: Any]?) {
        VipsRuntime.start()
        self.options = options ?? [:]
        self.outputColorSpace = (options?[.outputColorSpace] as? CGColorSpace) ?? CGColorSpace(name: CGColorSpace.sRGB)!
        self.premultipliedOutput = (options?[.outputPremultiplied] as? Bool) ?? true
    }

    // MARK: The pipeline

    /// The working-space pixels of `rect` of `image`.
    func tile(_ image: CIImage, _ rect: CGRect, sequential: Bool = false) throws(CIRenderError) -> Tile {
        guard !rect.isNull, !rect.isEmpty else { throw .emptyRect }
        guard !rect.isEffectivelyInfinite else { throw .infiniteExtent }
        let region = PixelRect(covering: rect)
        guard region.area <= Self.pixelLimit else { throw .tooLarge(pixels: region.area, limit: Self.pixelLimit) }
        do {
            return try image.node.render(region, RenderContext(sequential: sequential))
        } catch {
            throw .vips(error)
        }
    }

    /// Encoded components for an output: `bits` 8, 16 or 32 (float), with or without alpha, premultiplied or not.
    func output(_ tile: Tile, space: CGColorSpace, bits: Int, alpha: Bool, premultiplied: Bool) throws(CIRenderError) -> VImage {
        do {
            let encoding = space.encoding
            // The common case through libvips' own fast scRGB → 8-bit sRGB conversion.
            if bits == 8, encoding == CGColorSpace(name: CGColorSpace.sRGB)!.encoding {
                var colours = tile.image
                var straightAlpha: VImage?
                if tile.hasAlpha {
                    let straight = try VipsCall("unpremultiply").image("in", tile.image).double("max_alpha", 1).output()
                    colours = try straight.band(0, count: 3)
                    straightAlpha = try straight.band(3)
                }
                var eight = try VipsCall("colourspace").image("in", try colours.scRGB()).enumeration("space", "srgb").output()
                if eight.format != VIPS_FORMAT_UCHAR { eight = try VipsCall("cast").image("in", eight).enumeration("format", "uchar").output() }
                guard alpha else { return eight }
                let a = try (straightAlpha ?? Tile.constantLike(try colours.band(0), 1)).linear([255], [0.5])
                let a8 = try VipsCall("cast").image("in", a).enumeration("format", "uchar").output()
                var joined = try VipsCall("bandjoin").images("in", [eight, a8]).output()
                if premultiplied, tile.hasAlpha {
                    joined = try VipsCall("premultiply").image("in", joined).double("max_alpha", 255).output()
                    joined = try VipsCall("cast").image("in", joined.linear([1, 1, 1, 1], [0.5, 0.5, 0.5, 0])).enumeration("format", "uchar").output()
                }
                return try joined.withMetadata { cvips_set_interpretation($0, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
            }
            var encoded = try ColourConversion.fromWorking(tile, space: space)
            let colourBands = encoded.bands - (tile.hasAlpha ? 1 : 0)
            if alpha, !tile.hasAlpha {
                encoded = try VipsCall("bandjoin_const").image("in", encoded).doubles("c", [1]).output()
            } else if !alpha, tile.hasAlpha {
                // Without alpha the premultiplied colours are what shows (over black).
                let colours = try encoded.band(0, count: colourBands)
                let a = try encoded.band(colourBands)
                encoded = try VipsCall("multiply").image("left", colours).image("right", a).output()
            }
            if alpha, premultiplied {
                encoded = try VipsCall("premultiply").image("in", encoded).double("max_alpha", 1).output()
            }
            switch bits {
            case 8:
                encoded = try VipsCall("cast").image("in", try encoded.linear([255], [0.5])).enumeration("format", "uchar").output()
            case 16:
                encoded = try VipsCall("cast").image("in", try encoded.linear([65535], [0.5])).enumeration("format", "ushort").output()
            default:
                encoded = try VipsCall("cast").image("in", encoded).enumeration("format", "float").output()
            }
            let interpretation =
                colourBands == 1
                ? (bits == 16 ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_B_W)
                : (bits == 16 ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB)
            return try encoded.withMetadata { cvips_set_interpretation($0, Int32(interpretation.rawValue)) }
        } catch let error as VipsError {
            throw .vips(error)
        } catch let error as CIRenderError {
            throw error
        } catch {
            throw .decoding("\(error)")
        }
    }

    // MARK: CGImage and bitmaps

    /// The pixels of `fromRect` of `image` as an 8-bit RGBA, premultiplied ``CGImage`` in the context's output
    /// colour space; nil when the image cannot be rendered (an infinite rectangle, a decoding failure).
    public func createCGImage(_ image: CIImage, from fromRect: CGRect) -> CGImage? {
        createCGImage(image, from: fromRect, format: .RGBA8, colorSpace: outputColorSpace)
    }

    /// The pixels of `fromRect` as a ``CGImage`` of `format` (RGBA8, BGRA8, ARGB8, ABGR8, RGBA16, RGBAh, RGBAf, L8,
    /// L16, Lf) in `colorSpace` (nil: the context's output space).
    public func createCGImage(_ image: CIImage, from fromRect: CGRect, format: CIFormat, colorSpace: CGColorSpace?) -> CGImage? {
        try? makeCGImage(image, from: fromRect, format: format, colorSpace: colorSpace ?? outputColorSpace)
    }

    /// As ``createCGImage(_:from:format:colorSpace:)``, saying why when it cannot.
    public func makeCGImage(_ image: CIImage, from fromRect: CGRect, format: CIFormat, colorSpace: CGColorSpace) throws(CIRenderError) -> CGImage {
        let layout = try BitmapLayout(format: format, colorSpace: colorSpace, premultiplied: premultipliedOutput)
        let bytes = try bitmap(image, from: fromRect, layout: layout, colorSpace: colorSpace)
        let region = PixelRect(covering: fromRect)
        return CGImage(
            width: region.width, height: region.height, bitsPerComponent: layout.bitsPerComponent, components: layout.components,
            bitmapInfo: layout.bitmapInfo, colorSpace: layout.gray ? CGColorSpaceCreateDeviceGray() : colorSpace, bytes: bytes)
    }

    /// Renders `bounds` of `image` into memory the caller owns, `rowBytes` apart, in `format` and `colorSpace` (nil:
    /// the context's output space). Traps when `rowBytes` is smaller than a row, as Core Image's checks do.
    public func render(
        _ image: CIImage, toBitmap data: UnsafeMutableRawPointer, rowBytes: Int, bounds: CGRect, format: CIFormat,
        colorSpace: CGColorSpace?
    ) {
        let space = colorSpace ?? outputColorSpace
        guard let layout = try? BitmapLayout(format: format, colorSpace: space, premultiplied: true) else {
            preconditionFailure("CIContext render:toBitmap: unsupported format \(format.name)")
        }
        let region = PixelRect(covering: bounds)
        let rowLength = region.width * layout.bytesPerPixel
        precondition(rowBytes >= rowLength, "CIContext render:toBitmap: rowBytes \(rowBytes) is less than a row of \(rowLength) bytes")
        if let plan = DirectColourRender.plan(image.node, region: region, layout: layout, colorSpace: space) {
            return DirectColourRender.render(plan, region: region, into: data, rowBytes: rowBytes)
        }
        guard let bytes = try? bitmap(image, from: bounds, layout: layout, colorSpace: space) else { return }
        bytes.withUnsafeBytes { raw in
            for row in 0..<region.height {
                (data + row * rowBytes).copyMemory(from: raw.baseAddress! + row * rowLength, byteCount: rowLength)
            }
        }
    }

    func bitmap(_ image: CIImage, from rect: CGRect, layout: BitmapLayout, colorSpace: CGColorSpace) throws(CIRenderError) -> Data {
        let tile = try tile(image, rect, sequential: true)
        let space =
            layout.gray
            ? CGColorSpace(name: colorSpace.encoding?.transfer == .linear ? CGColorSpace.linearGray : CGColorSpace.genericGrayGamma2_2)! : colorSpace
        let encoded = try output(
            tile, space: space, bits: layout.bitsPerComponent == 16 && layout.half ? 32 : layout.bitsPerComponent,
            alpha: layout.components == 4, premultiplied: layout.premultiplied)
        var bytes: Data
        do { bytes = try encoded.pixels() } catch { throw .vips(error) }
        layout.reorder(&bytes)
        return bytes
    }

    // MARK: Encoded files

    /// JPEG bytes of the image's extent in `colorSpace` (tagged with its profile), quality from
    /// `kCGImageDestinationLossyCompressionQuality` (0.9 unless given); the image's ``CIImage/properties`` become its
    /// EXIF. Nil when the image cannot be rendered.
    public func jpegRepresentation(of image: CIImage, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) -> Data? {
        try? encode(image, as: .jpeg, colorSpace: colorSpace, format: .RGBA8, options: options, to: nil)
    }

    /// HEIF (HEVC) bytes of the image's extent.
    public func heifRepresentation(
        of image: CIImage, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]
    ) -> Data? {
        try? encode(image, as: .heif, colorSpace: colorSpace, format: format, options: options, to: nil)
    }

    /// PNG bytes of the image's extent (16-bit for `.RGBA16`, with alpha when the image has any).
    public func pngRepresentation(
        of image: CIImage, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]
    ) -> Data? {
        try? encode(image, as: .png, colorSpace: colorSpace, format: format, options: options, to: nil)
    }

    /// TIFF bytes of the image's extent.
    public func tiffRepresentation(
        of image: CIImage, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]
    ) -> Data? {
        try? encode(image, as: .tiff, colorSpace: colorSpace, format: format, options: options, to: nil)
    }

    /// Writes a JPEG of the image's extent to `url`: into a temporary file beside it, renamed into place.
    public func writeJPEGRepresentation(
        of image: CIImage, to url: URL, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]
    ) throws {
        _ = try encode(image, as: .jpeg, colorSpace: colorSpace, format: .RGBA8, options: options, to: url)
    }

    /// Writes a HEIF (HEVC) of the image's extent to `url`: into a temporary file beside it, renamed into place.
    public func writeHEIFRepresentation(
        of image: CIImage, to url: URL, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]
    ) throws {
        _ = try encode(image, as: .heif, colorSpace: colorSpace, format: format, options: options, to: url)
    }

    /// Writes a PNG of the image's extent to `url`: into a temporary file beside it, renamed into place.
    public func writePNGRepresentation(
        of image: CIImage, to url: URL, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]
    ) throws {
        _ = try encode(image, as: .png, colorSpace: colorSpace, format: format, options: options, to: url)
    }

    /// Writes a TIFF of the image's extent to `url`: into a temporary file beside it, renamed into place.
    public func writeTIFFRepresentation(
        of image: CIImage, to url: URL, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]
    ) throws {
        _ = try encode(image, as: .tiff, colorSpace: colorSpace, format: format, options: options, to: url)
    }

    enum FileFormat { case jpeg, heif, png, tiff }

    /// 8-bit RGB(A) pixels encoded as HEIC (HEVC) by libheif, with the profile and EXIF block given.
    static func encodeHEIF(_ image: VImage, quality: Int, iccProfile: Data?, exif: Data?) throws(VipsError) -> Data {
        let bytes = try image.pixels()
        var out: UnsafeMutableRawPointer?
        var length = 0
        var message: UnsafePointer<CChar>?
        // libheif wants the EXIF block without libvips' "Exif\0\0" prefix.
        let block = exif.map { $0.starts(with: Array("Exif\0\0".utf8)) ? $0.dropFirst(6) : $0[...] }
        let status = bytes.withUnsafeBytes { pixels in
            (iccProfile ?? Data()).withUnsafeBytes { icc in
                (block.map { Data($0) } ?? Data()).withUnsafeBytes { exifBytes in
                    cheif_encode(
                        pixels.bindMemory(to: UInt8.self).baseAddress, Int32(image.width), Int32(image.height), Int32(image.bands), Int32(quality),
                        icc.baseAddress, icc.count, exifBytes.baseAddress, exifBytes.count, &out, &length, &message)
                }
            }
        }
        guard status == 0, let out else {
            throw VipsError(operation: "heifsave", message: message.map { String(cString: $0) } ?? "libheif failed")
        }
        return Data(bytesNoCopy: out, count: length, deallocator: .custom { pointer, _ in g_free(pointer) })
    }

    func encode(
        _ image: CIImage, as fileFormat: FileFormat, colorSpace: CGColorSpace, format: CIFormat,
        options: [CIImageRepresentationOption: Any], to url: URL?
    ) throws(CIRenderError) -> Data? {
        let quality =
            (options[kCGImageDestinationLossyCompressionQuality] as? Double)
            ?? (options[kCGImageDestinationLossyCompressionQuality] as? CGFloat).map(Double.init)
            ?? (options[kCGImageDestinationLossyCompressionQuality] as? Float).map(Double.init) ?? 0.9
        let q = max(1, min(100, Int((quality * 100).rounded())))
        let tile = try tile(image, image.extent, sequential: true)
        let withAlpha = tile.hasAlpha && (fileFormat == .png || fileFormat == .tiff || fileFormat == .heif)
        let bits = (fileFormat == .png || fileFormat == .tiff) && (format == .RGBA16 || format == .RGBAh || format == .RGBAf) ? 16 : 8
        var pixels = try output(tile, space: colorSpace, bits: bits, alpha: withAlpha, premultiplied: false)
        do {
            pixels = try Metadata.attach(to: pixels, properties: image.properties, colorSpace: colorSpace, source: image.node)
            let saver: String
            switch fileFormat {
            case .jpeg: saver = "jpegsave"
            case .heif: saver = "heifsave"
            case .png: saver = "pngsave"
            case .tiff: saver = "tiffsave"
            }
            // Encoded in memory, then written beside the target and renamed into place. HEIF goes to libheif
            // directly: libvips 8.14's heifsave fails with libheif ≥ 1.16 (see cheif_encode).
            let encoded: Data
            if fileFormat == .heif {
                encoded = try Self.encodeHEIF(
                    pixels, quality: q, iccProfile: colorSpace.iccProfileForTagging,
                    exif: image.properties.isEmpty ? nil : Metadata.firstSource(image.node)?.header?.blob("exif-data"))
            } else {
                var call = VipsCall(saver + "_buffer").image("in", pixels)
                if fileFormat == .jpeg { call = call.int("Q", q) }
                let written = try call.blobOutput()
                encoded =
                    fileFormat == .jpeg && !image.properties.isEmpty
                    ? Metadata.keepingMakerNote(written, source: Metadata.firstSource(image.node)?.header?.blob("exif-data")) : written
            }
            guard let url else { return encoded }
            try AtomicFile.write(to: url) { (temporary) throws in try encoded.write(to: temporary) }
            return nil
        } catch let error as VipsError {
            throw url == nil ? .vips(error) : .writing(error.description)
        } catch let error as CIRenderError {
            throw error
        } catch {
            throw .writing("\(error)")
        }
    }
}

/// How a ``CIFormat`` lays out pixels in memory.
struct BitmapLayout {
    var components: Int
    var bitsPerComponent: Int
    var half: Bool
    var gray: Bool
    var premultiplied: Bool
    /// Byte positions of R, G, B, A in memory, from RGBA.
    var order: [Int]?
    var bitmapInfo: CGBitmapInfo

    var bytesPerPixel: Int { components * (half ? 2 : bitsPerComponent / 8) }

    init(format: CIFormat, colorSpace: CGColorSpace, premultiplied: Bool) throws(CIRenderError) {
        guard colorSpace.supportsOutput else { throw .unsupportedColorSpace(colorSpace.description) }
        self.premultiplied = premultiplied
        half = false
        gray = false
        order = nil
        let alpha: CGImageAlphaInfo = premultiplied ? .premultipliedLast : .last
        switch format {
        case .RGBA8:
            (components, bitsPerComponent, bitmapInfo) = (4, 8, CGBitmapInfo(alphaInfo: alpha))
        case .BGRA8:
            (components, bitsPerComponent) = (4, 8)
            order = [2, 1, 0, 3]
            bitmapInfo = CGBitmapInfo(
                rawValue: (premultiplied ? CGImageAlphaInfo.premultipliedFirst : .first).rawValue | CGBitmapInfo.byteOrder32Little.rawValue)
        case .ARGB8:
            (components, bitsPerComponent) = (4, 8)
            order = [1, 2, 3, 0]
            bitmapInfo = CGBitmapInfo(alphaInfo: premultiplied ? .premultipliedFirst : .first)
        case .ABGR8:
            (components, bitsPerComponent) = (4, 8)
            order = [3, 2, 1, 0]
            bitmapInfo = CGBitmapInfo(rawValue: alpha.rawValue | CGBitmapInfo.byteOrder32Little.rawValue)
        case .RGBA16:
            (components, bitsPerComponent) = (4, 16)
            bitmapInfo = CGBitmapInfo(rawValue: alpha.rawValue | CGBitmapInfo.byteOrder16Little.rawValue)
        case .RGBAh:
            (components, bitsPerComponent, half) = (4, 16, true)
            bitmapInfo = CGBitmapInfo(rawValue: alpha.rawValue | CGBitmapInfo.floatComponents.rawValue | CGBitmapInfo.byteOrder16Little.rawValue)
        case .RGBAf:
            (components, bitsPerComponent) = (4, 32)
            bitmapInfo = CGBitmapInfo(rawValue: alpha.rawValue | CGBitmapInfo.floatComponents.rawValue | CGBitmapInfo.byteOrder32Little.rawValue)
        case .L8:
            (components, bitsPerComponent, gray, bitmapInfo) = (1, 8, true, CGBitmapInfo(alphaInfo: .none))
        case .L16:
            (components, bitsPerComponent, gray, bitmapInfo) = (1, 16, true, CGBitmapInfo(rawValue: CGBitmapInfo.byteOrder16Little.rawValue))
        case .Lf:
            (components, bitsPerComponent, gray) = (1, 32, true)
            bitmapInfo = CGBitmapInfo(rawValue: CGBitmapInfo.floatComponents.rawValue | CGBitmapInfo.byteOrder32Little.rawValue)
        default:
            throw .unsupportedFormat(format.name)
        }
        if half { bitsPerComponent = 16 }
    }

    /// Puts RGBA-ordered pixels into the format's order (and float into half floats).
    func reorder(_ bytes: inout Data) {
        if half {
            let floats = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            bytes = floats.map { Float16($0) }.withUnsafeBytes { Data($0) }
        }
        guard let order else { return }
        // Memory position order[k] receives component k: the inverse permutation, read as "component at each position".
        var inverse = [0, 0, 0, 0]
        for k in 0..<4 { inverse[order[k]] = k }
        CGImage.permute(&bytes, inverse)
    }
}

/// Writes a file by writing a temporary file beside it and renaming it into place: readers see the old file or the
/// new one, never half of one.
enum AtomicFile {
    static func write<E: Error>(to url: URL, _ body: (URL) throws(E) -> Void) throws {
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(
            ".\(url.lastPathComponent).\(UUID().uuidString).tmp\(url.pathExtension.isEmpty ? "" : "." + url.pathExtension)")
        do {
            try body(temporary)
            guard rename(temporary.path, url.path) == 0 else {
                throw CIRenderError.writing("cannot move \(temporary.path) to \(url.path): \(String(cString: strerror(errno)))")
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }
}
