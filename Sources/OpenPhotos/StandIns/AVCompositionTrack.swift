import Foundation

/// A track of an ``AVComposition`` — AVFoundation's shape, for Linux: segments of files' tracks in time order.
open class AVCompositionTrack: AVAssetTrack, @unchecked Sendable {
    let lock = NSLock()
    var storedSegments: [AVCompositionTrackSegment] = []
    var transform: CGAffineTransform = .identity
    var size: CGSize = .zero

    init(trackID: CMPersistentTrackID, mediaType: AVMediaType, naturalSize: CGSize, composition: AVComposition) {
        super.init(
            trackID: trackID, mediaType: mediaType, naturalSize: naturalSize, preferredTransform: .identity, nominalFrameRate: 0,
            timeRange: CMTimeRange(start: .zero, duration: .zero), asset: composition, sourceURL: nil)
    }

    /// The segments, in time order.
    open var segments: [AVCompositionTrackSegment] { lock.withLock { storedSegments } }

    /// The frame size: the first inserted video's, unless set.
    open override var naturalSize: CGSize { lock.withLock { size } }

    /// The transform the track is displayed with; the identity unless set (a composition does not take its sources').
    open override var preferredTransform: CGAffineTransform { lock.withLock { transform } }

    /// From zero to the end of the last segment.
    open override var timeRange: CMTimeRange {
        let end = segments.map(\.timeMapping.target.end).max() ?? .zero
        return CMTimeRange(start: .zero, duration: end)
    }
}
