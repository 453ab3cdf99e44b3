import Foundation
import PhotoMedia
import Synchronization

/// Identifies a Live Photo request.
public typealias PHLivePhotoRequestID = Int32

/// The request ID no request has.
public let PHLivePhotoRequestIDInvalid: PHLivePhotoRequestID = 0

/// Info key: the error that kept the Live Photo from being made.
public let PHLivePhotoInfoErrorKey = "PHLivePhotoInfoErrorKey"
/// Info key: this result is not complete yet (the still only); more calls follow.
public let PHLivePhotoInfoIsDegradedKey = "PHLivePhotoInfoIsDegradedKey"
/// Info key: the request was cancelled.
public let PHLivePhotoInfoCancelledKey = "PHLivePhotoInfoCancelledKey"

/// A displayable Live Photo: a still and the short video around it, sharing one content identifier.
///
/// Not a library entry (that is a ``PHAsset`` with the `photoLive` subtype): make one from an asset with
/// ``PHImageManager/requestLivePhoto(for:targetSize:contentMode:options:resultHandler:)``, or from the two resource
/// files with ``request(withResourceFileURLs:placeholderImage:targetSize:contentMode:resultHandler:)``.
open class PHLivePhoto: NSObject, NSCopying, @unchecked Sendable {
    /// The still's size in pixels as delivered (fitted to the requested target).
    open private(set) var size: CGSize
    /// The still, rendered at ``size`` (nil for a placeholder-only result).
    let still: UIImage?
    /// OpenPhotoKit: the still's file (to play a Live Photo with a media library of your choice).
    public let photoURL: URL?
    /// OpenPhotoKit: the video's file, once the Live Photo is complete (nil in a degraded, still-only result).
    public let videoURL: URL?
    /// The library asset it came from, when it did.
    let asset: PHAsset?

    init(size: CGSize, still: UIImage?, photoURL: URL?, videoURL: URL?, asset: PHAsset?) {
        self.size = size
        self.still = still
        self.photoURL = photoURL
        self.videoURL = videoURL
        self.asset = asset
    }

    /// The same Live Photo (it is immutable).
    open func copy(with zone: NSZone? = nil) -> Any { self }

    private static let queue = DispatchQueue(label: "OpenPhotoKit.live-photos")
    private static let results = DispatchQueue(label: "OpenPhotoKit.live-photo-results")
    private static let requests = Mutex<(next: Int32, running: Set<Int32>, cancelled: Set<Int32>)>((1, [], []))

    /// Builds a Live Photo from a still and a video file (from ``PHAssetResource``s, or an iPhone's pair).
    ///
    /// The two files must carry the same Apple content identifier; otherwise the handler gets nil and
    /// `PHLivePhotoInfoErrorKey`. With a placeholder image, the first call happens before this returns (a Live Photo of
    /// the placeholder only, degraded); then a degraded one with the still, then the complete one — on a serial queue,
    /// never the main thread. A zero target size means no resizing. After ``cancelRequest(withRequestID:)`` the
    /// handler is called once more, with `PHLivePhotoInfoCancelledKey`.
    @discardableResult
    open class func request(
        withResourceFileURLs fileURLs: [URL], placeholderImage image: UIImage?, targetSize: CGSize, contentMode: PHImageContentMode,
        resultHandler: @escaping (PHLivePhoto?, [AnyHashable: Any]) -> Void
    ) -> PHLivePhotoRequestID {
        let id = requests.withLock { state -> Int32 in
            let id = state.next
            state.next = state.next == Int32.max ? 1 : state.next + 1
            state.running.insert(id)
            return id
        }
        nonisolated(unsafe) let handler = resultHandler
        if let image {
            handler(PHLivePhoto(size: image.size, still: image, photoURL: nil, videoURL: nil, asset: nil), [PHLivePhotoInfoIsDegradedKey: true])
        }
        queue.async {
            let outcome = make(fileURLs, targetSize: targetSize, contentMode: contentMode, asset: nil)
            deliver(id, outcome, handler: handler)
        }
        return id
    }

    /// Cancels a request: its handler is called once more, with `PHLivePhotoInfoCancelledKey`, and no complete result.
    open class func cancelRequest(withRequestID requestID: PHLivePhotoRequestID) {
        requests.withLock { state in
            if state.running.contains(requestID) { state.cancelled.insert(requestID) }
        }
    }

    struct Outcome: @unchecked Sendable {
        var degraded: PHLivePhoto?
        var complete: PHLivePhoto?
        var error: PHPhotosError?
    }

