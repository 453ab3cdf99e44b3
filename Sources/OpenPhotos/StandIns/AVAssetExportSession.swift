import Foundation
import PhotoMedia
import Synchronization

/// Copies every track as it is into the output container (no re-encoding).
public let AVAssetExportPresetPassthrough = "AVAssetExportPresetPassthrough"
/// H.264 at a small size (within 192 × 144).
public let AVAssetExportPresetLowQuality = "AVAssetExportPresetLowQuality"
/// H.264 at a medium size (within 480 × 360).
public let AVAssetExportPresetMediumQuality = "AVAssetExportPresetMediumQuality"
/// H.264 at the source size.
public let AVAssetExportPresetHighestQuality = "AVAssetExportPresetHighestQuality"
/// H.264 within 640 × 480.
public let AVAssetExportPreset640x480 = "AVAssetExportPreset640x480"
/// H.264 within 960 × 540.
public let AVAssetExportPreset960x540 = "AVAssetExportPreset960x540"
/// H.264 within 1280 × 720.
public let AVAssetExportPreset1280x720 = "AVAssetExportPreset1280x720"
/// H.264 within 1920 × 1080.
public let AVAssetExportPreset1920x1080 = "AVAssetExportPreset1920x1080"
/// H.264 within 3840 × 2160.
public let AVAssetExportPreset3840x2160 = "AVAssetExportPreset3840x2160"
/// HEVC at the source size (10-bit sources stay 10-bit).
public let AVAssetExportPresetHEVCHighestQuality = "AVAssetExportPresetHEVCHighestQuality"
/// HEVC within 1920 × 1080.
public let AVAssetExportPresetHEVC1920x1080 = "AVAssetExportPresetHEVC1920x1080"
/// HEVC within 3840 × 2160.
public let AVAssetExportPresetHEVC3840x2160 = "AVAssetExportPresetHEVC3840x2160"

/// The shape of AVFoundation's `AVAssetExportSession` for Linux, on libavformat and libavcodec: writes a video asset
/// into a new movie file as a preset describes.
///
/// `AVAssetExportPresetPassthrough` copies the tracks into the chosen container (QuickTime, MPEG-4, M4V) without
/// re-encoding. The size presets re-encode the video with H.264 (libx264) or HEVC (libx265), fitting the frame within
/// the preset's size — a portrait video within the portrait box — and never enlarging it; the audio is copied.
/// Container metadata (creation date, location, Apple's QuickTime keys) and the display rotation are kept; timed
/// metadata tracks are left out. HDR sources are not tone-mapped: an H.264 export of a 10-bit HLG video keeps its
/// colour tags at 8 bits.
///
/// The output is written beside ``outputURL`` and linked into place when complete, so a failed, cancelled or
/// interrupted export leaves no partial file, and an existing file is never replaced (``AVError/Code/fileAlreadyExists``).
/// Exports run two at a time; the others wait (``Status-swift.enum/waiting``).
open class AVAssetExportSession: NSObject, @unchecked Sendable {
    /// Where an export stands.
    public enum Status: Int, Sendable {
        /// Not started.
        case unknown = 0
        /// Queued behind other exports.
        case waiting = 1
        /// Writing.
        case exporting = 2
        /// The file is in place.
        case completed = 3
        /// See ``AVAssetExportSession/error``.
        case failed = 4
        /// ``AVAssetExportSession/cancelExport()`` stopped it.
        case cancelled = 5
    }

    /// The asset exported.
    public let asset: AVAsset
    /// The preset it was created with.
    public let presetName: String
    /// Where the movie is written; must not exist.
    open var outputURL: URL?
    /// The container written; one of ``supportedFileTypes``.
    open var outputFileType: AVFileType?
    /// Moves the movie's index to the front of the file, for playback while downloading.
    open var shouldOptimizeForNetworkUse = false
    /// Core Image filters applied to every frame (the video is re-encoded; with the passthrough preset, as H.264 at
    /// its size).
    open var videoComposition: AVVideoComposition?
    /// The part of the asset written: frames from `start` up to `start + duration`, exact to the frame (the video
    /// is re-encoded; with the passthrough preset, as H.264 at its size); audio packets in the range. The default, a
    /// range with an invalid duration, is the whole asset.
    open var timeRange = CMTimeRange(start: .zero, duration: .invalid)

    private let state = Mutex<(status: Status, error: (any Error)?, progress: Float, cancelled: Bool, started: Bool)>(
        (.unknown, nil, 0, false, false))
    private let settings: MovieExporter.Video

