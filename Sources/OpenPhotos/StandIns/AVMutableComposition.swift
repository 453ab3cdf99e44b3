import Foundation

/// A composition that tracks and time ranges are added to — AVFoundation's shape, for Linux (see ``AVComposition``
/// for what can be exported).
///
/// ```swift
/// let composition = AVMutableComposition()
/// let video = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid)!
/// try video.insertTimeRange(range, of: sourceVideoTrack, at: .zero)
/// video.preferredTransform = sourceVideoTrack.preferredTransform
/// ```
open class AVMutableComposition: AVComposition, @unchecked Sendable {
    /// An empty composition.
    public override init() {
        super.init()
    }

    /// Adds an empty track of `mediaType` (`.video` or `.audio`) with `preferredTrackID`, or the next free identifier
    /// for ``kCMPersistentTrackID_Invalid`` or an identifier in use; nil for another media type.
    open func addMutableTrack(withMediaType mediaType: AVMediaType, preferredTrackID: CMPersistentTrackID) -> AVMutableCompositionTrack? {
        guard mediaType == .video || mediaType == .audio else { return nil }
        return trackLock.withLock {
            let used = Set(compositionTracks.map(\.trackID))
            let trackID = preferredTrackID > 0 && !used.contains(preferredTrackID) ? preferredTrackID : (used.max() ?? 0) + 1
            let track = AVMutableCompositionTrack(trackID: trackID, mediaType: mediaType, naturalSize: .zero, composition: self)
            compositionTracks.append(track)
            return track
        }
    }

    /// Inserts `timeRange` of every video and audio track of `asset` at `startTime`, each into a track of its media
    /// type (added when there is none). The video track takes the source's size; its transform stays the identity
    /// unless set.
    open func insertTimeRange(_ timeRange: CMTimeRange, of asset: AVAsset, at startTime: CMTime) throws {
        let sources = asset.tracks.filter { $0.mediaType == .video || $0.mediaType == .audio }
        guard !sources.isEmpty else { throw AVError(.invalidSourceMedia, reason: "the asset has no video or audio track") }
        for source in sources {
            let target =
                tracks(withMediaType: source.mediaType).first as? AVMutableCompositionTrack
                ?? addMutableTrack(withMediaType: source.mediaType, preferredTrackID: kCMPersistentTrackID_Invalid)!
            try target.insertTimeRange(timeRange, of: source, at: startTime)
        }
    }

    /// Removes a track.
    open func removeTrack(_ track: AVCompositionTrack) {
        trackLock.withLock { compositionTracks.removeAll { $0 === track } }
    }

    /// The track with an identifier.
    open func track(withTrackID trackID: CMPersistentTrackID) -> AVMutableCompositionTrack? {
        trackLock.withLock { compositionTracks.first { $0.trackID == trackID } }
    }
}
