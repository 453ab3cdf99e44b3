import CAVFormatShims
import Foundation

/// Writes a movie into a new file with libavformat and libavcodec: a copy of its streams in another container
/// (passthrough), or its video re-encoded (H.264 or HEVC) at a bounded size with the audio copied.
package struct MovieExporter: Sendable {
    /// The container written.
    package enum Container: String, Sendable {
        /// QuickTime (`.mov`).
        case quickTime = "mov"
        /// MPEG-4 (`.mp4`).
        case mpeg4 = "mp4"
        /// Apple's MPEG-4 video (`.m4v`).
        case appleM4V = "ipod"
    }

    /// What happens to the video.
    package enum Video: Sendable, Equatable {
        /// Every stream copied as it is.
        case passthrough
        /// The first video stream re-encoded with H.264, fitting within `long` × `short` (0 × 0 = source size).
        case h264(long: Int, short: Int)
        /// The same with HEVC.
        case hevc(long: Int, short: Int)
    }

    /// Why an export did not finish.
    package enum Failure: Error, Sendable, Equatable {
        /// The source cannot be read or decoded.
        case unreadable(String)
        /// A stream's codec cannot go into the container without re-encoding.
        case unsupportedInContainer
        /// Writing failed (disk full, permissions, an encoder error).
        case writeFailed(String)
        /// The progress handler asked to stop.
        case stopped
    }

    package var container: Container
    package var video: Video
    /// Moves the index to the front of the file for progressive download.
    package var optimizeForNetworkUse: Bool
    /// The part of the source written, in seconds (`end` ≤ `start`: to the end). Re-encoded video is cut exactly at
    /// frames; copied streams keep the packets in the range.
    package var timeRange: (start: Double, end: Double)?
    /// Called with every video frame as RGBA at the output size (bytes, width, height, bytes per row, seconds from
    /// the range's start), to change it in place; false stops the export. Needs a re-encoding `video`.
    package var frameFilter: FrameFilter?
    /// Multiplies the audio's samples (the audio is re-encoded as AAC when it is not 1; needs a re-encoding `video`).
    package var audioGain: Double = 1
    /// Whether the source's audio is written.
    package var keepsAudio = true
    /// The video's display matrix (libavutil's layout: a, b, u, c, d, v, tx, ty, w in 16.16 and 2.30 fixed point),
    /// written instead of the source's; nil keeps the source's.
    package var displayMatrix: [Int32]?

    /// A frame filter (see ``frameFilter``).
    package typealias FrameFilter = @Sendable (UnsafeMutablePointer<UInt8>, Int, Int, Int, Double) -> Bool

    package init(container: Container, video: Video, optimizeForNetworkUse: Bool = false) {
        self.container = container
        self.video = video
        self.optimizeForNetworkUse = optimizeForNetworkUse
    }

    /// Whether the movie's video is HEVC (what an edit of it is encoded with again).
    package static func isHEVC(_ url: URL) -> Bool {
        MediaProbe.initializeLibraries()
        return cav_video_is_hevc(url.path) == 1
    }

    /// Writes `source` into `destination` (which must not exist; it is removed again when the export fails).
    /// `progress` is told the fraction done and returns false to stop.
    package func export(_ source: URL, to destination: URL, progress: (Double) -> Bool = { _ in true }) throws(Failure) {
        MediaProbe.initializeLibraries()
        let (codec, long, short, crf): (Int32, Int32, Int32, Int32) =
            switch video {
            case .passthrough: (0, 0, 0, 0)
            case .h264(let long, let short): (1, Int32(long), Int32(short), 20)
            case .hevc(let long, let short): (2, Int32(long), Int32(short), 24)
            }
        let range = timeRange ?? (0, 0)
        let result = withoutActuallyEscaping(progress) { progress in
            let values = displayMatrix.map { Array($0.prefix(9)) + [Int32](repeating: 0, count: max(0, 9 - $0.count)) } ?? []
            return values.withUnsafeBufferPointer { buffer in
                let matrix = displayMatrix == nil ? nil : buffer.baseAddress
                var box = ProgressBox(report: progress, filter: frameFilter)
                return withUnsafeMutablePointer(to: &box) { pointer in
                    cav_export_ex(
                        source.path, destination.path, container.rawValue, codec, long, short, crf, optimizeForNetworkUse ? 1 : 0,
                        { context, fraction in
                            guard let context else { return 0 }
                            return context.assumingMemoryBound(to: ProgressBox.self).pointee.report(fraction) ? 0 : 1
                        }, pointer,
                        frameFilter == nil
                            ? nil
                            : { context, rgba, width, height, stride, seconds in
                                guard let context, let rgba, let filter = context.assumingMemoryBound(to: ProgressBox.self).pointee.filter else {
                                    return 1
                                }
                                return filter(rgba, Int(width), Int(height), Int(stride), seconds) ? 0 : 1
                            }, pointer, range.start, range.end, audioGain, keepsAudio ? 1 : 0, matrix)
                }
            }
        }
        guard result != 0 else { return }
        try? FileManager.default.removeItem(at: destination)
        var buffer = [CChar](repeating: 0, count: 256)
        cav_error_string(result, &buffer, buffer.count)
        let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if result == cav_exit_code() { throw .stopped }
        if result == cav_not_supported_code() { throw .unsupportedInContainer }
        if FileManager.default.isReadableFile(atPath: source.path), (try? MediaProbe().probe(source)) != nil {
            throw .writeFailed(reason)
        }
        throw .unreadable(reason)
    }

    private struct ProgressBox {
        var report: (Double) -> Bool
        var filter: FrameFilter?
    }
}
