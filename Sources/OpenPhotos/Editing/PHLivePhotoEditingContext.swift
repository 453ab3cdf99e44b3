import Foundation
import PhotoMedia
import Synchronization

/// Whether a Live Photo frame is the still photo or a frame of the video.
public enum PHLivePhotoFrameType: Int, Sendable {
    case photo = 0
    case video = 1
}

/// One frame a Live Photo's frame processor is asked to edit.
public protocol PHLivePhotoFrame {
    /// The frame (the still at its stored orientation, or a video frame as stored).
    var image: CIImage { get }
    /// Its time in the Live Photo's video (the still's is ``PHLivePhotoEditingContext/photoTime``).
    var time: CMTime { get }
    /// Still or video frame.
    var type: PHLivePhotoFrameType { get }
    /// The scale of this rendering to the full size: 1 when saving, less for a playback preview. Scale
    /// sizes in pixels (a blur radius, a stroke) by it.
    var renderScale: CGFloat { get }
}

/// Edits one Live Photo frame; nil (with `error` set) aborts the rendering.
public typealias PHLivePhotoFrameProcessingBlock = (any PHLivePhotoFrame, NSErrorPointer) -> CIImage?

/// Option of ``PHLivePhotoEditingContext/prepareLivePhotoForPlayback(withTargetSize:options:completionHandler:)``:
/// render frames as they play instead of before (accepted; the preview is always rendered before here).
public let PHLivePhotoShouldRenderAtPlaybackTime = "PHLivePhotoShouldRenderAtPlaybackTime"

/// Edits a Live Photo — its still and every frame of its video — with one frame processor, as PhotoKit's editing
/// context does.
///
/// ```swift
/// guard let context = PHLivePhotoEditingContext(livePhotoEditingInput: input) else { return }  // not a Live Photo
/// context.frameProcessor = { frame, _ in frame.image.applyingFilter("CIPhotoEffectNoir") }
/// let output = PHContentEditingOutput(contentEditingInput: input)
/// context.saveLivePhoto(to: output, options: nil) { success, error in
///     output.adjustmentData = …                       // then commit it in a change block
/// }
/// ```
///
/// Saving writes the edited still (upright, as every rendering) and the edited video (re-encoded, its rotation,
/// audio — at ``audioVolume`` — and content identifier kept, so the pair stays one Live Photo) into the output.
open class PHLivePhotoEditingContext: NSObject, @unchecked Sendable {
    /// The still, as stored (turn it with ``orientation``).
    public let fullSizeImage: CIImage
    /// The video's duration.
    public let duration: CMTime
    /// When in the video the still was taken (its middle: the still-image-time track of Apple's files is not read).
    public let photoTime: CMTime
    /// The still's orientation.
    public let orientation: CGImagePropertyOrientation
    /// Called for the still and every video frame; nil leaves frames as they are.
    open var frameProcessor: PHLivePhotoFrameProcessingBlock?
    /// The audio's volume, 0…1 (1 unchanged).
    open var audioVolume: Float = 1

    private let stillURL: URL
    private let videoURL: URL
    private let cancelled = Mutex(false)

    /// A context for a Live Photo's editing input; nil when the input is not a Live Photo.
    public init?(livePhotoEditingInput: PHContentEditingInput) {
        guard let livePhoto = livePhotoEditingInput.livePhoto, let still = livePhoto.photoURL, let video = livePhoto.videoURL,
            let image = CIImage(contentsOf: still)
        else { return nil }
        let info = try? MediaProbe().probe(video)
        stillURL = still
        videoURL = video
        fullSizeImage = image
        orientation = CGImagePropertyOrientation(rawValue: UInt32(livePhotoEditingInput.fullSizeImageOrientation)) ?? .up
        let seconds = info?.duration ?? 0
        duration = CMTime(seconds: seconds, preferredTimescale: 600)
        // Apple's still-image-time metadata track is not read: the still is taken as the video's middle.
        photoTime = CMTime(seconds: seconds / 2, preferredTimescale: 600)
        super.init()
    }

    private var isCancelled: Bool { cancelled.withLock { $0 } }

    /// Stops a preview or a save in progress: it completes with an error.
    open func cancel() { cancelled.withLock { $0 = true } }

    /// A preview to play: the frames rendered at `targetSize` (fitting; `.zero`: full size), renderScale < 1 when
    /// smaller. The handler gets a ``PHLivePhoto`` of the preview's files, on an arbitrary queue.
    open func prepareLivePhotoForPlayback(
        withTargetSize targetSize: CGSize, options: [String: Any]? = nil,
        completionHandler handler: @escaping @Sendable (PHLivePhoto?, (any Error)?) -> Void
    ) {
        let scale =
            targetSize.width > 0 && targetSize.height > 0
            ? min(1, targetSize.width / max(1, fullSizeImage.extent.width), targetSize.height / max(1, fullSizeImage.extent.height)) : 1
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("OpenPhotoKit-LivePreview-\(UUID().uuidString)")
        render(scale: scale, still: folder.appendingPathComponent("Preview.jpg"), video: folder.appendingPathComponent("Preview.mov"), folder: folder)
        {
            result in
            switch result {
            case .success(let size):
                handler(
                    PHLivePhoto(
                        size: size, still: UIImage(contentsOfFile: folder.appendingPathComponent("Preview.jpg").path),
                        photoURL: folder.appendingPathComponent("Preview.jpg"), videoURL: folder.appendingPathComponent("Preview.mov"),
                        asset: nil), nil)
            case .failure(let error):
                try? FileManager.default.removeItem(at: folder)
                handler(nil, error)
            }
        }
    }

