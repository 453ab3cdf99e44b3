import CVipsShims
import Foundation

/// Reads and re-encodes images held in memory (for the `UIImage` stand-in).
package enum ImageCodec {
    package struct Header: Sendable, Equatable {
        package var format: MediaFormat
        package var storedWidth: Int
        package var storedHeight: Int
        /// EXIF orientation, 1–8.
        package var orientation: Int

        package init(format: MediaFormat, storedWidth: Int, storedHeight: Int, orientation: Int) {
            self.format = format
            self.storedWidth = storedWidth
            self.storedHeight = storedHeight
            self.orientation = orientation
        }
    }

    /// The format, stored size and orientation of encoded image data (header only; no pixels decoded).
    package static func header(of data: Data, pixelLimit: Int = MediaProbe().pixelLimit) throws(MediaError) -> Header {
        MediaProbe.initializeLibraries()
        guard let format = MediaFormat.sniff(data.prefix(32)), format.isImage else {
            throw data.isEmpty ? .empty(path: "image data") : .unrecognizedFormat(path: "image data")
        }
        if format == .heic || format == .heif || format == .avif {
            // The helper reads files: HEIF bytes are checked through a private temporary copy.
            let copy = FileManager.default.temporaryDirectory.appendingPathComponent("opk-heif-\(UUID().uuidString)")
            guard FileManager.default.createFile(atPath: copy.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw .unreadable(path: "image data", reason: "cannot write a temporary copy to check it")
            }
            defer { unlink(copy.path) }
            do {
                try HEIFCheck.check(copy.path, format: format)
            } catch {
                if case .corrupt(_, let reason) = error { throw .corrupt(path: "image data", reason: reason) }
                throw error
            }
        }
        let result: Result<Header, MediaError> = data.withUnsafeBytes { raw in
            guard let image = cvips_header_from_buffer(raw.baseAddress, raw.count) else {
                return .failure(.corrupt(path: "image data", reason: MediaProbe.takeVipsError()))
            }
            defer { cvips_unref(image) }
            let width = Int(vips_image_get_width(image))
            let height = Int(vips_image_get_height(image))
            if width * height > pixelLimit {
                return .failure(.tooManyPixels(path: "image data", width: width, height: height, limit: pixelLimit))
            }
            let orientation = Int(cvips_orientation(image))
            return .success(
                Header(format: format, storedWidth: width, storedHeight: height, orientation: (1...8).contains(orientation) ? orientation : 1))
        }
        return try result.get()
    }

    /// Output formats of ``encode(_:as:)``.
    package enum Encoding: Sendable {
        /// JPEG at a quality from 0 to 1; keeps the EXIF orientation.
        case jpeg(quality: Double)
        /// PNG with the orientation applied to the pixels (PNG has no reliable orientation tag).
        case png
    }

    /// Decodes encoded image data and encodes it again.
    package static func encode(_ data: Data, as encoding: Encoding) throws(MediaError) -> Data {
        MediaProbe.initializeLibraries()
        _ = try header(of: data)
        let result: Result<Data, MediaError> = data.withUnsafeBytes { raw in
            // vips pipelines are lazy: the input bytes must stay valid until the output is written.
            guard let loaded = cvips_load_buffer(raw.baseAddress, raw.count) else {
                return .failure(.corrupt(path: "image data", reason: MediaProbe.takeVipsError()))
            }
            defer { cvips_unref(loaded) }
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            let status: Int32
            switch encoding {
            case .jpeg(let quality):
                status = cvips_jpegsave_buffer(loaded, &buffer, &length, Int32(max(1, min(100, (quality * 100).rounded()))))
            case .png:
                guard let upright = cvips_autorot(loaded) else {
                    return .failure(.corrupt(path: "image data", reason: MediaProbe.takeVipsError()))
                }
                defer { cvips_unref(upright) }
                status = cvips_pngsave_buffer(upright, &buffer, &length)
            }
            guard status == 0, let buffer else { return .failure(.corrupt(path: "image data", reason: MediaProbe.takeVipsError())) }
            defer { cvips_free(buffer) }
            return .success(Data(bytes: buffer, count: length))
        }
        return try result.get()
    }
}
