import CVipsShims
import Foundation

/// An image as Core Image sees it: a recipe, not pixels.
///
/// Making an image reads at most a file's header; every operation (`cropped(to:)`, `transformed(by:)`,
/// `applyingFilter(_:parameters:)` …) returns a new image that adds a step to the recipe. Nothing is decoded or
/// computed until a ``CIContext`` renders, and then the whole chain runs as one libvips pipeline, in strips, without
/// full-size intermediate images.
///
/// Coordinates are Core Image's: the origin at the bottom left and y upwards. Pixels are processed in linear light
/// with float precision (extended linear sRGB), premultiplied by alpha, as Core Image's working space.
public final class CIImage: NSObject, @unchecked Sendable {
    let node: ImageNode
    /// The file's metadata (EXIF, TIFF and GPS dictionaries, `Orientation`, `PixelWidth` …), empty for images
    /// not made from a file.
    public let properties: [String: Any]
    let sampling: TransformNode.Sampling
    /// The file the image was made from, if any.
    public let url: URL?
    /// The ``CGImage`` the image was made from, if any.
    public let cgImage: CGImage?
    /// The colour space of the source's pixels (nil for images that are not made from pixels).
    public let colorSpace: CGColorSpace?

    init(
        node: ImageNode, properties: [String: Any] = [:], sampling: TransformNode.Sampling = .linear, url: URL? = nil,
        cgImage: CGImage? = nil, colorSpace: CGColorSpace? = nil
    ) {
        self.node = node
        self.properties = properties
        self.sampling = sampling
        self.url = url
        self.cgImage = cgImage
        self.colorSpace = colorSpace
    }

    /// The same recipe, metadata and source (what `CIImage(image:)` of a recipe-backed UIImage gives).
    package convenience init(copying image: CIImage) {
        self.init(
            node: image.node, properties: image.properties, sampling: image.sampling, url: image.url, cgImage: image.cgImage,
            colorSpace: image.colorSpace)
    }

    private func deriving(_ node: ImageNode) -> CIImage {
        CIImage(node: node, properties: properties, sampling: sampling)
    }

    // MARK: Sources

    /// The image in a file (JPEG, PNG, HEIC, WebP, TIFF, GIF); nil when it cannot be read as an image.
    public convenience init?(contentsOf url: URL) { self.init(contentsOf: url, options: nil) }

    /// The image in a file, with ``CIImageOption``s: `.applyOrientationProperty` (false by default) turns the pixels
    /// as the file's orientation says; `.colorSpace` overrides the file's profile; `.properties` replaces the
    /// metadata; `.nearestSampling`.
    public convenience init?(contentsOf url: URL, options: [CIImageOption: Any]? = nil) {
        guard url.isFileURL, let source = SourceNode(origin: .file(url.path), colorSpace: options?[.colorSpace] as? CGColorSpace)
        else { return nil }
        self.init(source: source, options: options, url: url)
    }

    /// The image in encoded bytes; nil when they are not an image.
    public convenience init?(data: Data) { self.init(data: data, options: nil) }

    /// The image in encoded bytes, with ``CIImageOption``s as for files; nil when they are not an image.
    public convenience init?(data: Data, options: [CIImageOption: Any]? = nil) {
        guard let source = SourceNode(origin: .data(data), colorSpace: options?[.colorSpace] as? CGColorSpace) else { return nil }
        self.init(source: source, options: options, url: nil)
    }

    /// The pixels of a ``CGImage`` (rows from the top, as CoreGraphics stores them: the first row is the top of the
    /// image in Core Image's coordinates too).
    public convenience init(cgImage: CGImage) { self.init(cgImage: cgImage, options: nil) }

    /// The pixels of a ``CGImage``, with ``CIImageOption``s (`.colorSpace` overrides its space).
    public convenience init(cgImage: CGImage, options: [CIImageOption: Any]? = nil) {
        let source = SourceNode(origin: .pixels(cgImage), colorSpace: options?[.colorSpace] as? CGColorSpace)!
        self.init(source: source, options: options, url: nil, cgImage: cgImage)
    }

