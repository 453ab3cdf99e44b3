#include "cavformat_shims.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Whether exports favour speed over memory (the web rendering helper, a process of its own). */
static int cav_throughput = 0;

void cav_export_prefer_throughput(void) { cav_throughput = 1; }

int cav_exit_code(void) { return AVERROR_EXIT; }

int cav_not_supported_code(void) { return AVERROR(ENOTSUP); }

static int cav_copy_codec_tag(const AVOutputFormat *format, AVCodecParameters *par) {
    unsigned tag = 0;
    if (!format->codec_tag || av_codec_get_id(format->codec_tag, par->codec_tag) == par->codec_id ||
        !av_codec_get_tag2(format->codec_tag, par->codec_id, &tag)) return par->codec_tag;
    return 0;
}

/* An audio stream re-encoded to AAC during an export (when its codec cannot go into the container). */
typedef struct cav_audio_coder {
    AVCodecContext *dec, *enc;
    struct SwrContext *swr;
    AVFrame *frame, *out;
    int64_t next_pts;
    float gain;
} cav_audio_coder;

static void cav_audio_free(cav_audio_coder *a) {
    avcodec_free_context(&a->dec);
    avcodec_free_context(&a->enc);
    swr_free(&a->swr);
    av_frame_free(&a->frame);
    av_frame_free(&a->out);
}

static int cav_audio_open(cav_audio_coder *a, AVStream *ist, AVStream *ost, const AVOutputFormat *format) {
    int err;
    const AVCodec *decoder = avcodec_find_decoder(ist->codecpar->codec_id);
    const AVCodec *encoder = avcodec_find_encoder(AV_CODEC_ID_AAC);
    if (!decoder) return AVERROR_DECODER_NOT_FOUND;
    if (!encoder) return AVERROR_ENCODER_NOT_FOUND;
    if (!(a->dec = avcodec_alloc_context3(decoder)) || !(a->enc = avcodec_alloc_context3(encoder))) return AVERROR(ENOMEM);
    if ((err = avcodec_parameters_to_context(a->dec, ist->codecpar)) < 0) return err;
    a->dec->pkt_timebase = ist->time_base;
    if ((err = avcodec_open2(a->dec, decoder, NULL)) < 0) return err;
    if (a->dec->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC)
        av_channel_layout_default(&a->dec->ch_layout, a->dec->ch_layout.nb_channels);
    if ((err = av_channel_layout_copy(&a->enc->ch_layout, &a->dec->ch_layout)) < 0) return err;
    a->enc->sample_rate = a->dec->sample_rate;
    a->enc->sample_fmt = AV_SAMPLE_FMT_FLTP;
    a->enc->bit_rate = 96000L * (a->enc->ch_layout.nb_channels > 1 ? 2 : 1);
    a->enc->time_base = (AVRational){1, a->enc->sample_rate};
    if (format->flags & AVFMT_GLOBALHEADER) a->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if ((err = avcodec_open2(a->enc, encoder, NULL)) < 0) return err;
    if ((err = avcodec_parameters_from_context(ost->codecpar, a->enc)) < 0) return err;
    ost->time_base = a->enc->time_base;
    if ((err = swr_alloc_set_opts2(&a->swr, &a->enc->ch_layout, a->enc->sample_fmt, a->enc->sample_rate,
                                   &a->dec->ch_layout, a->dec->sample_fmt, a->dec->sample_rate, 0, NULL)) < 0) return err;
    if ((err = swr_init(a->swr)) < 0) return err;
    if (!(a->frame = av_frame_alloc()) || !(a->out = av_frame_alloc())) return AVERROR(ENOMEM);
    a->next_pts = AV_NOPTS_VALUE;
    a->gain = 1;
    return 0;
}

static /* Encodes what the resampler holds in frames of the encoder's size (and the tail when flushing) and writes the
   packets to stream `index`. */