    private static let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "OpenPhotoKit.export"
        queue.maxConcurrentOperationCount = 2
        return queue
    }()

    /// A session exporting `asset` (an ``AVURLAsset`` or an ``AVComposition``) as `presetName` describes; nil for a
    /// preset not in ``allExportPresets()`` or an asset that is neither.
    public init?(asset: AVAsset, presetName: String) {
        guard asset is AVURLAsset || asset is AVComposition, let settings = Self.presets[presetName] else { return nil }
        self.asset = asset
        self.presetName = presetName
        self.settings = settings
    }

    private static let presets: [String: MovieExporter.Video] = [
        AVAssetExportPresetPassthrough: .passthrough,
        AVAssetExportPresetLowQuality: .h264(long: 192, short: 144),
        AVAssetExportPresetMediumQuality: .h264(long: 480, short: 360),
        AVAssetExportPresetHighestQuality: .h264(long: 0, short: 0),
        AVAssetExportPreset640x480: .h264(long: 640, short: 480),
        AVAssetExportPreset960x540: .h264(long: 960, short: 540),
        AVAssetExportPreset1280x720: .h264(long: 1280, short: 720),
        AVAssetExportPreset1920x1080: .h264(long: 1920, short: 1080),
        AVAssetExportPreset3840x2160: .h264(long: 3840, short: 2160),
        AVAssetExportPresetHEVCHighestQuality: .hevc(long: 0, short: 0),
        AVAssetExportPresetHEVC1920x1080: .hevc(long: 1920, short: 1080),
        AVAssetExportPresetHEVC3840x2160: .hevc(long: 3840, short: 2160),
    ]

    /// Every preset this implementation knows.
    open class func allExportPresets() -> [String] {
        presets.keys.sorted()
    }

    /// The presets that can export `asset`: all of them for a readable movie, none otherwise.
    open class func exportPresets(compatibleWith asset: AVAsset) -> [String] {
        if let composition = asset as? AVComposition {
            guard case .success = composition.exportPlan() else { return [] }
            return allExportPresets()
        }
        guard let file = asset as? AVURLAsset, file.isReadable else { return [] }
        return allExportPresets()
    }

    /// Whether `presetName` can export `asset` into `outputFileType` (any supported type when nil).
    open class func determineCompatibility(
        ofExportPreset presetName: String, with asset: AVAsset, outputFileType: AVFileType?, completionHandler handler: @escaping (Bool) -> Void
    ) {
        let compatible =
            exportPresets(compatibleWith: asset).contains(presetName) && (outputFileType.map { supportedTypes.contains($0) } ?? true)
        handler(compatible)
    }

    private static let supportedTypes: [AVFileType] = [.mov, .mp4, .m4v]

    /// The containers this session can write: QuickTime, MPEG-4 and M4V.
    open var supportedFileTypes: [AVFileType] { Self.supportedTypes }

    /// Calls `handler` with ``supportedFileTypes``.
    open func determineCompatibleFileTypes(completionHandler handler: @escaping ([AVFileType]) -> Void) {
        handler(supportedFileTypes)
    }

    /// Where the export stands.
    open var status: Status { state.withLock { $0.status } }
    /// Why the export failed (an ``AVError``), when ``status`` is `.failed`.
    open var error: (any Error)? { state.withLock { $0.error } }
    /// The fraction written, 0 to 1.
    open var progress: Float { state.withLock { $0.progress } }

    /// Starts the export on a background queue and calls `handler` there when it completes, fails or is cancelled;
    /// then ``status`` says which. Traps when called a second time on the same session, as Apple's does.
    open func exportAsynchronously(completionHandler handler: @escaping () -> Void) {
        nonisolated(unsafe) let handler = handler
        let started = state.withLock { state -> Bool in
            guard !state.started else { return false }
            state.started = true
            if !state.cancelled { state.status = .waiting }
            return true
        }
        precondition(started, "AVAssetExportSession: an export session can export only once; create a new one")
        let destination = outputURL
        let type = outputFileType
        Self.queue.addOperation { [self] in
            run(destination: destination, type: type)
            handler()
        }
    }

    /// Stops the export: nothing is left at ``outputURL`` and ``status`` becomes `.cancelled` (an export that has
    /// already completed stays completed). Cancelling before ``exportAsynchronously(completionHandler:)`` makes that
    /// call complete at once as cancelled.
    open func cancelExport() {
        state.withLock { state in
            state.cancelled = true
            if state.status == .unknown { state.status = .cancelled }
        }
    }

    /// Exports to `url` as `fileType` (Apple's iOS 18 form); throws an ``AVError``, or `CancellationError` when the
    /// task is cancelled.
    open func export(to url: URL, as fileType: AVFileType) async throws {
        outputURL = url
        outputFileType = fileType
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                exportAsynchronously { continuation.resume() }
            }
        } onCancel: {
            cancelExport()
        }
        switch status {
        case .completed: return
        case .cancelled: throw CancellationError()
        default: throw error ?? AVError(.unknown)
        }
    }

    private func finish(_ status: Status, _ error: AVError? = nil) {
        state.withLock { state in
            state.status = status
            state.error = error
            if status == .completed { state.progress = 1 }
        }
    }

    private func run(destination: URL?, type: AVFileType?) {
        guard
            state.withLock({ state -> Bool in
                guard !state.cancelled else {
                    state.status = .cancelled
                    return false
                }
                state.status = .exporting
                return true
            })
        else { return }
        guard let destination else { return finish(.failed, AVError(.exportFailed, reason: "outputURL is not set")) }
        guard let type, let container = Self.container(type) else {
            return finish(
                .failed,
                AVError(.exportFailed, reason: "outputFileType \(type?.rawValue ?? "nil") is not one of \(supportedFileTypes.map(\.rawValue))"))
        }
        // A composition is one range of one file, with its video's display transform (see AVComposition).
        var composed: (source: URL, range: CMTimeRange, transform: CGAffineTransform, audio: Bool)?
        if let composition = asset as? AVComposition {
            switch composition.exportPlan() {
            case .success(let plan): composed = plan
            case .failure(let error): return finish(.failed, error)
            }
        }
        guard let source = composed?.source ?? (asset as? AVURLAsset)?.url else { return finish(.failed, AVError(.invalidSourceMedia)) }
        if FileManager.default.fileExists(atPath: destination.path) {
            return finish(.failed, AVError(.fileAlreadyExists, reason: "\(destination.path) exists; an export never replaces a file"))
        }
        let folder = destination.deletingLastPathComponent()
        let partial = folder.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).partial.\(type.pathExtension)")
        defer { unlink(partial.path) }
        var exporter = MovieExporter(container: container, video: settings, optimizeForNetworkUse: shouldOptimizeForNetworkUse)
        var trims = timeRange.duration.isValid || timeRange.start.seconds > 0
        if trims {
            let start = max(0, timeRange.start.seconds)
            exporter.timeRange = (start, timeRange.duration.isValid ? start + max(0, timeRange.duration.seconds) : 0)
        }
        if let composed {
            // The session's range is in the composition's time: moved into the file's, within the composed range.
            let offset = composed.range.start.seconds, end = composed.range.end.seconds
            let start = min(end, offset + max(0, timeRange.start.seconds))
            let stop = timeRange.duration.isValid ? min(end, start + max(0, timeRange.duration.seconds)) : end
            exporter.timeRange = (start, stop)
            exporter.keepsAudio = composed.audio
            exporter.displayMatrix = Self.displayMatrix(composed.transform)
            trims = true
        }
        let frameFailure = FrameFailure()
        if let videoComposition { exporter.frameFilter = videoComposition.frameFilter(failure: frameFailure) }
        if (trims || videoComposition != nil), exporter.video == .passthrough { exporter.video = .h264(long: 0, short: 0) }
        do throws(MovieExporter.Failure) {
            try exporter.export(source, to: partial) { fraction in
                self.state.withLock { state in
                    state.progress = Float(fraction)
                    return !state.cancelled
                }
            }
        } catch {
            if let failure = frameFailure.error {
                return finish(.failed, AVError(.exportFailed, reason: "the video composition failed a frame: \(failure)"))
            }
            switch error {
            case .stopped:
                finish(.cancelled)
            case .unsupportedInContainer:
                finish(
                    .failed,
                    AVError(
                        .operationNotSupportedForAsset,
                        reason: "a track of \(source.lastPathComponent) cannot go into \(type.rawValue) without re-encoding"))
            case .unreadable(let reason):
                finish(.failed, AVError(.invalidSourceMedia, reason: "cannot read \(source.path): \(reason)"))
            case .writeFailed(let reason):
                finish(.failed, AVError(.exportFailed, reason: "cannot write \(destination.path): \(reason)"))
            }
            return
        }
        // Durable before it is visible; link(2) refuses to replace a file that appeared meanwhile.
        if let handle = try? FileHandle(forUpdating: partial) {
            try? handle.synchronize()
            try? handle.close()
        }
        if link(partial.path, destination.path) != 0 {
            let code = errno
            return finish(
                .failed,
                code == EEXIST
                    ? AVError(.fileAlreadyExists, reason: "\(destination.path) exists; an export never replaces a file")
                    : AVError(.exportFailed, reason: "cannot write \(destination.path): \(String(cString: strerror(code)))"))
        }
        finish(.completed)
    }

    /// A transform as a movie's display matrix (libavutil's layout of QuickTime's: a, b, u, c, d, v, tx, ty, w; 16.16
    /// fixed point, 2.30 for u, v, w).
    static func displayMatrix(_ t: CGAffineTransform) -> [Int32] {
        func fixed(_ value: CGFloat) -> Int32 { Int32(clamping: Int64((Double(value) * 65536).rounded())) }
        return [fixed(t.a), fixed(t.b), 0, fixed(t.c), fixed(t.d), 0, fixed(t.tx), fixed(t.ty), 1 << 30]
    }

    private static func container(_ type: AVFileType) -> MovieExporter.Container? {
        switch type {
        case .mov: .quickTime
        case .mp4: .mpeg4
        case .m4v: .appleM4V
        default: nil
        }
    }
}