    private convenience init(source: SourceNode, options: [CIImageOption: Any]?, url: URL?, cgImage: CGImage? = nil) {
        let options = options ?? [:]
        var node: ImageNode = source
        var properties = (options[.properties] as? [String: Any]) ?? source.properties
        let nearest = (options[.nearestSampling] as? Bool) ?? false
        if (options[.applyOrientationProperty] as? Bool) == true {
            let orientation = (properties["Orientation"] as? Int) ?? source.orientation
            if orientation > 1, let o = CGImagePropertyOrientation(rawValue: UInt32(orientation)) {
                node = TransformNode(node, CIImage.orientationTransform(o, extent: node.extent), sampling: .linear)
                properties["Orientation"] = 1
            }
        }
        self.init(
            node: node, properties: properties, sampling: nearest ? .nearest : .linear, url: url, cgImage: cgImage,
            colorSpace: source.colorSpace)
    }

    /// A colour everywhere: an image of infinite extent (crop it before rendering).
    public convenience init(color: CIColor) { self.init(node: ColorNode(rgba: color.workingRGBA)) }

    /// An image with nothing in it (an empty extent).
    public static func empty() -> CIImage { CIImage(node: EmptyNode()) }

    /// Black everywhere (infinite extent).
    public static var black: CIImage { CIImage(color: .black) }
    /// White everywhere (infinite extent).
    public static var white: CIImage { CIImage(color: .white) }
    /// Grey everywhere (infinite extent).
    public static var gray: CIImage { CIImage(color: .gray) }
    /// Red everywhere (infinite extent).
    public static var red: CIImage { CIImage(color: .red) }
    /// Green everywhere (infinite extent).
    public static var green: CIImage { CIImage(color: .green) }
    /// Blue everywhere (infinite extent).
    public static var blue: CIImage { CIImage(color: .blue) }
    /// Cyan everywhere (infinite extent).
    public static var cyan: CIImage { CIImage(color: .cyan) }
    /// Magenta everywhere (infinite extent).
    public static var magenta: CIImage { CIImage(color: .magenta) }
    /// Yellow everywhere (infinite extent).
    public static var yellow: CIImage { CIImage(color: .yellow) }
    /// Transparent everywhere (infinite extent).
    public static var clear: CIImage { CIImage(color: .clear) }

    // MARK: Geometry

    /// The rectangle the image covers, in Core Image's coordinates (`.infinite` for generators and clamped images,
    /// `.null` for an empty image).
    public var extent: CGRect { node.extent }

    /// The same image with other metadata (what a context writes as EXIF where the format allows).
    public func settingProperties(_ properties: [AnyHashable: Any]) -> CIImage {
        var dictionary: [String: Any] = [:]
        for (key, value) in properties { dictionary["\(key.base)"] = value }
        return CIImage(node: node, properties: dictionary, sampling: sampling, url: url, cgImage: cgImage, colorSpace: colorSpace)
    }

    /// The part of the image inside `rect` (the extent becomes the intersection; of an infinite image, `rect`).
    public func cropped(to rect: CGRect) -> CIImage { deriving(CropNode(node, to: rect)) }

    /// The image under an affine transform (bilinear sampling unless ``samplingNearest()``).
    public func transformed(by matrix: CGAffineTransform) -> CIImage {
        deriving(TransformNode.fused(node, matrix, sampling: sampling))
    }

    /// The image under an affine transform; downscales use a Lanczos kernel when `highQualityDownsample` is true.
    public func transformed(by matrix: CGAffineTransform, highQualityDownsample: Bool) -> CIImage {
        deriving(TransformNode.fused(node, matrix, sampling: highQualityDownsample ? .highQuality : sampling))
    }

    /// The transform that turns an image of this extent as an EXIF orientation says (1–8), keeping the origin.
    public func orientationTransform(forExifOrientation orientation: Int32) -> CGAffineTransform {
        guard let o = CGImagePropertyOrientation(rawValue: UInt32(orientation)) else { return .identity }
        return Self.orientationTransform(o, extent: extent)
    }

    /// The transform that turns an image of this extent as `orientation` says, keeping the origin.
    public func orientationTransform(for orientation: CGImagePropertyOrientation) -> CGAffineTransform {
        Self.orientationTransform(orientation, extent: extent)
    }

    /// The image turned as an EXIF orientation (1–8) says: what a viewer shows of a file with that orientation.
    /// The result's ``properties`` say orientation 1 (up), so a file written from it is not turned a second time.
    public func oriented(forExifOrientation orientation: Int32) -> CIImage {
        transformed(by: orientationTransform(forExifOrientation: orientation)).uprightProperties()
    }

    /// The image turned as `orientation` says: what a viewer shows of a file with that orientation.
    /// The result's ``properties`` say orientation 1 (up), so a file written from it is not turned a second time.
    public func oriented(_ orientation: CGImagePropertyOrientation) -> CIImage {
        transformed(by: orientationTransform(for: orientation)).uprightProperties()
    }

