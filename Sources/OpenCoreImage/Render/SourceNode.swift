import CVipsShims
import Foundation
import Synchronization

/// Pixels from a file, encoded bytes or a ``CGImage``: the leaves of every recipe. Only the header is read when the
/// image is made; the pixels are decoded when a render pulls them, and a JPEG asked for at half size or less is
/// decoded at that size by libjpeg (shrink-on-load).
final class SourceNode: ImageNode, @unchecked Sendable {
    enum Origin {
        case file(String)
        case data(Data)
        case pixels(CGImage)
    }

    let origin: Origin
    let loader: String?
    let width: Int
    let height: Int
    let hasAlpha: Bool
    let colorSpace: CGColorSpace?
    /// The file's metadata as Core Image reports it (`properties`).
    let properties: [String: Any]
    /// The libvips image of the header (kept for its metadata blobs), nil for CGImage sources.
    let header: VImage?

    /// Reads the header of a file or of encoded bytes; nil when they are not an image libvips decodes.
    init?(origin: Origin, colorSpace override: CGColorSpace? = nil) {
        VipsRuntime.start()
        switch origin {
        case .file(let path):
            var status = stat()
            guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
            guard let name = vips_foreign_find_load(path) else {
                vips_error_clear()
                return nil
            }
            loader = String(cString: name)
            guard let image = try? VipsCall(loader!).string("filename", path).enumeration("access", "sequential").output() else { return nil }
            header = image
        case .data(let data):
            guard !data.isEmpty else { return nil }
            let name = data.withUnsafeBytes { vips_foreign_find_load_buffer($0.baseAddress, $0.count) }
            guard let name else {
                vips_error_clear()
                return nil
            }
            loader = String(cString: name)
            guard let image = try? VipsCall(loader!).blob("buffer", data).enumeration("access", "sequential").output() else { return nil }
            header = image
        case .pixels:
            loader = nil
            header = nil
        }
        self.origin = origin
        if case .pixels(let cgImage) = origin {
            width = cgImage.width
            height = cgImage.height
            hasAlpha = cgImage.alphaInfo.hasAlpha
            colorSpace = override ?? cgImage.colorSpace
            properties = [:]
        } else {
            let image = header!
            width = image.width
            height = image.height
            hasAlpha = image.bands == 2 || image.bands == 4
            colorSpace =
                override ?? image.blob("icc-profile-data").flatMap { CGColorSpace(iccData: NSData(data: $0)) }
                ?? CGColorSpace(name: CGColorSpace.sRGB)
            properties = ImageProperties.read(from: image, loader: loader ?? "")
        }
        guard width > 0, height > 0 else { return nil }
        super.init(extent: CGRect(x: 0, y: 0, width: width, height: height))
    }

    override var isOpaque: Bool { !hasAlpha }

    /// Every decode of a file source, with its shrink factor (for tests that check shrink-on-load is used).
    /// Only files a test has asked to watch are recorded, so a long-running process keeps nothing.
    private static let decodes = Mutex<[String: [Int]]>([:])

    /// Starts recording the decodes of `path` (their shrink factors), for tests.
    package static func watchDecodes(of path: String) { decodes.withLock { $0[path] = [] } }

    /// The shrink factors of the decodes of a watched `path` so far.
    package static func decodeShrinks(of path: String) -> [Int] { decodes.withLock { $0[path] ?? [] } }

    /// The EXIF orientation (1–8) the file declares.
    var orientation: Int { (properties["Orientation"] as? Int) ?? 1 }

    /// Whether the decoder can shrink while decoding (libjpeg's DCT scaling).
    var shrinksOnLoad: Bool { loader?.lowercased().contains("jpeg") == true }