    /// Renders the edited still and video at full size into `output` (its rendered still and the paired video
    /// beside it); the handler gets true, or false and the error, on an arbitrary queue.
    open func saveLivePhoto(
        to output: PHContentEditingOutput, options: [String: Any]? = nil, completionHandler handler: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        render(scale: 1, still: output.renderedContentURL, video: output.renderedPairedVideoURL, folder: nil) { result in
            switch result {
            case .success: handler(true, nil)
            case .failure(let error): handler(false, error)
            }
        }
    }

    /// The same, awaited: throws the error the save failed with.
    open func saveLivePhoto(to output: PHContentEditingOutput, options: [String: Any]? = nil) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            saveLivePhoto(to: output, options: options) { _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    private struct ProcessorBox: @unchecked Sendable {
        let call: PHLivePhotoFrameProcessingBlock
    }

    private struct Frame: PHLivePhotoFrame {
        var image: CIImage
        var time: CMTime
        var type: PHLivePhotoFrameType
        var renderScale: CGFloat
    }

    /// The still, then every video frame, through the processor; on a background queue.
    private func render(scale: CGFloat, still: URL, video: URL, folder: URL?, completion: @escaping @Sendable (Result<CGSize, any Error>) -> Void) {
        // Starting a render cancels the one before (Apple's rule).
        cancelled.withLock { $0 = false }
        // The block is called from the rendering queue only, one frame at a time.
        let process = frameProcessor.map(ProcessorBox.init)
        let volume = Double(max(0, min(1, audioVolume)))
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            do {
                if let folder { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
                // The still: processed as stored, then turned upright and written (renderings are stored "up").
                let source = scale < 1 ? fullSizeImage.transformed(by: CGAffineTransform(scaleX: scale, y: scale)) : fullSizeImage
                var error: NSError?
                let stillImage: CIImage
                if let process {
                    guard let processed = process.call(Frame(image: source, time: photoTime, type: .photo, renderScale: scale), &error) else {
                        throw error
                            ?? PHPhotosError(
                                .internalError, userInfo: [NSLocalizedDescriptionKey: "the frame processor returned no image for the still"])
                    }
                    stillImage = processed.cropped(to: source.extent)
                } else {
                    stillImage = source
                }
                let upright = stillImage.oriented(orientation)
                try CIContext().writeJPEGRepresentation(
                    of: upright, to: still, colorSpace: CGColorSpace.renderingDestination(for: fullSizeImage.colorSpace))
                // The video: every frame through the processor, re-encoded (HEVC for HEVC sources, else H.264).
                let info = try? MediaProbe().probe(videoURL)
                let longSide = Int((CGFloat(max(info?.storedPixelWidth ?? 0, info?.storedPixelHeight ?? 0)) * scale).rounded())
                let shortSide = Int((CGFloat(min(info?.storedPixelWidth ?? 0, info?.storedPixelHeight ?? 0)) * scale).rounded())
                let hevc = MovieExporter.isHEVC(videoURL)
                var exporter = MovieExporter(
                    container: .quickTime, video: hevc ? .hevc(long: longSide, short: shortSide) : .h264(long: longSide, short: shortSide))
                exporter.audioGain = volume
                let failure = FrameFailure()
                let bridge = VideoFrameBridge()
                if let process {
                    exporter.frameFilter = { rgba, width, height, stride, seconds in
                        if self.isCancelled { return false }
                        guard let image = bridge.image(rgba, width: width, height: height, stride: stride) else { return false }
                        var error: NSError?
                        guard
                            let processed = process.call(
                                Frame(image: image, time: CMTime(seconds: seconds, preferredTimescale: 600), type: .video, renderScale: scale), &error
                            )
                        else {
                            failure.record(
                                error
                                    ?? NSError(
                                        domain: PHPhotosErrorDomain, code: PHPhotosError.Code.internalError.rawValue,
                                        userInfo: [NSLocalizedDescriptionKey: "the frame processor returned no image at \(seconds) s"]))
                            return false
                        }
                        bridge.render(processed, into: rgba, width: width, height: height, stride: stride)
                        return true
                    }
                } else if volume == 1 {
                    exporter.video = .passthrough
                }
                try? FileManager.default.removeItem(at: video)
                do throws(MovieExporter.Failure) {
                    try exporter.export(videoURL, to: video) { _ in !self.isCancelled }
                } catch {
                    if let frameError = failure.error { throw frameError }
                    if case .stopped = error { throw PHPhotosError(.userCancelled) }
                    throw PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "cannot render the Live Photo's video: \(error)"])
                }
                if isCancelled { throw PHPhotosError(.userCancelled) }
                completion(.success(upright.extent.size))
            } catch {
                try? FileManager.default.removeItem(at: still)
                try? FileManager.default.removeItem(at: video)
                completion(.failure(error))
            }
        }
    }
}