    /// This image with its properties' orientation (top level and TIFF's) set to 1, where they had one.
    private func uprightProperties() -> CIImage {
        guard properties["Orientation"] != nil || (properties["{TIFF}"] as? [String: Any])?["Orientation"] != nil else { return self }
        var upright = properties
        if upright["Orientation"] != nil { upright["Orientation"] = 1 }
        if var tiff = upright["{TIFF}"] as? [String: Any], tiff["Orientation"] != nil {
            tiff["Orientation"] = 1
            upright["{TIFF}"] = tiff
        }
        return CIImage(node: node, properties: upright, sampling: sampling, url: url, cgImage: cgImage, colorSpace: colorSpace)
    }

    static func orientationTransform(_ orientation: CGImagePropertyOrientation, extent: CGRect) -> CGAffineTransform {
        guard !extent.isNull, !extent.isEffectivelyInfinite else { return .identity }
        let (w, h) = (extent.width, extent.height)
        let base: CGAffineTransform
        switch orientation {
        case .up: return .identity
        case .upMirrored: base = CGAffineTransform(a: -1, b: 0, c: 0, d: 1, tx: w, ty: 0)
        case .down: base = CGAffineTransform(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
        case .downMirrored: base = CGAffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: h)
        case .leftMirrored: base = CGAffineTransform(a: 0, b: -1, c: -1, d: 0, tx: h, ty: w)
        case .right: base = CGAffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
        case .rightMirrored: base = CGAffineTransform(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)
        case .left: base = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
        }
        let (ox, oy) = (extent.minX, extent.minY)
        return CGAffineTransform(translationX: -ox, y: -oy).concatenating(base).concatenating(CGAffineTransform(translationX: ox, y: oy))
    }

    /// The image's edge pixels repeated to infinity (so blurs do not darken the edges).
    public func clampedToExtent() -> CIImage { deriving(ClampNode(node)) }

    /// The part inside `rect`, then its edges repeated to infinity.
    public func clamped(to rect: CGRect) -> CIImage { cropped(to: rect).clampedToExtent() }

    /// This image over `dest` (Porter-Duff source-over, premultiplied): the extent is the union of both.
    public func composited(over dest: CIImage) -> CIImage {
        deriving(CompositeNode(node, over: dest.node) { (front, back) throws(VipsError) -> VImage in try Blend.sourceOver(front, back) })
    }

    /// Sampling with bilinear interpolation in later transforms (the default).
    public func samplingLinear() -> CIImage {
        CIImage(node: node, properties: properties, sampling: .linear, url: url, cgImage: cgImage, colorSpace: colorSpace)
    }

    /// Sampling the nearest pixel in later transforms (for pixel art and masks).
    public func samplingNearest() -> CIImage {
        CIImage(node: node, properties: properties, sampling: .nearest, url: url, cgImage: cgImage, colorSpace: colorSpace)
    }

    /// The image with alpha set to 1 inside `extent` (colours as they were premultiplied), unchanged outside.
    public func settingAlphaOne(in extent: CGRect) -> CIImage {
        let opaque = RGBAKernelNode(node, keepsOpacity: false) { (image) throws(VipsError) -> VImage in
            let colours = try image.band(0, count: 3)
            return try VipsCall("bandjoin_const").image("in", colours).doubles("c", [1]).output()
        }
        return deriving(opaque).cropped(to: extent).composited(over: self)
    }

    // MARK: Filters

    /// The output of the filter named `filterName` with this image as its `inputImage` and the other inputs given;
    /// an empty image when there is no such filter (Core Image's nil output).
    public func applyingFilter(_ filterName: String, parameters params: [String: Any]) -> CIImage {
        guard let filter = CIFilter(name: filterName) else { return .empty() }
        filter.setValue(self, forKey: kCIInputImageKey)
        for (key, value) in params { filter.setValue(value, forKey: key) }
        return filter.outputImage ?? .empty()
    }

    /// The output of the filter named `filterName` with its default inputs.
    public func applyingFilter(_ filterName: String) -> CIImage { applyingFilter(filterName, parameters: [:]) }

    /// A Gaussian blur of standard deviation `sigma` (the extent grows by 3σ; clamp first to keep the edges).
    public func applyingGaussianBlur(sigma: Double) -> CIImage {
        applyingFilter("CIGaussianBlur", parameters: [kCIInputRadiusKey: sigma])
    }

    public override var description: String { "<CIImage extent \(extent)>" }
}
