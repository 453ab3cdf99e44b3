import Foundation

/// A track of an ``AVMutableComposition`` that time ranges of files' tracks are inserted into — AVFoundation's shape,
/// for Linux.
open class AVMutableCompositionTrack: AVCompositionTrack, @unchecked Sendable {
    /// The transform the track is displayed with. A composition does not take its sources' transforms: set this to
    /// the source track's `preferredTransform` to keep a portrait video upright, as on Apple platforms.
    open override var preferredTransform: CGAffineTransform {
        get { lock.withLock { transform } }
        set { lock.withLock { transform = newValue } }
    }

    /// The frame size: the first inserted video's, unless set.
    open override var naturalSize: CGSize {
        get { lock.withLock { size } }
        set { lock.withLock { size = newValue } }
    }

    /// Inserts `timeRange` of `track` at `startTime`, moving what was at or after that time later by its duration.
    ///
    /// The range is clipped to the source track's; throws ``AVError/Code/invalidSourceMedia`` for a track of no file
    /// or of another media type, or when nothing of the range is in the track.
    open func insertTimeRange(_ timeRange: CMTimeRange, of track: AVAssetTrack, at startTime: CMTime) throws {
        guard let url = track.sourceURL, track.mediaType == mediaType else {
            throw AVError(.invalidSourceMedia, reason: "a \(track.mediaType.rawValue) track of no file cannot go into a \(mediaType.rawValue) track")
        }
        let source = timeRange.intersection(track.timeRange)
        guard source.isValid, !source.isEmpty, startTime.isValid else {
            throw AVError(.invalidSourceMedia, reason: "nothing of the range is in the track")
        }
        let inserted = AVCompositionTrackSegment(
            url: url, trackID: track.trackID, sourceTimeRange: source, targetTimeRange: CMTimeRange(start: startTime, duration: source.duration))
        lock.withLock {
            var placed: [AVCompositionTrackSegment] = []
            for segment in storedSegments {
                let mapping = segment.timeMapping
                if mapping.target.end <= startTime {
                    placed.append(segment)
                } else if mapping.target.start >= startTime {
                    placed.append(segment.moved(by: source.duration))
                } else {
                    // The insertion falls inside this segment: split it there.
                    let head = startTime - mapping.target.start
                    placed.append(segment.piece(from: .zero, duration: head, at: mapping.target.start))
                    placed.append(segment.piece(from: head, duration: mapping.target.duration - head, at: startTime + source.duration))
                }
            }
            placed.append(inserted)
            if size == .zero { size = track.naturalSize }
            storedSegments = placed.sorted { $0.timeMapping.target.start < $1.timeMapping.target.start }
        }
    }
}

extension AVCompositionTrackSegment {
    func moved(by offset: CMTime) -> AVCompositionTrackSegment {
        piece(from: .zero, duration: timeMapping.target.duration, at: timeMapping.target.start + offset)
    }

    /// `duration` of the segment from `offset` into it, placed at `start`.
    func piece(from offset: CMTime, duration: CMTime, at start: CMTime) -> AVCompositionTrackSegment {
        AVCompositionTrackSegment(
            url: sourceURL!, trackID: sourceTrackID,
            sourceTimeRange: CMTimeRange(start: timeMapping.source.start + offset, duration: duration),
            targetTimeRange: CMTimeRange(start: start, duration: duration))
    }
}
