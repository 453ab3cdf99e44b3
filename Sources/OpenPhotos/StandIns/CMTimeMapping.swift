import Foundation

/// CoreMedia's mapping of a source time range onto a target one (a composition segment's times).
public struct CMTimeMapping: Sendable, Hashable {
    /// The range in the source track.
    public var source: CMTimeRange
    /// The range in the composition.
    public var target: CMTimeRange

    /// A mapping of `source` onto `target`.
    public init(source: CMTimeRange, target: CMTimeRange) {
        self.source = source
        self.target = target
    }
}
