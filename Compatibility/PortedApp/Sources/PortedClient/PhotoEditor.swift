// Client code written as an iOS app writes it, with no edit for Linux: `import CoreImage`, no `#if`, nothing from
// OpenPhotoKit by name.
import CoreImage
import Photos

/// The look-and-export part of a photo app: filters by name, a render, a JPEG written next to the original; and a
/// filter applied to a library photo as a non-destructive edit, the way Apple's sample code does it.
final class PhotoEditor {
    private let context = CIContext(options: [.cacheIntermediates: false])
    static let formatIdentifier = "com.example.porteditor"
    static let formatVersion = "1.0"

    /// Applies a Core Image filter to an asset as an edit that can be reopened: the filter's name is the recipe.
    /// Reopened, the earlier filter is replaced (the input is then the version before it).
    func applyFilter(
        _ filterName: String, to asset: PHAsset, in library: PHPhotoLibrary, completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        let options = PHContentEditingInputRequestOptions()
        // The original may be in iCloud (or on a photos serve): let Photos download it.
        options.isNetworkAccessAllowed = true
        options.canHandleAdjustmentData = { adjustmentData in
            adjustmentData.formatIdentifier == Self.formatIdentifier && adjustmentData.formatVersion == Self.formatVersion
        }
        asset.requestContentEditingInput(with: options) { input, info in
            guard let input = input, let url = input.fullSizeImageURL else {
                completion(false, info[PHContentEditingInputErrorKey] as? any Error)
                return
            }
            let output = PHContentEditingOutput(contentEditingInput: input)
            output.adjustmentData = PHAdjustmentData(
                formatIdentifier: Self.formatIdentifier, formatVersion: Self.formatVersion, data: filterName.data(using: .utf8)!)
            guard let inputImage = CIImage(contentsOf: url)?.oriented(forExifOrientation: input.fullSizeImageOrientation) else {
                completion(false, nil)
                return
            }
            let outputImage = inputImage.applyingFilter(filterName, parameters: [:])
            do {
                try self.context.writeJPEGRepresentation(
                    of: outputImage, to: output.renderedContentURL, colorSpace: inputImage.colorSpace ?? CGColorSpaceCreateDeviceRGB(),
                    options: [:])
            } catch {
                completion(false, error)
                return
            }
            library.performChanges(
                {
                    let request = PHAssetChangeRequest(for: asset)
                    request.contentEditingOutput = output
                }, completionHandler: completion)
        }
    }

    /// The filter an asset was last edited with by this app, when it was.
    func appliedFilter(of asset: PHAsset, completion: @escaping @Sendable (String?) -> Void) {
        let options = PHContentEditingInputRequestOptions()
        options.isNetworkAccessAllowed = true
        options.canHandleAdjustmentData = { $0.formatIdentifier == Self.formatIdentifier }
        asset.requestContentEditingInput(with: options) { input, _ in
            completion(input?.adjustmentData.flatMap { String(data: $0.data, encoding: .utf8) })
        }
    }

    /// Undoes every edit of the asset.
    func revert(_ asset: PHAsset, in library: PHPhotoLibrary, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        library.performChanges({ PHAssetChangeRequest(for: asset).revertAssetContentToOriginal() }, completionHandler: completion)
    }

    /// A sepia version of the photo at `url`, written as a JPEG at quality 0.8; its pixel size.
    func exportSepia(of url: URL, to destination: URL, intensity: Double = 0.8) throws -> CGSize? {
        guard let input = CIImage(contentsOf: url, options: [.applyOrientationProperty: true]) else { return nil }
        guard let filter = CIFilter(name: "CISepiaTone") else { return nil }
        filter.setValue(input, forKey: kCIInputImageKey)
        filter.setValue(intensity, forKey: kCIInputIntensityKey)
        guard let output = filter.outputImage else { return nil }
        let colorSpace = CGColorSpace(name: CGColorSpace.sRGB)!
        try context.writeJPEGRepresentation(
            of: output, to: destination, colorSpace: colorSpace,
            options: [kCGImageDestinationLossyCompressionQuality as CIImageRepresentationOption: 0.8])
        return output.extent.size
    }

    /// The JPEG bytes of an image at a quality, ImageIO's key written as a `CFString` turned into the option.
    func jpegData(of image: CIImage, quality: Double) -> Data? {
        let qualityKey = CIImageRepresentationOption(rawValue: kCGImageDestinationLossyCompressionQuality as String)
        let colorSpace = CGColorSpace(name: CGColorSpace.sRGB)!
        return context.jpegRepresentation(of: image, colorSpace: colorSpace, options: [qualityKey: quality])
    }

    /// The destination properties apps keep for ImageIO (`[String: Any]`, keyed by ImageIO's `CFString`s).
    static var destinationProperties: [String: Any] { [kCGImageDestinationLossyCompressionQuality as String: 0.8] }

    /// A square thumbnail from the centre of an image, as a UIImage for the UI.
    func squareThumbnail(of image: UIImage, side: CGFloat) -> UIImage? {
        guard let ciImage = CIImage(image: image) else { return nil }
        let extent = ciImage.extent
        let edge = min(extent.width, extent.height)
        let square = ciImage.cropped(to: CGRect(x: extent.midX - edge / 2, y: extent.midY - edge / 2, width: edge, height: edge))
        let scale = side / edge
        let scaled = square.transformed(by: CGAffineTransform(scaleX: scale, y: scale))
        guard let cgImage = context.createCGImage(scaled, from: scaled.extent) else { return nil }
        return UIImage(cgImage: cgImage, scale: 1, orientation: image.imageOrientation)
    }

    /// The average colour of a region, as apps compute accent colours: the region blurred and read back.
    func averageRed(of image: CIImage, in rect: CGRect) -> UInt8? {
        let blurred = image.clampedToExtent().applyingGaussianBlur(sigma: 4).cropped(to: rect)
        var pixel = [UInt8](repeating: 0, count: 4)
        context.render(
            blurred, toBitmap: &pixel, rowBytes: 4, bounds: CGRect(x: rect.midX, y: rect.midY, width: 1, height: 1), format: .RGBA8,
            colorSpace: CGColorSpaceCreateDeviceRGB())
        return pixel[0]
    }
}
