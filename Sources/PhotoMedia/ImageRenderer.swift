import CAVFormatShims
import CVipsShims
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// 8-bit sRGB pixels, display-oriented, row by row (3 bands, or 4 with alpha).
package struct PixelBuffer: Sendable, Equatable {
    package var width: Int
    package var height: Int
    package var bands: Int
    package var bytes: Data

    package init(width: Int, height: Int, bands: Int, bytes: Data) {
        self.width = width
        self.height = height
        self.bands = bands
        self.bytes = bytes
    }

    /// The pixel at (x, y) from the top left, as RGBA (alpha 255 without an alpha band).
    package func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        guard x >= 0, y >= 0, x < width, y < height else { return (0, 0, 0, 0) }
        let at = (y * width + x) * bands
        return bytes.withUnsafeBytes { raw in
            let p = raw.bindMemory(to: UInt8.self)
            return (p[at], p[at + min(1, bands - 1)], p[at + min(2, bands - 1)], bands == 4 ? p[at + 3] : 255)
        }
    }

    /// Encodes the pixels.
    package func encoded(as format: MediaFormat, quality: Double = 0.9) throws(MediaError) -> Data {
        let code: Int32
        switch format {
        case .jpeg: code = 0
        case .png: code = 1
        case .webp: code = 2
        case .heic, .heif: code = 3
        default: throw .unrecognizedFormat(path: "\(format.rawValue) encoding")
        }
        MediaProbe.initializeLibraries()
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let q = Int32(max(1, min(100, (quality * 100).rounded())))
        let status = bytes.withUnsafeBytes { raw in
            cvips_encode_pixels(raw.baseAddress, raw.count, Int32(width), Int32(height), Int32(bands), code, q, &buffer, &length)
        }
        guard status == 0, let buffer else { throw .corrupt(path: "image", reason: MediaProbe.takeVipsError()) }
        defer { cvips_free(buffer) }
        return Data(bytes: buffer, count: length)
    }
}

/// How a rendering fits its target (PhotoKit's content modes).
package enum RenderFit: Sendable, Hashable {
    case fit
    case fill
}

/// How exactly the size is met (PhotoKit's resize modes).
package enum RenderResize: Sendable, Hashable {
    /// No resizing: the whole image.
    case none
    /// Close to the target, never smaller; aspectFill is not cropped.
    case fast
    /// aspectFit: within the target, touching it; aspectFill: exactly the target, cropped at the centre.
    case exact
}

/// One rendering of an image file: what to produce.
package struct RenderRequest: Sendable, Hashable {
    /// Target size in pixels; nil for the largest image (PHImageManagerMaximumSize).
    package var target: (width: Int, height: Int)?
    package var fit: RenderFit
    package var resize: RenderResize
    /// A crop in unit coordinates of the displayed image (x, y, width, height), with `.exact`.
    package var crop: (x: Double, y: Double, width: Double, height: Double)?

    package init(
        target: (width: Int, height: Int)?, fit: RenderFit, resize: RenderResize, crop: (x: Double, y: Double, width: Double, height: Double)? = nil
    ) {
        self.target = target
        self.fit = fit
        self.resize = resize
        self.crop = crop
    }

    package static func == (a: RenderRequest, b: RenderRequest) -> Bool {
        a.target?.width == b.target?.width && a.target?.height == b.target?.height && a.fit == b.fit && a.resize == b.resize
            && a.crop?.x == b.crop?.x && a.crop?.y == b.crop?.y && a.crop?.width == b.crop?.width && a.crop?.height == b.crop?.height
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(target?.width)
        hasher.combine(target?.height)
        hasher.combine(fit)
        hasher.combine(resize)
        hasher.combine(crop?.x)
        hasher.combine(crop?.y)
        hasher.combine(crop?.width)
        hasher.combine(crop?.height)
    }

    /// The output size for a displayed image of `width` × `height`, never enlarged.
    package func outputSize(width: Int, height: Int) -> (width: Int, height: Int, cropToTarget: Bool) {
        guard let target, resize != .none, width > 0, height > 0 else { return (width, height, false) }
        let sx = Double(target.width) / Double(width)
        let sy = Double(target.height) / Double(height)
        let scale = min(1, fit == .fit ? min(sx, sy) : max(sx, sy))
        let w = max(1, Int((Double(width) * scale).rounded()))
        let h = max(1, Int((Double(height) * scale).rounded()))
        if fit == .fill, resize == .exact {
            return (min(w, target.width), min(h, target.height), true)
        }
        return (w, h, false)
    }
}

