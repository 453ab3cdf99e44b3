#ifndef CAVFORMAT_SHIMS_H
#define CAVFORMAT_SHIMS_H
/* libavformat and friends for Swift: probing and metadata (probe.c), poster frames (poster_frame.c), and the movie
   exporter — remux, H.264 / HEVC re-encode, audio, a frame filter (export.c). */
#include <libavformat/avformat.h>
#include <libavutil/cpu.h>
#include <libavutil/display.h>
#include <libavutil/log.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <stdint.h>

/* What the photo library needs from a movie: the first video stream's coded size, its display rotation,
   and the container's duration. Fixed-arity so Swift can call it. Returns 0 on success, an AVERROR otherwise. */
typedef struct cav_video_info {
    int has_video;
    int has_audio;
    int width;
    int height;
    int rotation;          /* degrees, clockwise, normalised to 0, 90, 180, 270 */
    double duration;       /* seconds, or -1 when unknown */
    double frame_rate;     /* average frame rate, or 0 */
    char video_codec[24];  /* the video's codec as libavcodec names it ("h264", "hevc" …), "" when none */
    char audio_codec[24];  /* the first audio stream's codec ("aac", "pcm_s16le" …), "" when none */
    int video_bit_depth;   /* bits per sample of the video's pixel format, 0 when unknown */
    int video_chroma_420;  /* 1 when the video's pixel format is 4:2:0 subsampled */
} cav_video_info;

/* Export: copy or re-encode a movie into a new container.
   video_codec: 0 copies every stream the container can hold (passthrough); 1 re-encodes the first video stream with
   libx264, 2 with libx265 (tagged hvc1, 10-bit kept), scaled to fit max_long x max_short (0 = source size, never
   enlarged) with `crf`; audio is copied, or re-encoded to AAC when the container cannot hold its codec (LPCM in MPEG-4). Timed-metadata and data tracks are left out. Container metadata (creation
   date, location, Apple keys) and the display rotation are kept. `progress` (may be NULL) is told the fraction done
   and stops the export by returning non-zero (the result is then AVERROR_EXIT). Returns 0, AVERROR(ENOTSUP) when an
   audio or copied video codec cannot go into the container, or another AVERROR. The caller removes out_path on
   failure. */
typedef int (*cav_progress_fn)(void *context, double fraction);

/* A frame filter: the frame as RGBA at the output size (`stride` bytes per row), changed in place; `seconds` from the
 * start of the exported range. Non-zero stops the export (the value is returned, or AVERROR_EXIT when positive). */
typedef int (*cav_frame_fn)(void *context, uint8_t *rgba, int width, int height, int stride, double seconds);

void cav_quiet(void);

int cav_probe_file(const char *path, cav_video_info *info);

void cav_error_string(int err, char *buf, size_t len);

/* 1 when the movie's first video stream is HEVC, 0 when it is something else, an AVERROR when it cannot be read. */
int cav_video_is_hevc(const char *path);

/* The container's and the first video stream's metadata as "key\tvalue\n" lines (keys as ffmpeg names them:
   creation_time, com.apple.quicktime.creationdate, location, com.apple.quicktime.content.identifier …). Returns the
   bytes written (truncated to len - 1), or an AVERROR. */
int cav_metadata(const char *path, char *buf, size_t len);

/* The first decodable frame of the first video stream at or after `seconds`, as 8-bit RGB (width * height * 3
   bytes, stored orientation: the caller applies `rotation` from cav_probe_file). The caller frees *pixels with
   av_free. Returns 0, or an AVERROR. Frames larger than max_pixels are refused. */
int cav_poster_frame(const char *path, double seconds, long max_pixels, uint8_t **pixels, int *width, int *height);

/* Reads up to `count` bytes at `offset` of a source into `buf`: the bytes read (0 at its end), or < 0 on an error. */
typedef int (*cav_read_fn)(void *opaque, int64_t offset, uint8_t *buf, int count);

/* cav_poster_frame over a source read by `read` (its `size` bytes, in ranges libavformat asks for: a movie whose
   original is in object storage is read where its index and first frame are, not whole), with the stream's rotation
   (0, 90, 180 or 270) in *rotation. */
int cav_poster_frame_reader(cav_read_fn read, void *opaque, int64_t size, double seconds, long max_pixels, uint8_t **pixels,
                            int *width, int *height, int *rotation);

/* A stream's display rotation from its display matrix: 0, 90, 180 or 270 degrees clockwise (what the probe and the
   poster frame read by ranges report). */
int cav_stream_rotation(const AVStream *st);

/* From now on, exports in this process let x264 choose its threads and keep its lookahead thread's buffer: faster, and
   tens of MB more at 1080p. For a process that exists to encode (openphotokit-transcode); the library's own exports
   stay lean. */
void cav_export_prefer_throughput(void);

/* The error macros, which Swift cannot import. */
int cav_exit_code(void);

int cav_not_supported_code(void);

/* Exports a movie (see cav_progress_fn for the codecs, the container and the progress) through an optional frame
   filter (`frame_fn`: the video is then re-encoded through RGBA), in a time range (`start`, `end`; 0, 0 for all:
   frames before `start` and from `end` on are left out, exact to the frame for re-encoded video; copied streams keep
   the packets whose time is in the range), with an audio gain, with or without audio (`keep_audio`: 0 leaves it out, 1 keeps it, 2 keeps it as AAC —
   re-encoded whatever its codec, when the video is), and with the
   video's display matrix (`display_matrix`: 9 values as libavutil's display.h lays them out, written instead of the
   source's; NULL keeps the source's). */
int cav_export_ex(const char *in_path, const char *out_path, const char *format_name, int video_codec, int max_long, int max_short, int crf, int faststart, cav_progress_fn progress, void *context, cav_frame_fn frame_fn, void *frame_context, double start, double end, double audio_gain, int keep_audio, const int32_t *display_matrix);

#endif
