import Foundation

/// Identifies an image request (0 is never a valid request).
public typealias PHImageRequestID = Int32

/// The request ID no request has.
public let PHInvalidImageRequestID: PHImageRequestID = 0

/// Asks for the largest image available: no scaling, no cropping; the resize mode is ignored.
public let PHImageManagerMaximumSize = CGSize(width: -1, height: -1)

/// Info key: the data is in iCloud (never, for an OpenPhotoKit library: every resource is on its disk).
public let PHImageResultIsInCloudKey = "PHImageResultIsInCloudKey"
/// Info key: this result is a temporary low-quality image; the final one follows unless the request is cancelled.
public let PHImageResultIsDegradedKey = "PHImageResultIsDegradedKey"
/// Info key: the request's ID (an `Int32` in an `NSNumber`).
public let PHImageResultRequestIDKey = "PHImageResultRequestIDKey"
/// Info key: no image, because the request was cancelled.
public let PHImageCancelledKey = "PHImageCancelledKey"
/// Info key: the error that kept the image from being delivered.
public let PHImageErrorKey = "PHImageErrorKey"

/// How an image fits the target size.
public enum PHImageContentMode: Int, Sendable, CaseIterable {
    /// The whole image within the target size, keeping its aspect ratio.
    case aspectFit = 0
    /// The target size filled, keeping the aspect ratio (the image may be clipped).
    case aspectFill = 1

    /// `aspectFit`.
    public static let `default` = PHImageContentMode.aspectFit
}

/// Which version of an asset's image to render.
public enum PHImageRequestOptionsVersion: Int, Sendable, CaseIterable {
    /// With the latest edits (the original when there are none).
    case current = 0
    /// Without edits.
    case unadjusted = 1
    /// The original file's image at its highest fidelity.
    case original = 2
}

/// How many results a request delivers, and of which quality.
public enum PHImageRequestOptionsDeliveryMode: Int, Sendable, CaseIterable {
    /// A degraded image first when that is quicker, then the final one (async only; synchronous requests get one).
    case opportunistic = 0
    /// One result, of the quality asked or better.
    case highQualityFormat = 1
    /// One result, as quickly as possible; it may be of lower quality (async only).
    case fastFormat = 2
}

/// How exactly the delivered size matches the target size.
public enum PHImageRequestOptionsResizeMode: Int, Sendable, CaseIterable {
    /// No resizing.
    case none = 0
    /// Efficient resizing: the result may be a little larger than the target.
    case fast = 1
    /// Exactly the target size (aspectFit: within it, touching it; aspectFill: equal to it). Required with a crop.
    case exact = 2
}

/// Reports download progress from iCloud (`progress`, an error, a flag to stop, info). An OpenPhotoKit library keeps
/// everything on its disk, so this is never called — as on Apple platforms for local data.
public typealias PHAssetImageProgressHandler = @Sendable (Double, (any Error)?, UnsafeMutablePointer<ObjCBool>, [AnyHashable: Any]?) -> Void

/// Options for an image request.
open class PHImageRequestOptions: NSObject, NSCopying, @unchecked Sendable {
    /// Which version of the image (default `.current`).
    open var version: PHImageRequestOptionsVersion = .current
    /// How many results and of which quality (default `.opportunistic`).
    open var deliveryMode: PHImageRequestOptionsDeliveryMode = .opportunistic
    /// How exactly the size is met (default `.fast`).
    open var resizeMode: PHImageRequestOptionsResizeMode = .fast
    /// A crop in unit coordinates of the image as displayed ((0, 0) top left, (1, 1) bottom right); needs
    /// `resizeMode = .exact`. `.zero` (the default) crops nothing.
    open var normalizedCropRect: CGRect = .zero
    /// Whether an original this machine has no copy of (a library whose files are in object storage; Apple's:
    /// iCloud) may be downloaded. Without it, such a request answers from what is here — a cached rendering, marked
    /// with `PHImageResultIsInCloudKey` — or nil with that key and `networkAccessRequired`.
    open var isNetworkAccessAllowed = false
    /// Whether the request blocks and calls its handler once, on the calling thread (then the delivery mode counts
    /// as `.highQualityFormat`, and the request cannot be cancelled).
    open var isSynchronous = false
    /// A download's progress, 0 to 1, on a serial queue of the request's own; setting `stop` ends the download
    /// (`userCancelled`). Never called for what is already here.
    open var progressHandler: PHAssetImageProgressHandler?
    /// Whether a second degraded image may be delivered (there is at most one here).
    open var allowSecondaryDegradedImage = false

    /// Default options.
    public override init() {}

    /// A copy with the same settings.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = PHImageRequestOptions()
        copy.version = version
        copy.deliveryMode = deliveryMode
        copy.resizeMode = resizeMode
        copy.normalizedCropRect = normalizedCropRect
        copy.isNetworkAccessAllowed = isNetworkAccessAllowed
        copy.isSynchronous = isSynchronous
        copy.progressHandler = progressHandler
        copy.allowSecondaryDegradedImage = allowSecondaryDegradedImage
        return copy
    }
}
