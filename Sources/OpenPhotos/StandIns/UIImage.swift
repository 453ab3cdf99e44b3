import Foundation
import OpenCoreImage
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

        /// The EXIF orientation value (1–8) of this orientation.
        public var exifOrientation: Int {
            switch self {
            case .up: 1
            case .upMirrored: 2
            case .down: 3
            case .downMirrored: 4
            case .leftMirrored: 5
            case .right: 6
            case .rightMirrored: 7
            case .left: 8
            }
        }
    }

    /// The encoded bytes the image was created from (empty for a rendered image).
    let encodedData: Data
    let header: ImageCodec.Header
    /// Decoded pixels, display-oriented sRGB: what the image manager delivers.
    let pixels: PixelBuffer?
    /// The bitmap the image was made from with ``init(cgImage:scale:orientation:)``.
    private let madeFromCGImage: CGImage?
    /// The Core Image recipe the image was made from with ``init(ciImage:scale:orientation:)``.
    public let ciImage: CIImage?

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
        self.madeFromCGImage = nil
        self.ciImage = nil
        self.scale = scale > 0 ? scale : 1
        self.imageOrientation = Orientation(exifOrientation: header.orientation)
    }

    /// An image of decoded pixels (upright, sRGB), as ``PHImageManager`` delivers them.
    init(pixels: PixelBuffer, scale: CGFloat = 1) {
        self.encodedData = Data()
        self.header = ImageCodec.Header(format: .png, storedWidth: pixels.width, storedHeight: pixels.height, orientation: 1)
        self.pixels = pixels
        self.madeFromCGImage = nil
        self.ciImage = nil
        self.scale = scale > 0 ? scale : 1
        self.imageOrientation = .up
    }

    /// An image of a bitmap, shown turned as `orientation` says (the bitmap keeps its stored pixels, as UIKit's).
    public init(cgImage: CGImage, scale: CGFloat = 1, orientation: Orientation = .up) {
        self.encodedData = Data()
        self.header = ImageCodec.Header(
            format: .png, storedWidth: cgImage.width, storedHeight: cgImage.height, orientation: orientation.exifOrientation)
        self.pixels = nil
        self.madeFromCGImage = cgImage
        self.ciImage = nil
        self.scale = scale > 0 ? scale : 1
        self.imageOrientation = orientation
    }

    /// An empty image (size zero), as UIKit's `UIImage()`.
    public convenience override init() { self.init(ciImage: CIImage.empty()) }

    /// An image of a Core Image recipe (rendered when its bytes are asked for); its size is the recipe's extent.
    public init(ciImage: CIImage, scale: CGFloat = 1, orientation: Orientation = .up) {
        self.encodedData = Data()
        let extent = ciImage.extent.isEffectivelyFinite ? ciImage.extent : .zero
        self.header = ImageCodec.Header(
            format: .png, storedWidth: Int(extent.width.rounded(.up)), storedHeight: Int(extent.height.rounded(.up)),
            orientation: orientation.exifOrientation)
        self.pixels = nil
        self.madeFromCGImage = nil
        self.ciImage = ciImage
        self.scale = scale > 0 ? scale : 1
        self.imageOrientation = orientation
    }

    /// The bitmap of the image's stored pixels (not turned by ``imageOrientation``, as UIKit's); nil for an image
    /// made from a ``CIImage``, as UIKit's.
    public var cgImage: CGImage? {
        if ciImage != nil { return nil }
        if let madeFromCGImage { return madeFromCGImage }
        if let pixels {
            return CGImage(
                width: pixels.width, height: pixels.height, bitsPerComponent: 8, components: pixels.bands,
                bitmapInfo: CGBitmapInfo(alphaInfo: pixels.bands == 4 ? .last : .none),
                colorSpace: CGColorSpaceCreateDeviceRGB(), bytes: pixels.bytes)
        }
        guard let image = CIImage(data: encodedData) else { return nil }
        return CIContext.bitmaps.createCGImage(image, from: image.extent)
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
        if madeFromCGImage != nil || ciImage != nil { return renderedPixels }
        return try? ImageRenderer.pixels(fromEncoded: encodedData)
    }

    /// The bitmap or recipe turned as the orientation says, in 8-bit sRGB with alpha.
    private var renderedPixels: PixelBuffer? {
        var image: CIImage
        if let ciImage {
            image = ciImage
        } else if let madeFromCGImage {
            image = CIImage(cgImage: madeFromCGImage)
        } else {
            return nil
        }
        image = image.oriented(forExifOrientation: Int32(imageOrientation.exifOrientation))
        guard image.extent.isEffectivelyFinite,
            let rendered = CIContext.shared.createCGImage(image, from: image.extent, format: .RGBA8, colorSpace: nil),
            let data = rendered.dataProvider?.data
        else { return nil }
        let bytes = data as Data
        return PixelBuffer(width: rendered.width, height: rendered.height, bands: 4, bytes: bytes)
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
        if let pixels = pixels ?? (encodedData.isEmpty ? renderedPixels : nil) {
            return try? pixels.encoded(as: .jpeg, quality: Double(compressionQuality))
        }
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
        if let pixels = pixels ?? (encodedData.isEmpty ? renderedPixels : nil) { return try? pixels.encoded(as: .png) }
        return try? ImageCodec.encode(encodedData, as: .png)
    }

    /// The bytes the image was created from, and their uniform type identifier.
    var originalRepresentation: (data: Data, uniformTypeIdentifier: String) {
        if let pixels = pixels ?? (encodedData.isEmpty ? renderedPixels : nil), let png = try? pixels.encoded(as: .png) {
            return (png, "public.png")
        }
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

extension CIImage {
    /// The image's pixels as Core Image sees them (stored, not turned by the image's orientation, as Apple's);
    /// nil for an image with no pixels.
    public convenience init?(image: UIImage) { self.init(image: image, options: nil) }

    /// The image's pixels as Core Image sees them, with options (`.colorSpace` and the rest, as for a `CGImage`); not
    /// turned by the image's orientation, as Apple's (apply `imageOrientation` with ``oriented(_:)``).
    public convenience init?(image: UIImage, options: [CIImageOption: Any]?) {
        if let ciImage = image.ciImage {
            self.init(ciImage: ciImage)
        } else if let cgImage = image.cgImage {
            self.init(cgImage: cgImage, options: options)
        } else {
            return nil
        }
    }

    /// The image unchanged (for `CIImage(image:)` of an image made from a recipe).
    convenience init(ciImage: CIImage) {
        self.init(copying: ciImage)
    }
}

extension CIContext {
    /// The context UIImage renders with: straight alpha, as its encoders take it.
    static let shared = CIContext(options: [.outputPremultiplied: false])

    /// The context UIImage makes bitmaps with (premultiplied RGBA, as Core Graphics' decoders give).
    static let bitmaps = CIContext()
}

extension CGRect {
    var isEffectivelyFinite: Bool { !isNull && !isInfinite && abs(width) < 1e15 && abs(height) < 1e15 }
}
