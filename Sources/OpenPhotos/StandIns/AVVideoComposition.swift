import Foundation
import PhotoMedia
import Synchronization

/// The shape of AVFoundation's `AVVideoComposition` for Linux: Core Image filters applied to every frame of a video
/// when an ``AVAssetExportSession`` writes it (its ``AVAssetExportSession/videoComposition``).
///
/// ```swift
/// let composition = AVVideoComposition(asset: asset) { request in
///     let filtered = request.sourceImage.applyingFilter("CIPhotoEffectNoir")
///     request.finish(with: filtered, context: nil)
/// }
/// let session = AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetHighestQuality)!
/// session.videoComposition = composition
/// ```
///
/// Frames are given as stored (``renderSize`` is the track's natural size); the track's rotation stays a display
/// transform of the file written, so players turn the filtered frames as they turned the originals.
open class AVVideoComposition: NSObject, @unchecked Sendable {
    /// The size frames are rendered at.
    open var renderSize: CGSize
    /// The duration of one frame (the track's nominal frame rate).
    open var frameDuration: CMTime
    let applier: @Sendable (AVAsynchronousCIImageFilteringRequest) -> Void

    /// A composition that calls `applier` for every frame of `asset`'s video; it must finish each request, with an
    /// image or an error, from any thread.
    public init(asset: AVAsset, applyingCIFiltersWithHandler applier: @escaping @Sendable (AVAsynchronousCIImageFilteringRequest) -> Void) {
        let track = asset.tracks.first
        renderSize = track?.naturalSize ?? asset.naturalSize
        let rate = Double(track?.nominalFrameRate ?? 30)
        frameDuration = CMTime(value: 1, timescale: Int32(max(1, rate.rounded())))
        self.applier = applier
        super.init()
    }

    /// The same, awaited (iOS 16's form).
    open class func videoComposition(
        with asset: AVAsset, applyingCIFiltersWithHandler applier: @escaping @Sendable (AVAsynchronousCIImageFilteringRequest) -> Void
    ) async throws -> AVVideoComposition {
        AVVideoComposition(asset: asset, applyingCIFiltersWithHandler: applier)
    }

    /// The frame filter an export runs: each RGBA frame as a request, its result rendered back in place.
    func frameFilter(failure: FrameFailure) -> MovieExporter.FrameFilter {
        let bridge = VideoFrameBridge()
        let applier = self.applier
        return { rgba, width, height, stride, seconds in
            guard let frame = bridge.image(rgba, width: width, height: height, stride: stride) else { return false }
            let request = AVAsynchronousCIImageFilteringRequest(
                sourceImage: frame, compositionTime: CMTime(seconds: seconds, preferredTimescale: 600),
                renderSize: CGSize(width: width, height: height))
            applier(request)
            switch request.wait() {
            case .success(let (image, chosen)):
                bridge.render(image, into: rgba, width: width, height: height, stride: stride, context: chosen)
                return true
            case .failure(let error):
                failure.record(error)
                return false
            }
        }
    }
}

/// Video frames between libavcodec's RGBA buffers and Core Image: a frame as an opaque image (a copy: the buffer is
/// written back), and an edited image rendered into the buffer.
struct VideoFrameBridge: Sendable {
    let context = CIContext(options: [.outputPremultiplied: false])
    let space = CGColorSpace(name: CGColorSpace.sRGB)!
    private let spares = FrameBuffers()

    func image(_ rgba: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int) -> CIImage? {
        let frame = CGImage(
            width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: stride, space: space,
            bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.noneSkipLast.rawValue),
            provider: CGDataProvider(data: spares.copy(rgba, count: stride * height))!, decode: nil, shouldInterpolate: false,
            intent: .defaultIntent)
        return frame.map { CIImage(cgImage: $0) }
    }

    /// `image` (cropped to the frame) rendered into the buffer, with `context` or the bridge's own.
    func render(_ image: CIImage, into rgba: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int, context: CIContext? = nil) {
        let bounds = CGRect(x: 0, y: 0, width: width, height: height)
        (context ?? self.context).render(
            image.cropped(to: bounds), toBitmap: rgba, rowBytes: stride, bounds: bounds, format: .RGBA8, colorSpace: space)
    }
}

/// One frame of an ``AVVideoComposition`` made with Core Image filters: filter ``sourceImage`` and call
/// ``finish(with:context:)`` (or ``finish(with:)-(Error)`` to stop the export).
open class AVAsynchronousCIImageFilteringRequest: NSObject, @unchecked Sendable {
    /// The frame, origin at zero.
    public let sourceImage: CIImage
    /// The frame's time in the composition.
    public let compositionTime: CMTime
    /// The size of the frame rendered.
    public let renderSize: CGSize
    private let outcome = Mutex<Result<(CIImage, CIContext?), any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(sourceImage: CIImage, compositionTime: CMTime, renderSize: CGSize) {
        self.sourceImage = sourceImage
        self.compositionTime = compositionTime
        self.renderSize = renderSize
    }

    /// The filtered frame (cropped to the render size), rendered with `context` (nil: the export's own).
    open func finish(with filteredImage: CIImage, context: CIContext?) {
        let bounded = filteredImage.cropped(to: CGRect(origin: .zero, size: renderSize))
        if outcome.withLock({ state -> Bool in
            guard state == nil else { return false }
            state = .success((bounded, context))
            return true
        }) {
            done.signal()
        }
    }

    /// The frame cannot be made: the export fails with `error`.
    open func finish(with error: any Error) {
        if outcome.withLock({ state -> Bool in
            guard state == nil else { return false }
            state = .failure(error)
            return true
        }) {
            done.signal()
        }
    }

    func wait() -> Result<(CIImage, CIContext?), any Error> {
        done.wait()
        return outcome.withLock { $0! }
    }
}

/// The first error a composition's requests finished with (it fails the export).
final class FrameFailure: Sendable {
    private let state = Mutex<(any Error)?>(nil)
    func record(_ error: any Error) { state.withLock { $0 = $0 ?? error } }
    var error: (any Error)? { state.withLock { $0 } }
}

/// The copies frames are handed to filters in, reused once a frame's image is gone: a new 8-MB buffer per frame would
/// cost the kernel zeroing fresh pages for every frame. An image a filter keeps keeps its buffer (the data is
/// immutable while anything refers to it); one spare is held (a frame's image is gone before the next arrives).
final class FrameBuffers: Sendable {
    /// Spare buffers by address and size.
    private let spares = Mutex<[(address: UInt, count: Int)]>([])

    /// Immutable data holding a copy of `count` bytes at `bytes`.
    func copy(_ bytes: UnsafeRawPointer, count: Int) -> NSData {
        let reused = spares.withLock { list -> UInt? in
            guard let index = list.firstIndex(where: { $0.count == count }) else { return nil }
            return list.remove(at: index).address
        }
        let buffer = reused.flatMap { UnsafeMutableRawPointer(bitPattern: $0) } ?? UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 64)
        buffer.copyMemory(from: bytes, byteCount: count)
        return NSData(bytesNoCopy: buffer, length: count) { pointer, length in self.giveBack(pointer, length) }
    }

    private func giveBack(_ pointer: UnsafeMutableRawPointer, _ count: Int) {
        let address = UInt(bitPattern: pointer)
        let kept = spares.withLock { list -> Bool in
            guard list.isEmpty else { return false }
            list.append((address, count))
            return true
        }
        if !kept { pointer.deallocate() }
    }

    deinit {
        for spare in spares.withLock({ $0 }) { UnsafeMutableRawPointer(bitPattern: spare.address)?.deallocate() }
    }
}
