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

    /// The encoded bytes the image was created from.
    let encodedData: Data
    let header: ImageCodec.Header

    /// The image's scale factor (points to pixels).
    public let scale: CGFloat
    /// The image's orientation (from its EXIF orientation).
    public let imageOrientation: Orientation

    /// Creates an image from encoded data (JPEG, PNG, HEIC, WebP, TIFF, GIF); nil when the data is not an image.
    public init?(data: Data, scale: CGFloat = 1) {
        guard let header = try? ImageCodec.header(of: data) else { return nil }
        self.encodedData = data
        self.header = header
        self.scale = scale > 0 ? scale : 1
        self.imageOrientation = Orientation(exifOrientation: header.orientation)
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
        try? ImageCodec.encode(encodedData, as: .jpeg(quality: Double(compressionQuality)))
    }

    /// PNG data with the orientation applied to the pixels.
    open func pngData() -> Data? {
        try? ImageCodec.encode(encodedData, as: .png)
    }

    /// The bytes the image was created from, and their uniform type identifier.
    var originalRepresentation: (data: Data, uniformTypeIdentifier: String) {
        (encodedData, header.format.uniformTypeIdentifier)
    }
}

/// UIKit's function spellings.
public func UIImageJPEGRepresentation(_ image: UIImage, _ compressionQuality: CGFloat) -> Data? {
    image.jpegData(compressionQuality: compressionQuality)
}

public func UIImagePNGRepresentation(_ image: UIImage) -> Data? {
    image.pngData()
}
