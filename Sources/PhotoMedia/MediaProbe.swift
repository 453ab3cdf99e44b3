import CAVFormatShims
import CVipsShims
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the photo library's object model needs from a new file: its kind, its displayed pixel size and its
/// duration. The full metadata pipeline (dates, GPS, Live Photo and burst keys) reads more; this is the seam
/// it extends.
package struct MediaInfo: Sendable, Equatable {
    /// The format recognised from the content.
    package var format: MediaFormat
    /// Pixel size as displayed: EXIF orientations 5–8 and video rotations of 90° and 270° swap the stored size.
    package var pixelWidth: Int
    package var pixelHeight: Int
    /// Pixel size as stored in the file.
    package var storedPixelWidth: Int
    package var storedPixelHeight: Int
    /// EXIF orientation (1–8) for images; 1 for videos.
    package var orientation: Int
    /// Clockwise display rotation of a video in degrees.
    package var rotation: Int
    /// Duration in seconds (0 for still images).
    package var duration: Double
    /// Average video frame rate, or 0.
    package var frameRate: Double
    /// Frames of an animated image (GIF, WebP); 1 for stills and videos.
    package var frameCount = 1
    /// Dates, place, camera, Live Photo and burst keys.
    package var metadata = MediaMetadata()
    /// Whether a movie has an audio stream.
    package var hasAudio = false
    /// How a movie's streams are encoded (nil for images).
    package var videoEncoding: VideoEncoding?

    package var isImage: Bool { format.isImage }
}

/// Why a file could not be read.
package enum MediaError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case empty(path: String)
    case unrecognizedFormat(path: String)
    case corrupt(path: String, reason: String)
    case tooManyPixels(path: String, width: Int, height: Int, limit: Int)
    /// The file may be fine, but the decoder installed is too old for it (HEIC from iOS 18 and libheif < 1.17).
    case decoderTooOld(path: String, format: String, needs: String, found: String)

    package var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .empty(let path): "\(path) is empty"
        case .unrecognizedFormat(let path): "\(path) is not an image or video in a supported format"
        case .corrupt(let path, let reason): "\(path) is damaged: \(reason)"
        case .decoderTooOld(let path, let format, let needs, let found):
            "cannot read \(path): this \(format) needs \(needs), found \(found) (scripts/setup.sh installs a newer one)"
        case .tooManyPixels(let path, let width, let height, let limit):
            "\(path) declares \(width)×\(height) pixels, over the limit of \(limit) pixels"
        }
    }
}

