import Foundation
import PhotoMedia

/// CoreMedia's rational time, for durations of videos.
public struct CMTime: Sendable, Hashable, Comparable {
    /// The numerator.
    public var value: Int64
    /// Units per second.
    public var timescale: Int32

    /// A time of `value` / `timescale` seconds.
    public init(value: Int64, timescale: Int32) {
        self.value = value
        self.timescale = timescale
    }

    /// A time in seconds at the given precision.
    public init(seconds: Double, preferredTimescale: Int32) {
        self.init(value: Int64((seconds * Double(preferredTimescale)).rounded()), timescale: preferredTimescale)
    }

    /// The time in seconds.
    public var seconds: Double { timescale == 0 ? .nan : Double(value) / Double(timescale) }

    /// Zero seconds.
    public static let zero = CMTime(value: 0, timescale: 1)

    public static func < (a: CMTime, b: CMTime) -> Bool { a.seconds < b.seconds }
}

/// CoreMedia's numerator type.
public typealias CMTimeValue = Int64
/// CoreMedia's units-per-second type.
public typealias CMTimeScale = Int32

extension CMTime {
    /// An invalid time (timescale 0), as CoreMedia's `kCMTimeInvalid`.
    public static let invalid = CMTime(value: 0, timescale: 0)
    /// Whether the time is valid (a non-zero timescale).
    public var isValid: Bool { timescale != 0 }
}

/// CoreMedia's spelling of a time's seconds.
public func CMTimeGetSeconds(_ time: CMTime) -> Double { time.seconds }

/// A time of `value` / `timescale` seconds (CoreMedia's function).
public func CMTimeMake(value: Int64, timescale: Int32) -> CMTime { CMTime(value: value, timescale: timescale) }

/// A time in seconds at the given precision (CoreMedia's function).
public func CMTimeMakeWithSeconds(_ seconds: Double, preferredTimescale: Int32) -> CMTime {
    CMTime(seconds: seconds, preferredTimescale: preferredTimescale)
}

/// -1, 0 or 1 as `time1` is earlier than, the same as or later than `time2` (CoreMedia's function; an invalid
/// time compares as later than every valid one, as CoreMedia documents for invalid times).
public func CMTimeCompare(_ time1: CMTime, _ time2: CMTime) -> Int32 {
    switch (time1.isValid, time2.isValid) {
    case (false, false): return 0
    case (false, true): return 1
    case (true, false): return -1
    default:
        // Exact rational comparison: value1 × timescale2 against value2 × timescale1, without floating point.
        let left = Int128(time1.value) * Int128(time2.timescale)
        let right = Int128(time2.value) * Int128(time1.timescale)
        let sign = (time1.timescale < 0) != (time2.timescale < 0) ? -1 : 1
        return left == right ? 0 : ((left < right) == (sign == 1) ? -1 : 1)
    }
}

/// The sum of two times (CoreMedia's function), at the finer of the two timescales.
public func CMTimeAdd(_ lhs: CMTime, _ rhs: CMTime) -> CMTime {
    guard lhs.isValid, rhs.isValid else { return .invalid }
    let scale = max(lhs.timescale, rhs.timescale)
    return CMTime(seconds: lhs.seconds + rhs.seconds, preferredTimescale: scale)
}

/// The difference of two times (CoreMedia's function), at the finer of the two timescales.
public func CMTimeSubtract(_ lhs: CMTime, _ rhs: CMTime) -> CMTime {
    guard lhs.isValid, rhs.isValid else { return .invalid }
    let scale = max(lhs.timescale, rhs.timescale)
    return CMTime(seconds: lhs.seconds - rhs.seconds, preferredTimescale: scale)
}

/// AVFoundation's media type of a track.
public struct AVMediaType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static let video = AVMediaType(rawValue: "vide")
    public static let audio = AVMediaType(rawValue: "soun")
    public static let text = AVMediaType(rawValue: "text")
    public static let metadata = AVMediaType(rawValue: "meta")
}

