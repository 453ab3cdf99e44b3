#include "cavformat_shims.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

void cav_quiet(void) { av_log_set_level(AV_LOG_QUIET); }

int cav_probe_file(const char *path, cav_video_info *info) {
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
        if (st->codecpar->codec_type == AVMEDIA_TYPE_AUDIO && !info->has_audio) {
            info->has_audio = 1;
            snprintf(info->audio_codec, sizeof(info->audio_codec), "%s", avcodec_get_name(st->codecpar->codec_id));
        }
        if (st->codecpar->codec_type != AVMEDIA_TYPE_VIDEO || info->has_video) continue;
        if (st->disposition & AV_DISPOSITION_ATTACHED_PIC) continue;
        info->has_video = 1;
        info->width = st->codecpar->width;
        info->height = st->codecpar->height;
        if (st->avg_frame_rate.den > 0) info->frame_rate = av_q2d(st->avg_frame_rate);
        info->rotation = cav_stream_rotation(st);
        snprintf(info->video_codec, sizeof(info->video_codec), "%s", avcodec_get_name(st->codecpar->codec_id));
        const AVPixFmtDescriptor *pixels = av_pix_fmt_desc_get((enum AVPixelFormat)st->codecpar->format);
        if (pixels) {
            info->video_bit_depth = pixels->comp[0].depth;
            info->video_chroma_420 = pixels->nb_components >= 3 && pixels->log2_chroma_w == 1 && pixels->log2_chroma_h == 1;
        }
    }
    avformat_close_input(&ctx);
    return 0;
}

int cav_stream_rotation(const AVStream *st) {
    const uint8_t *matrix = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (!matrix) return 0;
    double theta = -av_display_rotation_get((const int32_t *)matrix);
    if (isnan(theta)) return 0;
    int deg = (int)lround(theta) % 360;
    if (deg < 0) deg += 360;
    return ((deg + 45) / 90 * 90) % 360;
}

void cav_error_string(int err, char *buf, size_t len) { av_strerror(err, buf, len); }

int cav_video_is_hevc(const char *path) {
    AVFormatContext *in = NULL;
    int err = avformat_open_input(&in, path, NULL, NULL);
    if (err < 0) return err;
    int result = 0;
    for (unsigned i = 0; i < in->nb_streams; i++) {
        if (in->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) {
            result = in->streams[i]->codecpar->codec_id == AV_CODEC_ID_HEVC;
            break;
        }
    }
    avformat_close_input(&in);
    return result;
}

int cav_metadata(const char *path, char *buf, size_t len) {
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
