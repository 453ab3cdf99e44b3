#include "cavformat_shims.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The first frame of an opened input (closed here, whatever happens), with the stream's rotation when asked. */
static int poster_of_input(AVFormatContext *ctx, double seconds, long max_pixels, uint8_t **pixels, int *width, int *height,
                           int *rotation) {
    AVCodecContext *codec = NULL;
    AVPacket *packet = NULL;
    AVFrame *frame = NULL, *rgb = NULL;
    struct SwsContext *sws = NULL;
    *pixels = NULL;
    int err;
    if ((err = avformat_find_stream_info(ctx, NULL)) < 0) goto done;
    int stream = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (stream < 0) { err = stream; goto done; }
    AVStream *st = ctx->streams[stream];
    if (rotation) *rotation = cav_stream_rotation(st);
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
    /* swscale's SIMD converters write whole vectors: past the end of a row whose bytes are not a multiple of the
       vector (568 px of RGB24 from an iPhone video overran a tight buffer and corrupted the heap). Scale into a frame
       that libavutil allocates with its own alignment and padding, then copy the rows out tightly. */
    rgb = av_frame_alloc();
    if (!rgb) { err = AVERROR(ENOMEM); goto done; }
    rgb->format = AV_PIX_FMT_RGB24;
    rgb->width = frame->width;
    rgb->height = frame->height;
    if ((err = av_frame_get_buffer(rgb, 0)) < 0) goto done;
    if ((err = sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, rgb->data,
                         rgb->linesize)) != frame->height) { err = err < 0 ? err : AVERROR_INVALIDDATA; goto done; }
    size_t stride = (size_t)frame->width * 3;
    *pixels = av_malloc(stride * (size_t)frame->height);
    if (!*pixels) { err = AVERROR(ENOMEM); goto done; }
    for (int y = 0; y < frame->height; y++) memcpy(*pixels + stride * (size_t)y, rgb->data[0] + (size_t)rgb->linesize[0] * (size_t)y, stride);
    err = 0;
done:
    if (rgb) av_frame_free(&rgb);
    if (sws) sws_freeContext(sws);
    if (frame) av_frame_free(&frame);
    if (packet) av_packet_free(&packet);
    if (codec) avcodec_free_context(&codec);
    avformat_close_input(&ctx);
    if (err < 0 && *pixels) { av_free(*pixels); *pixels = NULL; }
    return err;
}

int cav_poster_frame(const char *path, double seconds, long max_pixels, uint8_t **pixels, int *width, int *height) {
    AVFormatContext *ctx = NULL;
    *pixels = NULL;
    int err = avformat_open_input(&ctx, path, NULL, NULL);
    if (err < 0) return err;
    return poster_of_input(ctx, seconds, max_pixels, pixels, width, height, NULL);
}

/* A reader's position over its source, for libavformat's callbacks. */
typedef struct {
    cav_read_fn read;
    void *opaque;
    int64_t size;
    int64_t position;
} reader_state;

static int reader_read(void *opaque, uint8_t *buf, int count) {
    reader_state *state = opaque;
    if (state->position >= state->size) return AVERROR_EOF;
    int64_t left = state->size - state->position;
    if (count > left) count = (int)left;
    int got = state->read(state->opaque, state->position, buf, count);
    if (got < 0) return AVERROR(EIO);
    if (got == 0) return AVERROR_EOF;
    if (got > count) return AVERROR(EIO); /* a reader that lies about what it wrote */
    state->position += got;
    return got;
}

static int64_t reader_seek(void *opaque, int64_t offset, int whence) {
    reader_state *state = opaque;
    int64_t target;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return state->size;
    case SEEK_SET: target = offset; break;
    case SEEK_CUR: target = state->position + offset; break;
    case SEEK_END: target = state->size + offset; break;
    default: return AVERROR(EINVAL);
    }
    if (target < 0) return AVERROR(EINVAL);
    state->position = target;
    return target;
}

int cav_poster_frame_reader(cav_read_fn read, void *opaque, int64_t size, double seconds, long max_pixels, uint8_t **pixels,
                            int *width, int *height, int *rotation) {
    *pixels = NULL;
    if (!read || size <= 0) return AVERROR(EINVAL);
    reader_state state = {read, opaque, size, 0};
    const int buffer_size = 64 * 1024;
    uint8_t *buffer = av_malloc(buffer_size);
    if (!buffer) return AVERROR(ENOMEM);
    AVIOContext *io = avio_alloc_context(buffer, buffer_size, 0, &state, reader_read, NULL, reader_seek);
    if (!io) {
        av_free(buffer);
        return AVERROR(ENOMEM);
    }
    AVFormatContext *ctx = avformat_alloc_context();
    if (!ctx) {
        av_freep(&io->buffer);
        avio_context_free(&io);
        return AVERROR(ENOMEM);
    }
    ctx->pb = io;
    ctx->flags |= AVFMT_FLAG_CUSTOM_IO;
    int err = avformat_open_input(&ctx, NULL, NULL, NULL); /* frees ctx on failure */
    if (err >= 0) err = poster_of_input(ctx, seconds, max_pixels, pixels, width, height, rotation);
    /* The buffer may have been replaced by libavformat: free the one the context holds now. */
    av_freep(&io->buffer);
    avio_context_free(&io);
    return err;
}