    static func deliver(_ id: Int32, _ outcome: Outcome, handler: @escaping (PHLivePhoto?, [AnyHashable: Any]) -> Void) {
        nonisolated(unsafe) let handler = handler
        results.async {
            defer { requests.withLock { _ = $0.running.remove(id) } }
            let cancelled = requests.withLock { $0.cancelled.remove(id) != nil }
            if cancelled {
                handler(nil, [PHLivePhotoInfoCancelledKey: true])
                return
            }
            if let error = outcome.error {
                handler(nil, [PHLivePhotoInfoErrorKey: error])
                return
            }
            if let degraded = outcome.degraded { handler(degraded, [PHLivePhotoInfoIsDegradedKey: true]) }
            if requests.withLock({ $0.cancelled.remove(id) != nil }) {
                handler(nil, [PHLivePhotoInfoCancelledKey: true])
                return
            }
            handler(outcome.complete, [PHLivePhotoInfoIsDegradedKey: false])
        }
    }

    /// Checks the pair and renders the still.
    /// With an `asset`, the files are its own (the library paired them), and an edited still — which carries no
    /// maker note — need not repeat the video's content identifier.
    static func make(_ urls: [URL], targetSize: CGSize, contentMode: PHImageContentMode, asset: PHAsset?) -> Outcome {
        func failure(_ message: String, _ code: PHPhotosError.Code = .invalidResource) -> Outcome {
            Outcome(degraded: nil, complete: nil, error: PHPhotosError(code, userInfo: [NSLocalizedDescriptionKey: message]))
        }
        let probe = MediaProbe()
        var still: (URL, MediaInfo)?
        var video: (URL, MediaInfo)?
        for url in urls {
            guard let info = try? probe.probe(url) else { return failure("\(url.lastPathComponent) is not a readable photo or video") }
            if info.isImage {
                if still != nil { return failure("a Live Photo has one still; two were given") }
                still = (url, info)
            } else {
                if video != nil { return failure("a Live Photo has one video; two were given") }
                video = (url, info)
            }
        }
        guard let still, let video else { return failure("a Live Photo needs a still and a video") }
        guard asset != nil || (still.1.metadata.contentIdentifier != nil && still.1.metadata.contentIdentifier == video.1.metadata.contentIdentifier)
        else {
            return failure(
                "the still and the video do not share a content identifier (\(still.1.metadata.contentIdentifier ?? "none") / \(video.1.metadata.contentIdentifier ?? "none"))"
            )
        }
        let target: (width: Int, height: Int)? =
            targetSize.width > 0 && targetSize.height > 0 ? (Int(targetSize.width.rounded(.up)), Int(targetSize.height.rounded(.up))) : nil
        let request = RenderRequest(target: target, fit: contentMode == .aspectFill ? .fill : .fit, resize: target == nil ? .none : .exact)
        guard
            let pixels = try? ImageRenderer.render(
                still.0.path, displayWidth: still.1.pixelWidth, displayHeight: still.1.pixelHeight, request: request)
        else { return failure("cannot render \(still.0.lastPathComponent)") }
        let image = UIImage(pixels: pixels)
        let size = CGSize(width: pixels.width, height: pixels.height)
        return Outcome(
            degraded: PHLivePhoto(size: size, still: image, photoURL: still.0, videoURL: nil, asset: asset),
            complete: PHLivePhoto(size: size, still: image, photoURL: still.0, videoURL: video.0, asset: asset), error: nil)
    }

    open override var description: String {
        "<PHLivePhoto: \(Int(size.width))x\(Int(size.height))\(videoURL == nil ? " (still only)" : "")>"
    }
}

/// Options for ``PHImageManager/requestLivePhoto(for:targetSize:contentMode:options:resultHandler:)``.
open class PHLivePhotoRequestOptions: NSObject, NSCopying, @unchecked Sendable {
    /// Which version (the same files until editing exists).
    open var version: PHImageRequestOptionsVersion = .current
    /// `.opportunistic` delivers the still first, then the complete Live Photo; the others deliver once.
    open var deliveryMode: PHImageRequestOptionsDeliveryMode = .opportunistic
    /// Whether the still and video may be downloaded when this machine has no copy of them (object storage; Apple's:
    /// iCloud). Without it such a request answers nil with `PHImageResultIsInCloudKey`.
    open var isNetworkAccessAllowed = false
    /// A download's progress. Not called yet: a Live Photo's files are downloaded without it (OpenPhotoKit).
    open var progressHandler: PHAssetImageProgressHandler?

    /// Default options.
    public override init() {}

    /// A copy with the same settings.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = PHLivePhotoRequestOptions()
        copy.version = version
        copy.deliveryMode = deliveryMode
        copy.isNetworkAccessAllowed = isNetworkAccessAllowed
        copy.progressHandler = progressHandler
        return copy
    }
}