int cav_audio_encode(cav_audio_coder *a, AVFormatContext *out, int index, AVPacket *packet, int flush) {
    int err, frame_size = a->enc->frame_size > 0 ? a->enc->frame_size : 1024;
    for (;;) {
        int available = swr_get_out_samples(a->swr, 0);
        if (available <= 0 || (available < frame_size && !flush)) break;
        av_frame_unref(a->out);
        a->out->nb_samples = frame_size;
        a->out->format = a->enc->sample_fmt;
        a->out->sample_rate = a->enc->sample_rate;
        if ((err = av_channel_layout_copy(&a->out->ch_layout, &a->enc->ch_layout)) < 0) return err;
        if ((err = av_frame_get_buffer(a->out, 0)) < 0) return err;
        int n = swr_convert(a->swr, a->out->data, frame_size, NULL, 0);
        if (n < 0) return n;
        if (n == 0) break;
        a->out->nb_samples = n;
        if (a->gain != 1) {
            for (int c = 0; c < a->out->ch_layout.nb_channels; c++) {
                float *samples = (float *)a->out->extended_data[c];
                for (int k = 0; k < n; k++) samples[k] *= a->gain;
            }
        }
        a->out->pts = a->next_pts == AV_NOPTS_VALUE ? 0 : a->next_pts;
        a->next_pts = a->out->pts + n;
        if ((err = avcodec_send_frame(a->enc, a->out)) < 0) return err;
        while ((err = avcodec_receive_packet(a->enc, packet)) == 0) {
            av_packet_rescale_ts(packet, a->enc->time_base, out->streams[index]->time_base);
            packet->stream_index = index;
            if ((err = av_interleaved_write_frame(out, packet)) < 0) return err;
        }
        if (err != AVERROR(EAGAIN)) return err;
    }
    if (!flush) return 0;
    avcodec_send_frame(a->enc, NULL);
    while ((err = avcodec_receive_packet(a->enc, packet)) == 0) {
        av_packet_rescale_ts(packet, a->enc->time_base, out->streams[index]->time_base);
        packet->stream_index = index;
        if ((err = av_interleaved_write_frame(out, packet)) < 0) return err;
    }
    return err == AVERROR_EOF ? 0 : err;
}

static /* Decodes an audio packet (NULL: the end) into the resampler, then encodes what is ready. */
int cav_audio_feed(cav_audio_coder *a, AVStream *ist, AVFormatContext *out, int index, AVPacket *in,
                                 AVPacket *packet) {
    int err = avcodec_send_packet(a->dec, in);
    if (err < 0 && err != AVERROR_INVALIDDATA && err != AVERROR_EOF) return err;
    while ((err = avcodec_receive_frame(a->dec, a->frame)) == 0) {
        if (a->next_pts == AV_NOPTS_VALUE)
            a->next_pts = a->frame->pts == AV_NOPTS_VALUE ? 0 : av_rescale_q(a->frame->pts, ist->time_base, a->enc->time_base);
        err = swr_convert(a->swr, NULL, 0, (const uint8_t **)a->frame->extended_data, a->frame->nb_samples);
        av_frame_unref(a->frame);
        if (err < 0) return err;
        if ((err = cav_audio_encode(a, out, index, packet, 0)) < 0) return err;
    }
    if (err == AVERROR(EAGAIN)) return 0;
    if (err == AVERROR_EOF) return cav_audio_encode(a, out, index, packet, 1);
    return err;
}