    /// The stored pixels in the working space, decoded at 1/`shrink` of the size (`shrink` 1, 2, 4 or 8; JPEG only).
    func working(shrink: Int, sequential: Bool) throws(VipsError) -> VImage {
        if case .file(let path) = origin { Self.decodes.withLock { log in log[path]?.append(shrink) } }
        let access = sequential ? "sequential" : "random"
        var decoded: VImage
        switch origin {
        case .file(let path):
            if let tiled = try Self.heifTiles(path, loader: loader) {
                decoded = tiled
            } else {
                // What decodes is shown, as Core Image and thumbnails do: a truncated JPEG (a camera card pulled
                // early) decodes with grey where its data ends instead of failing every render.
                var call = VipsCall(loader!).string("filename", path).enumeration("access", access).enumeration("fail_on", "none")
                if shrink > 1 { call = call.int("shrink", shrink) }
                decoded = try call.output()
            }
        case .data(let data):
            var call = VipsCall(loader!).blob("buffer", data).enumeration("access", access).enumeration("fail_on", "none")
            if shrink > 1 { call = call.int("shrink", shrink) }
            decoded = try call.output()
        case .pixels(let cgImage):
            let (image, alpha) = try cgImage.vipsImage()
            return try ColourConversion.toWorking(image, hasAlpha: alpha, space: colorSpace)
        }
        if decoded.format == VIPS_FORMAT_USHORT || decoded.interpretation == VIPS_INTERPRETATION_RGB16 {
            decoded = try decoded.withMetadata { cvips_set_interpretation($0, Int32(VIPS_INTERPRETATION_RGB16.rawValue)) }
        } else if decoded.format != VIPS_FORMAT_UCHAR {
            decoded = try VipsCall("cast").image("in", decoded).enumeration("format", "uchar").output()
        }
        return try ColourConversion.toWorking(decoded, hasAlpha: hasAlpha, space: colorSpace)
    }

    /// A HEIF grid (iPhone photos) decoded tile by tile as regions need them, turned upright as libheif would:
    /// bounded memory instead of libheif's whole-image decode. Nil for anything else.
    static func heifTiles(_ path: String, loader: String?) throws(VipsError) -> VImage? {
        guard loader?.lowercased().contains("heif") == true else { return nil }
        var transforms = [Int32](repeating: 0, count: 4)
        var count: Int32 = 0
        guard let pointer = cheif_tiled_image(path, &transforms, &count) else { return nil }
        var image = VImage(owning: pointer)
        for transform in transforms.prefix(Int(count)) {
            switch transform {
            case 90: image = try VipsCall("rot").image("in", image).enumeration("angle", "d270").output()
            case 180: image = try VipsCall("rot").image("in", image).enumeration("angle", "d180").output()
            case 270: image = try VipsCall("rot").image("in", image).enumeration("angle", "d90").output()
            case -1: image = try VipsCall("flip").image("in", image).enumeration("direction", "vertical").output()
            default: image = try VipsCall("flip").image("in", image).enumeration("direction", "horizontal").output()
            }
        }
        return image
    }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try renderClipped(region) { (inner) throws(VipsError) -> Tile in
            let full = Tile(try working(shrink: 1, sequential: context.sequential), PixelRect(x: 0, y: 0, width: width, height: height))
            return try full.extract(inner)
        }
    }
}

/// A JPEG source decoded at 1/`factor` of its size: what a downscale of the source renders from.
final class ShrunkSourceNode: ImageNode, @unchecked Sendable {
    let source: SourceNode
    let factor: Int
    let width: Int
    let height: Int

    init(_ source: SourceNode, factor: Int) {
        self.source = source
        self.factor = factor
        width = (source.width + factor - 1) / factor
        height = (source.height + factor - 1) / factor
        super.init(extent: CGRect(x: 0, y: 0, width: width, height: height))
    }

    override var isOpaque: Bool { source.isOpaque }

    override var inputs: [ImageNode] { [source] }

    override func render(_ region: PixelRect, _ context: RenderContext) throws(VipsError) -> Tile {
        try renderClipped(region) { (inner) throws(VipsError) -> Tile in
            let image = try source.working(shrink: factor, sequential: context.sequential)
            let full = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
            let tile = Tile(image, full)
            return try tile.extract(inner.intersection(full)).embedded(in: inner, repeatingEdges: true)
        }
    }
}
