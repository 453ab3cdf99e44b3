import Foundation

/// Why a context could not render an image (what Core Image reports as a nil result or a thrown error).
public enum CIRenderError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The image (or the rectangle asked for) reaches to infinity: crop it first.
    case infiniteExtent
    /// The rectangle asked for is empty.
    case emptyRect
    /// The rectangle is larger than a context renders (pixels).
    case tooLarge(pixels: Int, limit: Int)
    /// A colour space this renderer cannot produce.
    case unsupportedColorSpace(String)
    /// A pixel format this renderer cannot produce for that destination.
    case unsupportedFormat(String)
    /// The source image could not be decoded, or libvips failed.
    case decoding(String)
    /// Writing the file failed.
    case writing(String)

    static func vips(_ error: VipsError) -> CIRenderError { .decoding(error.description) }

    /// A description for logs.
    public var description: String {
        switch self {
        case .infiniteExtent: "The image has an infinite extent; crop it (cropped(to:)) before rendering."
        case .emptyRect: "The rectangle to render is empty."
        case .tooLarge(let pixels, let limit): "Rendering \(pixels) pixels exceeds the limit of \(limit)."
        case .unsupportedColorSpace(let space): "Cannot render into the colour space \(space)."
        case .unsupportedFormat(let format): "Cannot render the pixel format \(format) here."
        case .decoding(let reason): "The image could not be rendered: \(reason)"
        case .writing(let reason): "The image could not be written: \(reason)"
        }
    }

    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
