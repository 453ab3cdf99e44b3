#ifndef CAVFORMAT_SHIM_H
#define CAVFORMAT_SHIM_H
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/log.h>
#include <libavutil/imgutils.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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
} cav_video_info;

static inline void cav_quiet(void) { av_log_set_level(AV_LOG_QUIET); }

static inline int cav_probe_file(const char *path, cav_video_info *info) {
    AVFormatContext *ctx = NULL;
    memset(info, 0, sizeof(*info));
    info->duration = -1;
    int err = avformat_open_input(&ctx, path, NULL, NULL);
    if (err < 0) return err;
    err = avformat_find_stream_info(ctx, NULL);
    if (err < 0) { avformat_close_input(&ctx); return err; }
    if (ctx->duration != AV_NOPTS_VALUE && ctx->duration > 0) info->duration = (double)ctx->duration / AV_TIME_BASE;
    for (unsigned i = 0; i < ctx->nb_streams; i++) {
        AVStream *st = ctx->streams[i];
        if (st->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) info->has_audio = 1;
        if (st->codecpar->codec_type != AVMEDIA_TYPE_VIDEO || info->has_video) continue;
        if (st->disposition & AV_DISPOSITION_ATTACHED_PIC) continue;
        info->has_video = 1;
        info->width = st->codecpar->width;
        info->height = st->codecpar->height;
        if (st->avg_frame_rate.den > 0) info->frame_rate = av_q2d(st->avg_frame_rate);
        const uint8_t *matrix = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, NULL);
        if (matrix) {
            double theta = -av_display_rotation_get((const int32_t *)matrix);
            if (!isnan(theta)) {
                int deg = (int)lround(theta) % 360;
                if (deg < 0) deg += 360;
                info->rotation = ((deg + 45) / 90 * 90) % 360;
            }
        }
    }
    avformat_close_input(&ctx);
    return 0;
}

static inline void cav_error_string(int err, char *buf, size_t len) { av_strerror(err, buf, len); }

/* The container's and the first video stream's metadata as "key\tvalue\n" lines (keys as ffmpeg names them:
   creation_time, com.apple.quicktime.creationdate, location, com.apple.quicktime.content.identifier …). Returns the
   bytes written (truncated to len - 1), or an AVERROR. */
static inline int cav_metadata(const char *path, char *buf, size_t len) {
    AVFormatContext *ctx = NULL;
    if (len == 0) return 0;
    buf[0] = 0;
    int err = avformat_open_input(&ctx, path, NULL, NULL);
    if (err < 0) return err;
    size_t used = 0;
    AVDictionary *dicts[2] = { ctx->metadata, NULL };
    for (unsigned i = 0; i < ctx->nb_streams; i++) {
        if (ctx->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) { dicts[1] = ctx->streams[i]->metadata; break; }
    }
    for (int d = 0; d < 2; d++) {
        const AVDictionaryEntry *e = NULL;
        while (dicts[d] && (e = av_dict_get(dicts[d], "", e, AV_DICT_IGNORE_SUFFIX))) {
            int n = snprintf(buf + used, len - used, "%s%s\t%s\n", d == 1 ? "stream:" : "", e->key, e->value);
            if (n < 0 || (size_t)n >= len - used) { used = len - 1; break; }
            used += (size_t)n;
        }
    }
    avformat_close_input(&ctx);
    return (int)used;
}

/* The first decodable frame of the first video stream at or after `seconds`, as 8-bit RGB (width * height * 3
   bytes, stored orientation: the caller applies `rotation` from cav_probe_file). The caller frees *pixels with
   av_free. Returns 0, or an AVERROR. Frames larger than max_pixels are refused. */
static inline int cav_poster_frame(const char *path, double seconds, long max_pixels, uint8_t **pixels, int *width, int *height) {
    AVFormatContext *ctx = NULL;
    AVCodecContext *codec = NULL;
    AVPacket *packet = NULL;
    AVFrame *frame = NULL;
    struct SwsContext *sws = NULL;
    *pixels = NULL;
    int err = avformat_open_input(&ctx, path, NULL, NULL);
    if (err < 0) return err;
    if ((err = avformat_find_stream_info(ctx, NULL)) < 0) goto done;
    int stream = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (stream < 0) { err = stream; goto done; }
    AVStream *st = ctx->streams[stream];
    const AVCodec *decoder = avcodec_find_decoder(st->codecpar->codec_id);
    if (!decoder) { err = AVERROR_DECODER_NOT_FOUND; goto done; }
    if ((long)st->codecpar->width * st->codecpar->height > max_pixels) { err = AVERROR(ERANGE); goto done; }
    codec = avcodec_alloc_context3(decoder);
    if (!codec) { err = AVERROR(ENOMEM); goto done; }
    if ((err = avcodec_parameters_to_context(codec, st->codecpar)) < 0) goto done;
    codec->thread_count = 1;
    if ((err = avcodec_open2(codec, decoder, NULL)) < 0) goto done;
    if (seconds > 0) av_seek_frame(ctx, stream, (int64_t)(seconds / av_q2d(st->time_base)), AVSEEK_FLAG_BACKWARD);
    packet = av_packet_alloc();
    frame = av_frame_alloc();
    if (!packet || !frame) { err = AVERROR(ENOMEM); goto done; }
    int got = 0;
    while (!got && (err = av_read_frame(ctx, packet)) >= 0) {
        if (packet->stream_index == stream && avcodec_send_packet(codec, packet) >= 0) {
            if (avcodec_receive_frame(codec, frame) == 0) got = 1;
        }
        av_packet_unref(packet);
    }
    if (!got) {
        /* Drain: some decoders hold the first frame until the end of the stream. */
        avcodec_send_packet(codec, NULL);
        if (avcodec_receive_frame(codec, frame) == 0) got = 1;
    }
    if (!got) { if (err >= 0 || err == AVERROR_EOF) err = AVERROR_INVALIDDATA; goto done; }
    *width = frame->width;
    *height = frame->height;
    sws = sws_getContext(frame->width, frame->height, (enum AVPixelFormat)frame->format, frame->width, frame->height,
                         AV_PIX_FMT_RGB24, SWS_BILINEAR, NULL, NULL, NULL);
    if (!sws) { err = AVERROR(EINVAL); goto done; }
    int stride = frame->width * 3;
    *pixels = av_malloc((size_t)stride * frame->height);
    if (!*pixels) { err = AVERROR(ENOMEM); goto done; }
    uint8_t *planes[4] = { *pixels, NULL, NULL, NULL };
    int strides[4] = { stride, 0, 0, 0 };
    sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    err = 0;
done:
    if (sws) sws_freeContext(sws);
    if (frame) av_frame_free(&frame);
    if (packet) av_packet_free(&packet);
    if (codec) avcodec_free_context(&codec);
    avformat_close_input(&ctx);
    if (err < 0 && *pixels) { av_free(*pixels); *pixels = NULL; }
    return err;
}

#endif
