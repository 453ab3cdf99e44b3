import Foundation
import PhotoMedia

/// The shape of UIKit's `UIImage` for Linux: an immutable image with a size in points, a scale and an
/// orientation, created from encoded data or a file and encoded again as JPEG or PNG.
///
/// Ported code that creates assets from images (`PHAssetChangeRequest.creationRequestForAsset(from:)`) compiles
/// and runs unchanged. The image keeps the bytes it was made from, so an asset created from it keeps them too.
open class UIImage: NSObject, @unchecked Sendable {
    /// How an image is oriented (UIKit's raw values).
    public enum Orientation: Int, Sendable, CaseIterable {
        case up = 0, down, left, right, upMirrored, downMirrored, leftMirrored, rightMirrored

        /// The orientation for an EXIF orientation value (1–8).
        public init(exifOrientation: Int) {
            switch exifOrientation {
            case 2: self = .upMirrored
            case 3: self = .down
            case 4: self = .downMirrored
            case 5: self = .leftMirrored
            case 6: self = .right
            case 7: self = .rightMirrored
            case 8: self = .left
            default: self = .up
            }
        }
    }

    /// The encoded bytes the image was created from (empty for a rendered image).
    let encodedData: Data
    let header: ImageCodec.Header
    /// Decoded pixels, display-oriented sRGB: what the image manager delivers.
    let pixels: PixelBuffer?

    /// The image's scale factor (points to pixels).
    public let scale: CGFloat
    /// The image's orientation (from its EXIF orientation).
    public let imageOrientation: Orientation

    /// Creates an image from encoded data (JPEG, PNG, HEIC, WebP, TIFF, GIF); nil when the data is not an image.
    public init?(data: Data, scale: CGFloat = 1) {
        guard let header = try? ImageCodec.header(of: data) else { return nil }
        self.encodedData = data
        self.header = header
        self.pixels = nil
        self.scale = scale > 0 ? scale : 1
        self.imageOrientation = Orientation(exifOrientation: header.orientation)
    }

    /// An image of decoded pixels (upright, sRGB), as ``PHImageManager`` delivers them.
    init(pixels: PixelBuffer, scale: CGFloat = 1) {
        self.encodedData = Data()
        self.header = ImageCodec.Header(format: .png, storedWidth: pixels.width, storedHeight: pixels.height, orientation: 1)
        self.pixels = pixels
        self.scale = scale > 0 ? scale : 1
        self.imageOrientation = .up
    }

    /// OpenPhotoKit: the pixel at (x, y) of the displayed image, from the top left, as 8-bit sRGB with alpha.
    /// Decodes the image first when it was made from encoded data.
    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)? {
        guard let buffer = decodedPixels, x >= 0, y >= 0, x < buffer.width, y < buffer.height else { return nil }
        let p = buffer.pixel(x: x, y: y)
        return (p.r, p.g, p.b, p.a)
    }

    /// OpenPhotoKit: bytes the decoded image holds in memory (what caches count).
    public var memoryCost: Int { pixels?.bytes.count ?? encodedData.count }

    private var decodedPixels: PixelBuffer? {
        if let pixels { return pixels }
        return try? ImageRenderer.pixels(fromEncoded: encodedData)
    }

    /// Creates an image from a file; nil when the file cannot be read or is not an image.
    public convenience init?(contentsOfFile path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.init(data: data)
    }

    /// The size in points as displayed (orientation applied).
    open var size: CGSize {
        let swaps = (5...8).contains(header.orientation)
        let width = CGFloat(swaps ? header.storedHeight : header.storedWidth) / scale
        let height = CGFloat(swaps ? header.storedWidth : header.storedHeight) / scale
        return CGSize(width: width, height: height)
    }

    /// JPEG data at a quality from 0 (most compressed) to 1; the orientation is kept in the EXIF data.
    open func jpegData(compressionQuality: CGFloat) -> Data? {
        if let pixels { return try? pixels.encoded(as: .jpeg, quality: Double(compressionQuality)) }
        return try? ImageCodec.encode(encodedData, as: .jpeg(quality: Double(compressionQuality)))
    }

    /// OpenPhotoKit: WebP data at a quality from 0 to 1 (the pixels as displayed).
    public func webpData(compressionQuality: CGFloat) -> Data? {
        (decodedPixels).flatMap { try? $0.encoded(as: .webp, quality: Double(compressionQuality)) }
    }

    /// OpenPhotoKit: HEIC data at a quality from 0 to 1 (the pixels as displayed).
    public func heicData(compressionQuality: CGFloat) -> Data? {
        (decodedPixels).flatMap { try? $0.encoded(as: .heic, quality: Double(compressionQuality)) }
    }

    /// PNG data with the orientation applied to the pixels.
    open func pngData() -> Data? {
        if let pixels { return try? pixels.encoded(as: .png) }
        return try? ImageCodec.encode(encodedData, as: .png)
    }

    /// The bytes the image was created from, and their uniform type identifier.
    var originalRepresentation: (data: Data, uniformTypeIdentifier: String) {
        if let pixels, let png = try? pixels.encoded(as: .png) { return (png, "public.png") }
        return (encodedData, header.format.uniformTypeIdentifier)
    }
}

/// UIKit's function spellings.
public func UIImageJPEGRepresentation(_ image: UIImage, _ compressionQuality: CGFloat) -> Data? {
    image.jpegData(compressionQuality: compressionQuality)
}

public func UIImagePNGRepresentation(_ image: UIImage) -> Data? {
    image.pngData()
}
