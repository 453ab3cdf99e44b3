import Foundation

/// One piece of a composition track — AVFoundation's shape, for Linux: a time range of a file's track placed at a
/// time of the composition.
open class AVCompositionTrackSegment: NSObject, @unchecked Sendable {
    /// The file the media comes from (nil for an empty segment).
    public let sourceURL: URL?
    /// The track of that file.
    public let sourceTrackID: CMPersistentTrackID
    /// Where the source range goes in the composition.
    public let timeMapping: CMTimeMapping

    /// A segment of `trackID` of the file at `url`, its `sourceTimeRange` placed at `targetTimeRange`.
    public init(url: URL, trackID: CMPersistentTrackID, sourceTimeRange: CMTimeRange, targetTimeRange: CMTimeRange) {
        sourceURL = url
        sourceTrackID = trackID
        timeMapping = CMTimeMapping(source: sourceTimeRange, target: targetTimeRange)
    }

    /// Whether the segment has no media (a gap).
    open var isEmpty: Bool { sourceURL == nil }
}