int cav_export_ex(const char *in_path, const char *out_path, const char *format_name, int video_codec,
                                int max_long, int max_short, int crf, int faststart, cav_progress_fn progress,
                                void *context, cav_frame_fn frame_fn, void *frame_context, double start, double end,
                                double audio_gain, int keep_audio, const int32_t *display_matrix) {
    AVFormatContext *in = NULL, *out = NULL;
    AVCodecContext *dec = NULL, *enc = NULL;
    struct SwsContext *sws = NULL;
    AVPacket *pkt = NULL, *epkt = NULL;
    AVFrame *frame = NULL, *scaled = NULL, *rgba = NULL;
    struct SwsContext *to_rgba = NULL, *from_rgba = NULL;
    int trimming = start > 0 || end > start;
    AVDictionary *mux_options = NULL, *enc_options = NULL;
    int *map = NULL;
    cav_audio_coder *audio = NULL;
    int vin = -1, header_written = 0;
    double duration = 0;
    int err = avformat_open_input(&in, in_path, NULL, NULL);
    if (err < 0) return err;
    if ((err = avformat_find_stream_info(in, NULL)) < 0) goto done;
    if (in->duration != AV_NOPTS_VALUE && in->duration > 0) duration = (double)in->duration / AV_TIME_BASE;
    if ((err = avformat_alloc_output_context2(&out, NULL, format_name, out_path)) < 0) goto done;
    map = av_calloc(in->nb_streams, sizeof(int));
    audio = av_calloc(in->nb_streams, sizeof(cav_audio_coder));
    pkt = av_packet_alloc();
    epkt = av_packet_alloc();
    frame = av_frame_alloc();
    if (!map || !audio || !pkt || !epkt || !frame) { err = AVERROR(ENOMEM); goto done; }
    if (video_codec) {
        vin = av_find_best_stream(in, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
        if (vin < 0) { err = vin; goto done; }
    }
    const AVDictionaryEntry *entry = NULL;
    while ((entry = av_dict_get(in->metadata, "", entry, AV_DICT_IGNORE_SUFFIX))) {
        if (!strcmp(entry->key, "major_brand") || !strcmp(entry->key, "minor_version") ||
            !strcmp(entry->key, "compatible_brands") || !strcmp(entry->key, "encoder")) continue;
        av_dict_set(&out->metadata, entry->key, entry->value, 0);
    }
    for (unsigned i = 0; i < in->nb_streams; i++) {
        AVStream *ist = in->streams[i];
        AVCodecParameters *par = ist->codecpar;
        map[i] = -1;
        if (par->codec_type != AVMEDIA_TYPE_VIDEO && par->codec_type != AVMEDIA_TYPE_AUDIO) continue;
        if (ist->disposition & AV_DISPOSITION_ATTACHED_PIC) continue;
        if (video_codec && par->codec_type == AVMEDIA_TYPE_VIDEO && (int)i != vin) continue;
        if (!keep_audio && par->codec_type == AVMEDIA_TYPE_AUDIO) continue;
        int reencode_audio = par->codec_type == AVMEDIA_TYPE_AUDIO && (audio_gain != 1 || keep_audio == 2) && video_codec;
        if (!reencode_audio && (int)i != vin && avformat_query_codec(out->oformat, par->codec_id, FF_COMPLIANCE_NORMAL) == 0) {
            if (!video_codec || par->codec_type != AVMEDIA_TYPE_AUDIO) { err = AVERROR(ENOTSUP); goto done; }
            reencode_audio = 1;
        }
        AVStream *ost = avformat_new_stream(out, NULL);
        if (!ost) { err = AVERROR(ENOMEM); goto done; }
        map[i] = ost->index;
        ost->time_base = ist->time_base;
        ost->disposition = ist->disposition;
        av_dict_copy(&ost->metadata, ist->metadata, 0);
        size_t size = 0;
        const uint8_t *matrix = av_stream_get_side_data(ist, AV_PKT_DATA_DISPLAYMATRIX, &size);
        if (display_matrix && par->codec_type == AVMEDIA_TYPE_VIDEO) {
            matrix = (const uint8_t *)display_matrix;
            size = 9 * sizeof(int32_t);
        }
        if (matrix && size) {
            uint8_t *copy = av_stream_new_side_data(ost, AV_PKT_DATA_DISPLAYMATRIX, size);
            if (copy) memcpy(copy, matrix, size);
        }
        if (reencode_audio) {
            if ((err = cav_audio_open(&audio[i], ist, ost, out->oformat)) < 0) goto done;
            audio[i].gain = (float)audio_gain;
            continue;
        }
        if ((int)i != vin) {
            if ((err = avcodec_parameters_copy(ost->codecpar, par)) < 0) goto done;
            ost->codecpar->codec_tag = cav_copy_codec_tag(out->oformat, ost->codecpar);
            if (!ost->codecpar->codec_tag && par->codec_id == AV_CODEC_ID_HEVC) ost->codecpar->codec_tag = MKTAG('h', 'v', 'c', '1');
            continue;
        }
        const AVCodec *decoder = avcodec_find_decoder(par->codec_id);
        if (!decoder) { err = AVERROR_DECODER_NOT_FOUND; goto done; }
        dec = avcodec_alloc_context3(decoder);
        if (!dec) { err = AVERROR(ENOMEM); goto done; }
        if ((err = avcodec_parameters_to_context(dec, par)) < 0) goto done;
        dec->pkt_timebase = ist->time_base;
        dec->thread_count = cav_throughput ? 0 : av_cpu_count() < 8 ? av_cpu_count() : 8; /* libavcodec's own choice is one more */
        if ((err = avcodec_open2(dec, decoder, NULL)) < 0) goto done;
        int width = par->width, height = par->height;
        if (max_long > 0 && max_short > 0 && width > 0 && height > 0) {
            int box_w = width >= height ? max_long : max_short, box_h = width >= height ? max_short : max_long;
            double scale = fmin((double)box_w / width, (double)box_h / height);
            if (scale < 1) { width = (int)lround(width * scale); height = (int)lround(height * scale); }
        }
        width &= ~1; height &= ~1;
        if (width < 2 || height < 2) { err = AVERROR_INVALIDDATA; goto done; }
        const AVPixFmtDescriptor *source = av_pix_fmt_desc_get((enum AVPixelFormat)par->format);
        int deep = video_codec == 2 && source && source->comp[0].depth > 8;
        const AVCodec *encoder = avcodec_find_encoder_by_name(video_codec == 2 ? "libx265" : "libx264");
        if (!encoder) encoder = avcodec_find_encoder(video_codec == 2 ? AV_CODEC_ID_HEVC : AV_CODEC_ID_H264);
        if (!encoder) { err = AVERROR_ENCODER_NOT_FOUND; goto done; }
        enc = avcodec_alloc_context3(encoder);
        if (!enc) { err = AVERROR(ENOMEM); goto done; }
        enc->width = width;
        enc->height = height;
        enc->pix_fmt = deep ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P;
        enc->time_base = ist->time_base;
        enc->framerate = av_guess_frame_rate(in, ist, NULL);
        enc->sample_aspect_ratio = par->sample_aspect_ratio;
        enc->color_primaries = par->color_primaries;
        enc->color_trc = par->color_trc;
        enc->colorspace = par->color_space;
        enc->color_range = AVCOL_RANGE_MPEG;
        /* One encoding thread a core, at most 8 (x264 would take 1.5 a core, each holding frames: memory grows with
           the machine for little speed, and the caller's frame filter wants a core too) — unless the process exists
           to encode (cav_export_prefer_throughput): then x264 threads as it likes. */
        enc->thread_count = cav_throughput ? 0 : av_cpu_count() < 8 ? av_cpu_count() : 8;
        if (out->oformat->flags & AVFMT_GLOBALHEADER) enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        av_dict_set(&enc_options, "preset", "veryfast", 0);
        av_dict_set_int(&enc_options, "crf", crf, 0);
        if (video_codec == 2) av_dict_set(&enc_options, "x265-params", "log-level=none", 0);
        /* No buffer of frames between x264's lookahead thread and its encoders: the same stream, 30 MB less at 1080p. */
        else if (!cav_throughput) av_dict_set(&enc_options, "x264-params", "sync-lookahead=0", 0);
        if ((err = avcodec_open2(enc, encoder, &enc_options)) < 0) goto done;
        if ((err = avcodec_parameters_from_context(ost->codecpar, enc)) < 0) goto done;
        if (video_codec == 2) ost->codecpar->codec_tag = MKTAG('h', 'v', 'c', '1');
        ost->time_base = enc->time_base;
        scaled = av_frame_alloc();
        if (!scaled) { err = AVERROR(ENOMEM); goto done; }
        scaled->format = enc->pix_fmt;
        scaled->width = width;
        scaled->height = height;
        if ((err = av_frame_get_buffer(scaled, 0)) < 0) goto done;
    }
    if (out->nb_streams == 0) { err = AVERROR_STREAM_NOT_FOUND; goto done; }
    if (!(out->oformat->flags & AVFMT_NOFILE) && (err = avio_open(&out->pb, out_path, AVIO_FLAG_WRITE)) < 0) goto done;
    av_dict_set(&mux_options, "movflags", faststart ? "+use_metadata_tags+faststart" : "+use_metadata_tags", 0);
    if ((err = avformat_write_header(out, &mux_options)) < 0) goto done;
    header_written = 1;
    if (start > 0) av_seek_frame(in, -1, (int64_t)(start * AV_TIME_BASE), AVSEEK_FLAG_BACKWARD);
    int reading = 1;
    for (;;) {
        if (reading) {
            err = av_read_frame(in, pkt);
            if (err == AVERROR_EOF) {
                reading = 0;
                err = 0;
                for (unsigned i = 0; i < in->nb_streams; i++) {
                    if (audio[i].dec && (err = cav_audio_feed(&audio[i], in->streams[i], out, map[i], NULL, epkt)) < 0) goto done;
                }
                if (!dec) break;
            } else if (err < 0) {
                goto done;
            } else if (map[pkt->stream_index] < 0) {
                av_packet_unref(pkt);
                continue;
            } else {
                AVStream *ist = in->streams[pkt->stream_index];
                if (progress && duration > 0 && pkt->pts != AV_NOPTS_VALUE &&
                    progress(context, fmin(1, pkt->pts * av_q2d(ist->time_base) / duration))) { err = AVERROR_EXIT; goto done; }
                if (trimming && pkt->stream_index != vin) {
                    double t = pkt->pts == AV_NOPTS_VALUE ? 0 : pkt->pts * av_q2d(ist->time_base);
                    if (t < start - 1e-6 || (end > start && t >= end - 1e-6)) { av_packet_unref(pkt); continue; }
                    int64_t shift = (int64_t)llround(start / av_q2d(ist->time_base));
                    if (pkt->pts != AV_NOPTS_VALUE) pkt->pts -= shift;
                    if (pkt->dts != AV_NOPTS_VALUE) pkt->dts -= shift;
                }
                if (audio[pkt->stream_index].dec) {
                    err = cav_audio_feed(&audio[pkt->stream_index], ist, out, map[pkt->stream_index], pkt, epkt);
                    av_packet_unref(pkt);
                    if (err < 0) goto done;
                    continue;
                }
                if (pkt->stream_index != vin) {
                    AVStream *ost = out->streams[map[pkt->stream_index]];
                    av_packet_rescale_ts(pkt, ist->time_base, ost->time_base);
                    pkt->stream_index = ost->index;
                    pkt->pos = -1;
                    if ((err = av_interleaved_write_frame(out, pkt)) < 0) goto done;
                    continue;
                }
            }
        }
        /* Transcoding: a video packet to decode, or the end of the input (flush). */
        if (reading) {
            err = avcodec_send_packet(dec, pkt);
            av_packet_unref(pkt);
            if (err < 0 && err != AVERROR_INVALIDDATA) goto done;
        } else {
            avcodec_send_packet(dec, NULL);
        }
        int decoder_done = 0;
        for (;;) {
            err = avcodec_receive_frame(dec, frame);
            if (err == AVERROR(EAGAIN)) { err = 0; break; }
            if (err == AVERROR_EOF) { err = 0; decoder_done = 1; break; }
            if (err < 0) goto done;
            double seconds = frame->best_effort_timestamp * av_q2d(in->streams[vin]->time_base);
            if (trimming && seconds < start - 1e-6) { av_frame_unref(frame); continue; }
            if (end > start && seconds >= end - 1e-6) { av_frame_unref(frame); reading = 0; decoder_done = 1; break; }
            if ((err = av_frame_make_writable(scaled)) < 0) goto done;
            if (frame_fn) {
                if (!rgba) {
                    rgba = av_frame_alloc();
                    if (!rgba) { err = AVERROR(ENOMEM); goto done; }
                    rgba->format = AV_PIX_FMT_RGBA;
                    rgba->width = enc->width;
                    rgba->height = enc->height;
                    if ((err = av_frame_get_buffer(rgba, 0)) < 0) goto done;
                }
                to_rgba = sws_getCachedContext(to_rgba, frame->width, frame->height, (enum AVPixelFormat)frame->format, enc->width,
                                               enc->height, AV_PIX_FMT_RGBA, SWS_BICUBIC, NULL, NULL, NULL);
                from_rgba = sws_getCachedContext(from_rgba, enc->width, enc->height, AV_PIX_FMT_RGBA, enc->width, enc->height,
                                                 enc->pix_fmt, SWS_BICUBIC, NULL, NULL, NULL);
                if (!to_rgba || !from_rgba) { err = AVERROR(EINVAL); goto done; }
                sws_scale(to_rgba, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, rgba->data, rgba->linesize);
                int stop = frame_fn(frame_context, rgba->data[0], enc->width, enc->height, rgba->linesize[0], seconds - (trimming ? start : 0));
                if (stop) { err = stop < 0 ? stop : AVERROR_EXIT; goto done; }
                sws_scale(from_rgba, (const uint8_t *const *)rgba->data, rgba->linesize, 0, enc->height, scaled->data, scaled->linesize);
            } else {
                sws = sws_getCachedContext(sws, frame->width, frame->height, (enum AVPixelFormat)frame->format, enc->width,
                                           enc->height, enc->pix_fmt, SWS_BICUBIC, NULL, NULL, NULL);
                if (!sws) { err = AVERROR(EINVAL); goto done; }
                sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, scaled->data,
                          scaled->linesize);
            }
            scaled->pts = frame->best_effort_timestamp - (trimming ? (int64_t)llround(start / av_q2d(in->streams[vin]->time_base)) : 0);
            av_frame_unref(frame);
            if ((err = avcodec_send_frame(enc, scaled)) < 0) goto done;
            while ((err = avcodec_receive_packet(enc, epkt)) == 0) {
                AVStream *ost = out->streams[map[vin]];
                av_packet_rescale_ts(epkt, enc->time_base, ost->time_base);
                epkt->stream_index = ost->index;
                if ((err = av_interleaved_write_frame(out, epkt)) < 0) goto done;
            }
            if (err != AVERROR(EAGAIN)) goto done;
            err = 0;
        }
        if (decoder_done) {
            avcodec_send_frame(enc, NULL);
            while ((err = avcodec_receive_packet(enc, epkt)) == 0) {
                AVStream *ost = out->streams[map[vin]];
                av_packet_rescale_ts(epkt, enc->time_base, ost->time_base);
                epkt->stream_index = ost->index;
                if ((err = av_interleaved_write_frame(out, epkt)) < 0) goto done;
            }
            if (err != AVERROR_EOF) goto done;
            err = 0;
            break;
        }
    }
    header_written = 0;
    if ((err = av_write_trailer(out)) < 0) goto done;
    if (progress) progress(context, 1);
    err = 0;
done:
    if (out && header_written) av_write_trailer(out);
    if (out && !(out->oformat->flags & AVFMT_NOFILE)) avio_closep(&out->pb);
    avformat_free_context(out);
    av_dict_free(&mux_options);
    av_dict_free(&enc_options);
    if (sws) sws_freeContext(sws);
    if (to_rgba) sws_freeContext(to_rgba);
    if (from_rgba) sws_freeContext(from_rgba);
    av_frame_free(&rgba);
    av_frame_free(&scaled);
    av_frame_free(&frame);
    av_packet_free(&pkt);
    av_packet_free(&epkt);
    avcodec_free_context(&dec);
    avcodec_free_context(&enc);
    av_free(map);
    if (audio && in) for (unsigned i = 0; i < in->nb_streams; i++) cav_audio_free(&audio[i]);
    av_free(audio);
    avformat_close_input(&in);
    return err;
}