/// A track of an ``AVAsset`` — AVFoundation's shape, for Linux: a movie's video track, with its stored size and
/// the transform that displays it upright, or its audio track.
open class AVAssetTrack: NSObject, @unchecked Sendable {
    /// The track's identifier (1 for the video track, 2 for the audio track of a file here).
    public let trackID: CMPersistentTrackID
    /// `.video` or `.audio`.
    public let mediaType: AVMediaType
    /// Frames per second (average); 0 for audio.
    public let nominalFrameRate: Float
    /// The asset the track belongs to, while something else holds it (weak, as AVFoundation's).
    public private(set) weak var asset: AVAsset?
    /// The file the track's media is in (kept when the asset is released: a composition inserts from it).
    let sourceURL: URL?
    private let storedSize: CGSize
    private let storedTransform: CGAffineTransform
    private let storedTimeRange: CMTimeRange

    init(
        trackID: CMPersistentTrackID, mediaType: AVMediaType, naturalSize: CGSize, preferredTransform: CGAffineTransform,
        nominalFrameRate: Float, timeRange: CMTimeRange, asset: AVAsset?, sourceURL: URL?
    ) {
        self.trackID = trackID
        self.mediaType = mediaType
        self.storedSize = naturalSize
        self.storedTransform = preferredTransform
        self.nominalFrameRate = nominalFrameRate
        self.storedTimeRange = timeRange
        self.asset = asset
        self.sourceURL = sourceURL
    }

    convenience init(videoOf info: MediaInfo, asset: AVAsset?, sourceURL: URL?) {
        let w = CGFloat(info.storedPixelWidth)
        let h = CGFloat(info.storedPixelHeight)
        let transform: CGAffineTransform =
            switch info.rotation {
            case 90: CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
            case 180: CGAffineTransform(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
            case 270: CGAffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
            default: .identity
            }
        self.init(
            trackID: 1, mediaType: .video, naturalSize: CGSize(width: w, height: h), preferredTransform: transform,
            nominalFrameRate: Float(info.frameRate),
            timeRange: CMTimeRange(start: .zero, duration: CMTime(seconds: info.duration, preferredTimescale: 600)), asset: asset,
            sourceURL: sourceURL)
    }

    convenience init(audioOf info: MediaInfo, asset: AVAsset?, sourceURL: URL?) {
        self.init(
            trackID: 2, mediaType: .audio, naturalSize: .zero, preferredTransform: .identity, nominalFrameRate: 0,
            timeRange: CMTimeRange(start: .zero, duration: CMTime(seconds: info.duration, preferredTimescale: 600)), asset: asset,
            sourceURL: sourceURL)
    }

    /// The frame size as stored, before ``preferredTransform`` (for a portrait iPhone video, landscape); zero for
    /// audio.
    open var naturalSize: CGSize { storedSize }

    /// The rotation that displays the frames upright, as AVFoundation gives it: 90° clockwise for a portrait iPhone
    /// video is `(a: 0, b: 1, c: -1, d: 0, tx: height, ty: 0)`.
    open var preferredTransform: CGAffineTransform { storedTransform }

    /// The track's time range (the whole movie for a file's track).
    open var timeRange: CMTimeRange { storedTimeRange }
}

/// A track's identifier within its asset or composition.
public typealias CMPersistentTrackID = Int32

/// "No preference": ``AVMutableComposition/addMutableTrack(withMediaType:preferredTrackID:)`` picks an identifier.
public let kCMPersistentTrackID_Invalid: CMPersistentTrackID = 0

/// CoreMedia's time range.
public struct CMTimeRange: Sendable, Hashable {
    public var start: CMTime
    public var duration: CMTime
    public init(start: CMTime, duration: CMTime) {
        self.start = start
        self.duration = duration
    }
    /// The end: start + duration.
    public var end: CMTime { CMTimeAdd(start, duration) }
}

/// The shape of AVFoundation's `AVAsset` for Linux: a timed media file with its duration, size and video track.
/// Read its media with any library (libavformat, GStreamer) through ``AVURLAsset/url``.
open class AVAsset: NSObject, @unchecked Sendable {
    let info: MediaInfo?
    /// The file read (nil for a composition).
    let sourceURL: URL?