/// Renders image files with libvips: display-oriented (EXIF orientation applied), sRGB, 8-bit.
package enum ImageRenderer {
    /// Writes the whole image of `path`, display-oriented, in sRGB, to `target` (JPEG, PNG, WebP, HEIC or TIFF by its
    /// extension) without holding it in memory: libvips streams it through in strips. The file is written beside
    /// `target` and renamed into place. Returns the size written.
    package static func writeFullSize(_ path: String, to target: URL, quality: Int = 85) throws(MediaError) -> (width: Int, height: Int) {
        MediaProbe.initializeLibraries()
        try MediaProbe.checkBeforeDecoding(path)
        let ext = target.pathExtension.lowercased()
        if (try? MediaProbe().sniff(URL(fileURLWithPath: path))) == .cameraRAW {
            // Developed whole by LibRaw, then encoded.
            let developed = try RawDeveloper.develop(path, minimumLongEdge: nil)
            let format: MediaFormat =
                switch ext {
                case "png": .png
                case "webp": .webp
                case "heic", "heif": .heic
                default: .jpeg
                }
            let encoded = try developed.encoded(as: format, quality: Double(quality) / 100)
            do { try encoded.write(to: target, options: .atomic) } catch {
                throw .unreadable(path: target.path, reason: "cannot write: \(error)")
            }
            return (developed.width, developed.height)
        }
        let suffix = ["jpg", "jpeg", "webp", "heic", "heif"].contains(ext) ? "[Q=\(quality)]" : ""
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".opk-\(UUID().uuidString).\(ext.isEmpty ? "jpg" : ext)")
        let status = MediaLog.reading(path) { cvips_write_upright(path, temporary.path + suffix) }
        guard status == 0 else {
            unlink(temporary.path)
            throw MediaProbe.decodingError(path: path, format: (try? MediaProbe().sniff(URL(fileURLWithPath: path))) ?? .jpeg)
        }
        guard rename(temporary.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw .unreadable(path: target.path, reason: "cannot write: \(reason)")
        }
        guard let written = cvips_header_from_file(target.path) else { return (0, 0) }
        defer { cvips_unref(written) }
        return (Int(vips_image_get_width(written)), Int(vips_image_get_height(written)))
    }

    /// Renders `path` (whose displayed size is `width` × `height`) as `request` asks.
    /// Colours are converted to sRGB when the file carries an ICC profile (after shrinking, on few pixels).
    package static func render(_ path: String, displayWidth width: Int, displayHeight height: Int, request: RenderRequest) throws(MediaError)
        -> PixelBuffer
    {
        MediaProbe.initializeLibraries()
        try MediaProbe.checkBeforeDecoding(path)
        return try MediaLog.reading(path) { () throws(MediaError) -> PixelBuffer in
            try renderLogged(path, displayWidth: width, displayHeight: height, request: request)
        }
    }

    private static func renderLogged(_ path: String, displayWidth width: Int, displayHeight height: Int, request: RenderRequest)
        throws(MediaError) -> PixelBuffer
    {
        if (try? MediaProbe().sniff(URL(fileURLWithPath: path))) == .cameraRAW {
            return try renderRAW(path, displayWidth: width, displayHeight: height, request: request)
        }
        let image: UnsafeMutablePointer<VipsImage>?
        if let orientation = trailingPNGOrientation(path) {
            // An orientation libvips did not read (eXIf after the PNG data): applied here, then sized as usual.
            guard let upright = cvips_load_oriented(path, Int32(orientation)) else {
                throw .corrupt(path: path, reason: MediaProbe.takeVipsError())
            }
            defer { cvips_unref(upright) }
            if let crop = request.crop {
                image = try cropped(upright, crop: crop, request: request, path: path)
            } else {
                let size = request.outputSize(width: width, height: height)
                image = cvips_thumbnail_image_exact(upright, Int32(size.width), Int32(size.height), size.cropToTarget ? 1 : 0)
            }
        } else if let crop = request.crop {
            image = try cropped(path, crop: crop, width: width, height: height, request: request)
        } else {
            let size = request.outputSize(width: width, height: height)
            if request.target == nil || request.resize == .none || (size.width == width && size.height == height && !size.cropToTarget) {
                image = cvips_load_upright(path)
            } else if let embedded = embeddedHEIFThumbnail(path, displayWidth: width, displayHeight: height, size: size) {
                image = embedded
            } else {
                image = cvips_thumbnail_exact(path, Int32(size.width), Int32(size.height), size.cropToTarget ? 1 : 0)
            }
        }
        guard let image else {
            throw MediaProbe.decodingError(path: path, format: (try? MediaProbe().sniff(URL(fileURLWithPath: path))) ?? .jpeg)
        }
        defer { cvips_unref(image) }
        return try pixels(image, path: path)
    }

    /// A camera RAW file developed by LibRaw (half size when the request is small enough), then sized as usual.
    private static func renderRAW(_ path: String, displayWidth width: Int, displayHeight height: Int, request: RenderRequest)
        throws(MediaError) -> PixelBuffer
    {
        let size = request.outputSize(width: width, height: height)
        let whole = request.target == nil || request.resize == .none || request.crop != nil
        let developed = try RawDeveloper.develop(path, minimumLongEdge: whole ? nil : max(size.width, size.height))
        if let crop = request.crop {
            let memory: UnsafeMutablePointer<VipsImage>? = developed.bytes.withUnsafeBytes { raw in
                cvips_image_from_pixels(raw.baseAddress, raw.count, Int32(developed.width), Int32(developed.height), Int32(developed.bands))
            }
            guard let memory else { throw .corrupt(path: path, reason: MediaProbe.takeVipsError()) }
            defer { cvips_unref(memory) }
            let region = try cropped(memory, crop: crop, request: request, path: path)
            defer { cvips_unref(region) }
            return try pixels(region, path: path)
        }
        if whole || (size.width == developed.width && size.height == developed.height && !size.cropToTarget) { return developed }
        return try render(from: developed, width: size.width, height: size.height, crop: size.cropToTarget)
    }

    /// A libvips image's pixels, 8-bit sRGB.
    package static func pixels(of image: UnsafeMutablePointer<VipsImage>, path: String) throws(MediaError) -> PixelBuffer {
        try pixels(image, path: path)
    }

    /// The orientation (2–8) of a PNG whose eXIf chunk follows the image data, which libvips' loader misses.
    private static func trailingPNGOrientation(_ path: String) -> Int? {
        guard path.lowercased().hasSuffix(".png"), let exif = PNGChunks.trailingEXIF(path) else { return nil }
        var metadata = MediaMetadata()
        exif.withUnsafeBytes { EXIFReader.read($0, into: &metadata, xmp: nil) }
        guard let orientation = metadata.orientation, orientation > 1 else { return nil }
        return orientation
    }

    /// A HEIF's embedded thumbnail sized to `size`, when the file is HEIF and its thumbnail covers the size before any
    /// centre crop (libvips' own rule for using it); nil otherwise, and the caller decodes the image. One libheif
    /// context and a decode of a few hundred thousand pixels instead of libvips' heifload, which opens the file
    /// several times (≈ 20 ms instead of ≈ 140 ms for a 256-px thumbnail of an iPhone photo).
    private static func embeddedHEIFThumbnail(
        _ path: String, displayWidth width: Int, displayHeight height: Int, size: (width: Int, height: Int, cropToTarget: Bool)
    ) -> UnsafeMutablePointer<VipsImage>? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        let header = (try? handle.read(upToCount: 32)) ?? Data()
        try? handle.close()
        guard let format = MediaFormat.sniff(header), format == .heic || format == .heif else { return nil }
        var need = (width: size.width, height: size.height)
        if size.cropToTarget {
            // The centre crop is taken from the image scaled to cover the target.
            let scale = min(1, max(Double(size.width) / Double(width), Double(size.height) / Double(height)))
            need = (Int((Double(width) * scale).rounded(.up)), Int((Double(height) * scale).rounded(.up)))
        }
        var thumbnail: UnsafeMutablePointer<VipsImage>?
        guard cheif_thumbnail(path, Int32(need.width), Int32(need.height), &thumbnail) == 0, let thumbnail else {
            vips_error_clear()
            return nil
        }
        defer { cvips_unref(thumbnail) }
        guard let scaled = cvips_thumbnail_image_exact(thumbnail, Int32(size.width), Int32(size.height), size.cropToTarget ? 1 : 0) else {
            vips_error_clear()
            return nil
        }
        defer { cvips_unref(scaled) }
        return cvips_to_srgb_profile(scaled)
    }

    /// Renders a movie's poster frame (its first frame at or after `seconds`), display-rotated, as `request` asks.
    /// `width` × `height` is the displayed size.
    package static func renderPosterFrame(
        _ path: String, at seconds: Double = 0, rotation: Int, displayWidth width: Int, displayHeight height: Int, request: RenderRequest,
        pixelLimit: Int = MediaProbe().pixelLimit
    ) throws(MediaError) -> PixelBuffer {
        MediaProbe.initializeLibraries()
        var rgb: UnsafeMutablePointer<UInt8>?
        var frameWidth: Int32 = 0
        var frameHeight: Int32 = 0
        let err = cav_poster_frame(path, seconds, pixelLimit, &rgb, &frameWidth, &frameHeight)
        return try posterFrame(err, rgb, frameWidth, frameHeight, rotation: rotation, request: request, path: path)
    }

    /// Renders a movie's poster frame read from `source` by ranges — where its index and its first frame are, not
    /// the whole file (a movie in object storage) — display-rotated as its stream says, as `request` asks.
    /// - throws: the source's error when reading failed (see ``RangedMediaSource/failure``), else ``MediaError``.
    package static func renderPosterFrame(
        reading source: RangedMediaSource, at seconds: Double = 0, request: RenderRequest, pixelLimit: Int = MediaProbe().pixelLimit
    ) throws -> PixelBuffer {
        MediaProbe.initializeLibraries()
        var rgb: UnsafeMutablePointer<UInt8>?
        var frameWidth: Int32 = 0
        var frameHeight: Int32 = 0
        var rotation: Int32 = 0
        let reader: cav_read_fn = { opaque, offset, buffer, count in
            guard let opaque, let buffer, count > 0 else { return -1 }
            return Unmanaged<RangedMediaSource>.fromOpaque(opaque).takeUnretainedValue().read(at: offset, into: buffer, count: Int(count))
        }
        let err = withExtendedLifetime(source) {
            cav_poster_frame_reader(
                reader, Unmanaged.passUnretained(source).toOpaque(), source.size, seconds, pixelLimit, &rgb, &frameWidth, &frameHeight,
                &rotation)
        }
        if let failure = source.failure, err != 0 { throw failure }
        return try posterFrame(err, rgb, frameWidth, frameHeight, rotation: Int(rotation), request: request, path: source.name)
    }

    /// A decoded frame (or the decoder's error), rotated upright and rendered as `request` asks; frees `rgb`.
    private static func posterFrame(
        _ err: Int32, _ rgb: UnsafeMutablePointer<UInt8>?, _ frameWidth: Int32, _ frameHeight: Int32, rotation: Int, request: RenderRequest,
        path: String
    ) throws(MediaError) -> PixelBuffer {
        guard err == 0, let rgb else {
            var buffer = [CChar](repeating: 0, count: 256)
            cav_error_string(err, &buffer, buffer.count)
            throw .corrupt(
                path: path, reason: "no frame: " + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { av_free(rgb) }
        guard let frame = cvips_image_from_rgb(rgb, Int(frameWidth) * Int(frameHeight) * 3, frameWidth, frameHeight) else {
            throw .corrupt(path: path, reason: MediaProbe.takeVipsError())
        }
        defer { cvips_unref(frame) }
        guard let upright = cvips_rotate(frame, Int32(rotation)) else { throw .corrupt(path: path, reason: MediaProbe.takeVipsError()) }
        defer { cvips_unref(upright) }
        if let crop = request.crop {
            let region = try cropped(upright, crop: crop, request: request, path: path)
            defer { cvips_unref(region) }
            return try pixels(region, path: path)
        }
        let size = request.outputSize(width: Int(vips_image_get_width(upright)), height: Int(vips_image_get_height(upright)))
        if request.target == nil || request.resize == .none {
            return try pixels(upright, path: path)
        }
        guard let scaled = cvips_thumbnail_image_exact(upright, Int32(size.width), Int32(size.height), size.cropToTarget ? 1 : 0) else {
            throw .corrupt(path: path, reason: MediaProbe.takeVipsError())
        }
        defer { cvips_unref(scaled) }
        return try pixels(scaled, path: path)
    }

    /// Renders `width` × `height` (centre-cropped to it with `crop`) from pixels already decoded — a larger rendering
    /// of the same image, display-oriented: one decode of the original serves several sizes.
    package static func render(from source: PixelBuffer, width: Int, height: Int, crop: Bool) throws(MediaError) -> PixelBuffer {
        MediaProbe.initializeLibraries()
        let size = (width: width, height: height, cropToTarget: crop)
        let image: UnsafeMutablePointer<VipsImage>? = source.bytes.withUnsafeBytes { raw in
            guard let memory = cvips_image_from_pixels(raw.baseAddress, raw.count, Int32(source.width), Int32(source.height), Int32(source.bands))
            else { return nil }
            defer { cvips_unref(memory) }
            return cvips_thumbnail_image_exact(memory, Int32(size.width), Int32(size.height), size.cropToTarget ? 1 : 0)
        }
        guard let image else { throw .corrupt(path: "rendering", reason: MediaProbe.takeVipsError()) }
        defer { cvips_unref(image) }
        return try pixels(image, path: "rendering")
    }

    /// Decodes encoded image data (any format libvips reads) to display-oriented sRGB pixels.
    package static func pixels(fromEncoded data: Data) throws(MediaError) -> PixelBuffer {
        MediaProbe.initializeLibraries()
        let result: Result<PixelBuffer, MediaError> = data.withUnsafeBytes { raw in
            // vips pipelines are lazy: the bytes must stay valid until the pixels are written.
            guard let loaded = cvips_load_buffer(raw.baseAddress, raw.count) else {
                return .failure(.corrupt(path: "image data", reason: MediaProbe.takeVipsError()))
            }
            defer { cvips_unref(loaded) }
            guard let upright = cvips_autorot(loaded) else { return .failure(.corrupt(path: "image data", reason: MediaProbe.takeVipsError())) }
            defer { cvips_unref(upright) }
            return Result { () throws(MediaError) -> PixelBuffer in try pixels(upright, path: "image data") }
        }
        return try result.get()
    }

    private static func cropped(
        _ path: String, crop: (x: Double, y: Double, width: Double, height: Double), width: Int, height: Int, request: RenderRequest
    ) throws(MediaError) -> UnsafeMutablePointer<VipsImage> {
        guard let upright = cvips_load_upright(path) else { throw .corrupt(path: path, reason: MediaProbe.takeVipsError()) }
        defer { cvips_unref(upright) }
        return try cropped(upright, crop: crop, request: request, path: path)
    }

    /// Crops `upright` (display-oriented) to `crop` in unit coordinates, then sizes the region as `request` asks.
    private static func cropped(
        _ upright: UnsafeMutablePointer<VipsImage>, crop: (x: Double, y: Double, width: Double, height: Double), request: RenderRequest,
        path: String
    ) throws(MediaError) -> UnsafeMutablePointer<VipsImage> {
        let w = Int(vips_image_get_width(upright))
        let h = Int(vips_image_get_height(upright))
        let left = max(0, min(w - 1, Int((crop.x * Double(w)).rounded())))
        let top = max(0, min(h - 1, Int((crop.y * Double(h)).rounded())))
        let cw = max(1, min(w - left, Int((crop.width * Double(w)).rounded())))
        let ch = max(1, min(h - top, Int((crop.height * Double(h)).rounded())))
        guard let region = cvips_crop(upright, Int32(left), Int32(top), Int32(cw), Int32(ch)) else {
            throw .corrupt(path: path, reason: MediaProbe.takeVipsError())
        }
        defer { cvips_unref(region) }
        let size = request.outputSize(width: cw, height: ch)
        if size.cropToTarget, let target = request.target {
            // Cover the target, then keep its centre.
            let scale = min(1, max(Double(target.width) / Double(cw), Double(target.height) / Double(ch)))
            let sw = max(size.width, Int((Double(cw) * scale).rounded()))
            let sh = max(size.height, Int((Double(ch) * scale).rounded()))
            guard let scaled = cvips_resize_exact(region, Int32(sw), Int32(sh)) else {
                throw .corrupt(path: path, reason: MediaProbe.takeVipsError())
            }
            defer { cvips_unref(scaled) }
            guard let centre = cvips_crop(scaled, Int32((sw - size.width) / 2), Int32((sh - size.height) / 2), Int32(size.width), Int32(size.height))
            else { throw .corrupt(path: path, reason: MediaProbe.takeVipsError()) }
            return centre
        }
        guard let scaled = cvips_resize_exact(region, Int32(size.width), Int32(size.height)) else {
            throw .corrupt(path: path, reason: MediaProbe.takeVipsError())
        }
        return scaled
    }

    private static func pixels(_ image: UnsafeMutablePointer<VipsImage>, path: String) throws(MediaError) -> PixelBuffer {
        var length = 0
        var width: Int32 = 0
        var height: Int32 = 0
        var bands: Int32 = 0
        guard let memory = cvips_srgb_pixels(image, &length, &width, &height, &bands) else {
            throw .corrupt(path: path, reason: MediaProbe.takeVipsError())
        }
        defer { cvips_free(memory) }
        return PixelBuffer(width: Int(width), height: Int(height), bands: Int(bands), bytes: Data(bytes: memory, count: length))
    }
}
