import Foundation

/// The shape of AVFoundation's `AVPlayerItem` for Linux: the asset a player would present, with its duration and
/// size. There is no playback on a server; hand ``AVURLAsset/url`` to a media player or stream it over HTTP.
open class AVPlayerItem: NSObject, @unchecked Sendable {
    /// Whether the item can be played.
    public enum Status: Int, Sendable {
        /// Not known yet.
        case unknown = 0
        /// The media was read and can be played.
        case readyToPlay = 1
        /// The media cannot be played; see ``error``.
        case failed = 2
    }

    /// The asset presented.
    public let asset: AVAsset

    /// An item presenting `asset`.
    public init(asset: AVAsset) {
        self.asset = asset
    }

    /// An item presenting the media file at `url`.
    public convenience init(url: URL) {
        self.init(asset: AVURLAsset(url: url))
    }

    /// `.readyToPlay` when the asset's media was read (it has a duration or a picture), `.failed` otherwise.
    open var status: Status {
        (asset as? AVURLAsset)?.isReadable == false ? .failed : .readyToPlay
    }

    /// Why the item failed, when ``status`` is `.failed`.
    open var error: (any Error)? {
        status == .failed
            ? AVError(.fileFormatNotRecognized, reason: "\((asset as? AVURLAsset)?.url.path ?? "the asset") is not a readable movie") : nil
    }

    /// The length of the media.
    open var duration: CMTime { asset.duration }

    /// The size at which the video is displayed (rotation applied), in pixels.
    open var presentationSize: CGSize { asset.naturalSize }
}
