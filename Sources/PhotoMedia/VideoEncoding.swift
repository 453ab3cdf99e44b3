/// How a movie's streams are encoded, as far as playing it in a web browser goes.
package struct VideoEncoding: Sendable, Equatable {
    /// The video's codec as libavcodec names it: `h264`, `hevc`, `prores` …
    package var codec: String
    /// The first audio stream's codec (`aac`, `pcm_s16le` …); nil when the movie has no sound.
    package var audioCodec: String?
    /// Bits per sample of the video's pixels (8, 10 …; 0 when unknown).
    package var bitDepth: Int
    /// Whether the video's chroma is subsampled 4:2:0.
    package var isChroma420: Bool

    package init(codec: String, audioCodec: String?, bitDepth: Int, isChroma420: Bool) {
        self.codec = codec
        self.audioCodec = audioCodec
        self.bitDepth = bitDepth
        self.isChroma420 = isChroma420
    }

    /// Whether every browser plays the movie as it is (in its QuickTime or MPEG-4 container): 8-bit 4:2:0 H.264 with
    /// AAC or MP3 sound, or none. An iPhone's HEVC, 10-bit or 4:2:2 video, ProRes and PCM sound are not: Chromium and
    /// Firefox on Linux play none of them, so such a movie gets a web rendering (H.264, AAC) to play instead.
    package var playsInBrowsers: Bool {
        codec == "h264" && bitDepth == 8 && isChroma420 && (audioCodec.map { $0 == "aac" || $0 == "mp3" } ?? true)
    }
}
