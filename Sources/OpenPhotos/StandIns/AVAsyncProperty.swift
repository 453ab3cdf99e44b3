import Foundation
import OpenCoreImage

/// AVFoundation's asynchronously loaded property of an asset or a track, as iOS 15's `load(_:)` takes it
/// (`try await asset.load(.duration)`, `try await track.load(.naturalSize, .preferredTransform)`). The values here are
/// read from the file's header when the asset is made, so loading them never waits.
open class AVPartialAsyncProperty<Root>: @unchecked Sendable {
    /// The property's name, as AVFoundation's key-value loading names it.
    public let name: String
    init(name: String) { self.name = name }
}

/// A property of `Root` whose value is a `Value`.
public final class AVAsyncProperty<Root, Value>: AVPartialAsyncProperty<Root>, @unchecked Sendable {
    let read: (Root) -> Value
    init(_ name: String, _ read: @escaping (Root) -> Value) {
        self.read = read
        super.init(name: name)
    }
}

extension AVPartialAsyncProperty where Root == AVAsset {
    /// The length of the media.
    public static var duration: AVAsyncProperty<AVAsset, CMTime> { .init("duration") { $0.duration } }
    /// The tracks.
    public static var tracks: AVAsyncProperty<AVAsset, [AVAssetTrack]> { .init("tracks") { $0.tracks } }
    /// Whether the asset can be played: it has a track to play.
    public static var isPlayable: AVAsyncProperty<AVAsset, Bool> { .init("playable") { !$0.tracks.isEmpty } }
    /// Whether the asset can be exported: it has a track to export.
    public static var isExportable: AVAsyncProperty<AVAsset, Bool> { .init("exportable") { !$0.tracks.isEmpty } }
    /// The preferred transform of the asset: identity (each track carries its own).
    public static var preferredTransform: AVAsyncProperty<AVAsset, CGAffineTransform> { .init("preferredTransform") { _ in .identity } }
}

extension AVPartialAsyncProperty where Root == AVAssetTrack {
    /// The frame size as stored.
    public static var naturalSize: AVAsyncProperty<AVAssetTrack, CGSize> { .init("naturalSize") { $0.naturalSize } }
    /// The transform that displays the frames upright.
    public static var preferredTransform: AVAsyncProperty<AVAssetTrack, CGAffineTransform> {
        .init("preferredTransform") { $0.preferredTransform }
    }
    /// Frames per second.
    public static var nominalFrameRate: AVAsyncProperty<AVAssetTrack, Float> { .init("nominalFrameRate") { $0.nominalFrameRate } }
    /// The track's time range.
    public static var timeRange: AVAsyncProperty<AVAssetTrack, CMTimeRange> { .init("timeRange") { $0.timeRange } }
    /// The track's media type.
    public static var mediaType: AVAsyncProperty<AVAssetTrack, AVMediaType> { .init("mediaType") { $0.mediaType } }
}

extension AVAsset {
    /// Loads a property (iOS 15's API).
    public func load<T>(_ property: AVAsyncProperty<AVAsset, T>) async throws -> T { property.read(self) }
    /// Loads two properties.
    public func load<A, B>(_ a: AVAsyncProperty<AVAsset, A>, _ b: AVAsyncProperty<AVAsset, B>) async throws -> (A, B) {
        (a.read(self), b.read(self))
    }
    /// Loads three properties.
    public func load<A, B, C>(
        _ a: AVAsyncProperty<AVAsset, A>, _ b: AVAsyncProperty<AVAsset, B>, _ c: AVAsyncProperty<AVAsset, C>
    ) async throws -> (A, B, C) {
        (a.read(self), b.read(self), c.read(self))
    }
}

extension AVAssetTrack {
    /// Loads a property (iOS 15's API).
    public func load<T>(_ property: AVAsyncProperty<AVAssetTrack, T>) async throws -> T { property.read(self) }
    /// Loads two properties.
    public func load<A, B>(_ a: AVAsyncProperty<AVAssetTrack, A>, _ b: AVAsyncProperty<AVAssetTrack, B>) async throws -> (A, B) {
        (a.read(self), b.read(self))
    }
    /// Loads three properties.
    public func load<A, B, C>(
        _ a: AVAsyncProperty<AVAssetTrack, A>, _ b: AVAsyncProperty<AVAssetTrack, B>, _ c: AVAsyncProperty<AVAssetTrack, C>
    ) async throws -> (A, B, C) {
        (a.read(self), b.read(self), c.read(self))
    }
}