/// Reads ``MediaInfo`` from files: libvips for images (header only, no pixels decoded) and libavformat for
/// movies (container and stream headers only).
package struct MediaProbe: Sendable {
    /// The largest image accepted, in pixels (width × height). Decompression bombs are rejected from their header.
    package var pixelLimit: Int

    package init(pixelLimit: Int = 256 * 1024 * 1024) {
        self.pixelLimit = pixelLimit
    }

    /// Initialises libvips and libavformat once per process.
    package static func initializeLibraries() {
        _ = libraryInitialization
    }

    private static let libraryInitialization: Bool = {
        MediaLog.install()
        if cvips_start() != 0 { return false }
        cav_quiet()
        return true
    }()

    /// The error for a file libvips could not decode: a decoder too old for the format when that is the likely
    /// cause (a HEIC and a libheif older than iOS 18's files need), else a damaged file.
    package static func decodingError(path: String, format: MediaFormat) -> MediaError {
        let reason = takeVipsError()
        if format == .heic || format == .heif, !HEIFRuntime.readsCurrentIPhoneHEIC {
            return .decoderTooOld(
                path: path, format: "HEIC", needs: "libheif ≥ \(HEIFRuntime.versionForCurrentIPhoneHEIC)",
                found: HEIFRuntime.version.map { "libheif \($0)" } ?? "no libheif")
        }
        return .corrupt(path: path, reason: reason)
    }

    /// Which decoder serves which format, one line each (for start-up reports and `photos inspect`).
    package static var decoders: [String] {
        initializeLibraries()
        let vips = String(cString: vips_version_string())
        return [
            "JPEG, PNG, WebP, TIFF, GIF: libvips \(vips)",
            "HEIC, HEIF, AVIF: libvips \(vips) heifload with \(HEIFRuntime.summary)",
            "MOV, MP4: libavformat \(String(cString: av_version_info()))",
            "EXIF: libexif; Apple MakerNote, XMP dates, QuickTime keys: OpenPhotoKit (bounded readers)",
        ]
    }

    /// Reads the first bytes of a file and recognises its format. Anything but a regular file (a FIFO, a device,
    /// a folder) is refused before a byte is read: opening it must never block or read forever.
    package func sniff(_ url: URL) throws(MediaError) -> MediaFormat {
        let path = url.path
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .unreadable(path: path, reason: "not a regular file (\(Self.fileKind(info.st_mode)))")
        }
        var header = [UInt8](repeating: 0, count: 32)
        var count = 0
        while count < header.count {
            let n = header.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            count += n
        }
        if count == 0 { throw .empty(path: path) }
        guard var format = MediaFormat.sniff(header[..<count]) else { throw .unrecognizedFormat(path: path) }
        // Most RAW formats are TIFF files (DNG, CR2, NEF, ARW …): LibRaw tells them from TIFF images.
        if format == .tiff, RawDeveloper.header(path) != nil { format = .cameraRAW }
        return format
    }

    /// Refuses a file that must not reach this process's decoders: a HEIF whose structure libheif's parser cannot read
    /// in a separate process (see ``HEIFCheck``). Every path that decodes a library file passes here first.
    package static func checkBeforeDecoding(_ path: String) throws(MediaError) {
        guard let format = try? MediaProbe().sniff(URL(fileURLWithPath: path)) else { return }
        try HEIFCheck.check(path, format: format)
    }

    /// "a FIFO", "a folder", … for messages.
    static func fileKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFDIR: "a folder"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a plain file"
        }
    }

    /// Reads what the object model needs from a file.
    package func probe(_ url: URL) throws(MediaError) -> MediaInfo {
        Self.initializeLibraries()
        return try MediaLog.reading(url.path) { () throws(MediaError) -> MediaInfo in
            let format = try sniff(url)
            if format == .cameraRAW { return try probeRAW(url) }
            return format.isImage ? try probeImage(url, format: format) : try probeMovie(url, format: format)
        }
    }

    /// A RAW file's size and orientation from LibRaw, and what libvips reads of its metadata where the file is a
    /// TIFF (EXIF: date, place, camera).
    private func probeRAW(_ url: URL) throws(MediaError) -> MediaInfo {
        let path = url.path
        guard let header = RawDeveloper.header(path) else { throw .corrupt(path: path, reason: "LibRaw cannot read it as a camera RAW file") }
        if header.width.multipliedReportingOverflow(by: header.height).overflow || header.width * header.height > pixelLimit {
            throw .tooManyPixels(path: path, width: header.width, height: header.height, limit: pixelLimit)
        }
        var metadata = MediaMetadata()
        if let image = cvips_header_from_file(path) {
            defer { cvips_unref(image) }
            var exifLength = 0
            if let exif = cvips_blob(image, "exif-data", &exifLength) {
                EXIFReader.read(UnsafeRawBufferPointer(start: exif, count: exifLength), into: &metadata, xmp: nil)
            }
        } else {
            _ = Self.takeVipsError()
        }
        if metadata.make == nil, !header.make.isEmpty { metadata.make = header.make }
        if metadata.model == nil, !header.model.isEmpty { metadata.model = header.model }
        metadata.orientation = header.orientation
        let swaps = (5...8).contains(header.orientation)
        return MediaInfo(
            format: .cameraRAW, pixelWidth: swaps ? header.height : header.width, pixelHeight: swaps ? header.width : header.height,
            storedPixelWidth: header.width, storedPixelHeight: header.height, orientation: header.orientation, rotation: 0, duration: 0,
            frameRate: 0, frameCount: 1, metadata: metadata)
    }

    private func probeImage(_ url: URL, format: MediaFormat) throws(MediaError) -> MediaInfo {
        let path = url.path
        try HEIFCheck.check(path, format: format)
        // A JPEG (by its first bytes) goes to libvips' JPEG loader directly: finding the loader by asking each was
        // more than half of the header's time.
        guard let image = format == .jpeg ? cvips_header_from_jpeg_file(path) : cvips_header_from_file(path) else {
            throw Self.decodingError(path: path, format: format)
        }
        defer { cvips_unref(image) }
        let width = Int(vips_image_get_width(image))
        let height = Int(vips_image_get_height(image))
        guard width > 0, height > 0 else { throw .corrupt(path: path, reason: "no pixel size in the header") }
        if width.multipliedReportingOverflow(by: height).overflow || width * height > pixelLimit {
            throw .tooManyPixels(path: path, width: width, height: height, limit: pixelLimit)
        }
        // libheif applies the HEIF transforms (irot, imir) itself: the size libvips reports is already upright.
        var orientation = Int(cvips_orientation(image))
        let upright = format == .heic || format == .heif || format == .avif
        var metadata = MediaMetadata()
        var xmpLength = 0
        let xmp = cvips_blob(image, "xmp-data", &xmpLength).map {
            String(decoding: UnsafeRawBufferPointer(start: $0, count: min(xmpLength, 1 << 20)), as: UTF8.self)
        }
        var exifLength = 0
        if let exif = cvips_blob(image, "exif-data", &exifLength) {
            EXIFReader.read(UnsafeRawBufferPointer(start: exif, count: exifLength), into: &metadata, xmp: xmp)
        } else if format == .png, let trailing = PNGChunks.trailingEXIF(path) {
            // An eXIf after the image data, which libvips does not read: its orientation too (the renderer applies it).
            trailing.withUnsafeBytes { EXIFReader.read($0, into: &metadata, xmp: xmp) }
            orientation = metadata.orientation ?? orientation
        } else if let xmp, let date = XMPReader.date(xmp) {
            metadata.creationDate = MetadataDate.instant(date.parsed, offset: date.parsed.offset)
            metadata.timeZoneOffset = date.parsed.offset
            metadata.creationDateSource = date.source
        }
        var iptcLength = 0
        let iptc = cvips_blob(image, "iptc-data", &iptcLength).map { UnsafeRawBufferPointer(start: $0, count: iptcLength) }
        DescriptiveMetadata.read(xmp: xmp, iptc: iptc, into: &metadata)
        let swaps = !upright && (5...8).contains(orientation)
        let frames = Int(cvips_n_pages(image))
        if upright, HEIFRuntime.readsCurrentIPhoneHEIC || format != .heic {
            metadata.hasDepthData = cheif_depth_image_count(path) > 0
        }
        return MediaInfo(
            format: format,
            pixelWidth: swaps ? height : width,
            pixelHeight: swaps ? width : height,
            storedPixelWidth: width,
            storedPixelHeight: height,
            orientation: (1...8).contains(orientation) ? orientation : 1,
            rotation: 0,
            duration: 0,
            frameRate: 0,
            frameCount: max(1, frames),
            metadata: metadata
        )
    }

    private func probeMovie(_ url: URL, format: MediaFormat) throws(MediaError) -> MediaInfo {
        let path = url.path
        var info = cav_video_info()
        let err = cav_probe_file(path, &info)
        if err < 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            cav_error_string(err, &buffer, buffer.count)
            throw .corrupt(path: path, reason: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        guard info.has_video != 0, info.width > 0, info.height > 0 else {
            throw .corrupt(path: path, reason: "no video stream")
        }
        let width = Int(info.width)
        let height = Int(info.height)
        if width * height > pixelLimit {
            throw .tooManyPixels(path: path, width: width, height: height, limit: pixelLimit)
        }
        let rotation = Int(info.rotation)
        let swaps = rotation == 90 || rotation == 270
        var metadata = MediaMetadata()
        MovieMetadataReader.read(path, into: &metadata)
        metadata.videoFrameRate = info.frame_rate > 0 ? info.frame_rate : nil
        return MediaInfo(
            format: format,
            pixelWidth: swaps ? height : width,
            pixelHeight: swaps ? width : height,
            storedPixelWidth: width,
            storedPixelHeight: height,
            orientation: 1,
            rotation: rotation,
            duration: info.duration > 0 ? info.duration : 0,
            frameRate: info.frame_rate,
            metadata: metadata,
            hasAudio: info.has_audio != 0,
            videoEncoding: VideoEncoding(
                codec: Self.string(info.video_codec), audioCodec: info.has_audio != 0 ? Self.string(info.audio_codec) : nil,
                bitDepth: Int(info.video_bit_depth), isChroma420: info.video_chroma_420 != 0)
        )
    }

    /// A C string in a fixed-size array of `cav_video_info`.
    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// libvips keeps one process-wide error buffer; `vips_error_buffer_copy` reads and clears it under libvips' own
    /// lock (as OpenCoreImage's `VipsError.take` does).
    package static func takeVipsError() -> String {
        var message = ""
        if let copy = vips_error_buffer_copy() {
            message = String(cString: copy)
            g_free(copy)
        }
        message = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; ")
        return message.isEmpty ? "libvips could not read the header" : message
    }
}