    init(info: MediaInfo?, sourceURL: URL?) {
        self.info = info
        self.sourceURL = sourceURL
    }

    /// An asset for the media file at `url`, as `AVAsset(url:)` makes on Apple platforms (where it is an
    /// ``AVURLAsset``; here an `AVAsset` with the same values — use `AVURLAsset(url:)` for the URL).
    public convenience init(url: URL) {
        self.init(info: try? MediaProbe().probe(url), sourceURL: url)
    }

    /// The length of the media.
    open var duration: CMTime { CMTime(seconds: info?.duration ?? 0, preferredTimescale: 600) }
    /// The video's size as displayed (rotation applied), in pixels.
    open var naturalSize: CGSize { CGSize(width: info?.pixelWidth ?? 0, height: info?.pixelHeight ?? 0) }
    /// The tracks: a movie's video track, and its audio track when it has sound.
    open var tracks: [AVAssetTrack] {
        guard let info, !info.isImage else { return [] }
        let video = AVAssetTrack(videoOf: info, asset: self, sourceURL: sourceURL)
        return info.hasAudio ? [video, AVAssetTrack(audioOf: info, asset: self, sourceURL: sourceURL)] : [video]
    }

    /// The tracks of a media type (deprecated on Apple platforms in favour of `loadTracks(withMediaType:)`).
    open func tracks(withMediaType mediaType: AVMediaType) -> [AVAssetTrack] { tracks.filter { $0.mediaType == mediaType } }

    /// The tracks of a media type (iOS 15's asynchronous form).
    open func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVAssetTrack] { tracks(withMediaType: mediaType) }
}

/// An asset read from a file.
open class AVURLAsset: AVAsset, @unchecked Sendable {
    /// The file.
    public let url: URL

    /// An asset for the media file at `url` (its header is read once, now).
    public init(url: URL, options: [String: Any]? = nil) {
        self.url = url
        super.init(info: try? MediaProbe().probe(url), sourceURL: url)
    }

    /// Whether the file's header was read as a movie.
    var isReadable: Bool { info.map { !$0.isImage } ?? false }
}

/// AVFoundation's audio mix (empty: OpenPhotoKit has no audio adjustments to hand over).
open class AVAudioMix: NSObject, @unchecked Sendable {}

/// Options for video requests.
open class PHVideoRequestOptions: NSObject, NSCopying, @unchecked Sendable {
    /// Which version of a video.
    public enum Version: Int, Sendable { case current = 0, original = 1 }
    /// The quality of a streamed video; a local file is always delivered at full quality.
    public enum DeliveryMode: Int, Sendable { case automatic = 0, highQualityFormat = 1, mediumQualityFormat = 2, fastFormat = 3 }

    /// `.current` by default (the same file until editing exists).
    open var version: PHVideoRequestOptionsVersion = .current
    /// `.automatic` by default.
    open var deliveryMode: PHVideoRequestOptionsDeliveryMode = .automatic
    /// Whether the video may be downloaded when this machine has no copy of it (object storage; Apple's: iCloud).
    /// Without it such a request answers nil with `PHImageResultIsInCloudKey` and `networkAccessRequired`.
    open var isNetworkAccessAllowed = false
    /// A download's progress, 0 to 1, on a serial queue of the request's own; setting `stop` ends it. Never called for
    /// what is already here.
    open var progressHandler: PHAssetImageProgressHandler?

    /// Default options.
    public override init() {}

    /// A copy with the same settings.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = PHVideoRequestOptions()
        copy.version = version
        copy.deliveryMode = deliveryMode
        copy.isNetworkAccessAllowed = isNetworkAccessAllowed
        copy.progressHandler = progressHandler
        return copy
    }
}

/// Apple's top-level names for the video option enums.
public typealias PHVideoRequestOptionsVersion = PHVideoRequestOptions.Version
public typealias PHVideoRequestOptionsDeliveryMode = PHVideoRequestOptions.DeliveryMode
