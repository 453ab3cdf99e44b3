import Foundation

/// An asset made of time ranges of other assets' tracks — AVFoundation's shape, for Linux. Build one with
/// ``AVMutableComposition`` and write it with ``AVAssetExportSession``.
///
/// Exporting a composition here supports what editing apps build most: one range of one file, its video (with the
/// transform the composition's video track is given) and, when inserted, its audio, starting at zero. Other
/// compositions — several ranges, several files, gaps, different ranges for video and audio — fail the export with
/// ``AVError/Code/operationNotSupportedForAsset`` and a reason naming what is not supported.
open class AVComposition: AVAsset, @unchecked Sendable {
    let trackLock = NSLock()
    var compositionTracks: [AVMutableCompositionTrack] = []

    init() {
        super.init(info: nil, sourceURL: nil)
    }

    /// The composition's tracks.
    open override var tracks: [AVAssetTrack] { trackLock.withLock { compositionTracks } }

    /// The end of its longest track.
    open override var duration: CMTime { tracks.map(\.timeRange.end).max() ?? .zero }

    /// The video's size as displayed: the first video track's natural size through its transform.
    open override var naturalSize: CGSize {
        guard let video = tracks.first(where: { $0.mediaType == .video }) else { return .zero }
        let shown = CGRect(origin: .zero, size: video.naturalSize).applying(video.preferredTransform)
        return CGSize(width: abs(shown.width), height: abs(shown.height))
    }

    /// What an export writes: one file, one source range, the video's display transform, whether audio goes too.
    func exportPlan() -> Result<(source: URL, range: CMTimeRange, transform: CGAffineTransform, audio: Bool), AVError> {
        let tracks = trackLock.withLock { compositionTracks }.filter { !$0.segments.isEmpty }
        func unsupported(_ reason: String) -> Result<(source: URL, range: CMTimeRange, transform: CGAffineTransform, audio: Bool), AVError> {
            .failure(AVError(.operationNotSupportedForAsset, reason: "this composition cannot be exported here: \(reason)"))
        }
        let videos = tracks.filter { $0.mediaType == .video }
        let audios = tracks.filter { $0.mediaType == .audio }
        guard videos.count == 1, let video = videos.first else { return unsupported("it needs exactly one video track with media") }
        guard audios.count <= 1 else { return unsupported("it has more than one audio track") }
        guard tracks.count == videos.count + audios.count else { return unsupported("it has tracks that are neither video nor audio") }
        for track in tracks where track.segments.count != 1 {
            return unsupported("a track has \(track.segments.count) segments (one range of one file is supported)")
        }
        let segment = video.segments[0]
        guard let source = segment.sourceURL, segment.timeMapping.target.start == .zero else {
            return unsupported("the video does not start at zero")
        }
        if let audio = audios.first?.segments.first {
            guard audio.sourceURL == source, audio.timeMapping == segment.timeMapping else {
                return unsupported("the audio is not the same range of the same file as the video")
            }
        }
        return .success((source, segment.timeMapping.source, video.preferredTransform, !audios.isEmpty))
    }
}
