/* CRaw over LibRaw's C API (see craw.h). */
#include "craw.h"
#include <libraw/libraw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct craw_file {
    libraw_data_t *raw;
    void *bytes;
    size_t size;
    char *path;
    int needs_reopen;
};

static void fail(char *error, size_t size, const char *what, int code) {
    if (error && size) snprintf(error, size, "%s: %s", what, code ? libraw_strerror(code) : "out of memory");
}

/* dcraw's flip codes → EXIF orientations. */
static int orientation_of_flip(int flip) {
    switch (flip) {
    case 3: return 3;
    case 5: return 8;
    case 6: return 6;
    default: return 1;
    }
}

/* The as-shot white: the camera's neutral (1 / its multipliers) through the camera → sRGB matrix to CIE xy, then
 * McCamy's approximation of the correlated colour temperature. */
static float as_shot_temperature(libraw_data_t *raw) {
    float *mul = raw->color.cam_mul;
    if (mul[0] <= 0 || mul[1] <= 0 || mul[2] <= 0) return 0;
    float *pre = raw->color.pre_mul;
    double cam[4];
    for (int c = 0; c < 4; c++) {
        double m = mul[c == 3 ? (mul[3] > 0 ? 3 : 1) : c], p = pre[c == 3 ? (pre[3] > 0 ? 3 : 1) : c];
        cam[c] = p > 0 && m > 0 ? p / m : 1;
    }
    double rgb[3];
    for (int i = 0; i < 3; i++) {
        rgb[i] = 0;
        for (int c = 0; c < raw->idata.colors && c < 4; c++) rgb[i] += raw->color.rgb_cam[i][c] * cam[c];
    }
    double X = 0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2];
    double Y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    double Z = 0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2];
    double sum = X + Y + Z;
    if (!(sum > 0)) return 0;
    double x = X / sum, y = Y / sum;
    if (fabs(0.1858 - y) < 1e-9) return 0;
    double n = (x - 0.3320) / (0.1858 - y);
    double cct = 449 * n * n * n + 3525 * n * n + 6823.3 * n + 5520.33;
    return (cct > 1000 && cct < 50000) ? (float)cct : 0;
}

/* LibRaw prints data and memory errors to standard error by default; the failing call's status says it instead. */
static void quiet_data_error(void *context, const char *file, const int offset) { (void)context; (void)file; (void)offset; }
static void quiet_memory_error(void *context, const char *file, const char *where) { (void)context; (void)file; (void)where; }

craw_file *craw_open(const char *path, const void *bytes, size_t size, craw_info *info, char *error, size_t error_size) {
    craw_file *file = calloc(1, sizeof *file);
    if (!file) { fail(error, error_size, "open", 0); return NULL; }
    file->raw = libraw_init(0);
    if (!file->raw) { free(file); fail(error, error_size, "open", 0); return NULL; }
    libraw_set_dataerror_handler(file->raw, quiet_data_error, NULL);
    libraw_set_memerror_handler(file->raw, quiet_memory_error, NULL);
    int status;
    if (path) {
        file->path = strdup(path);
        status = file->path ? libraw_open_file(file->raw, path) : LIBRAW_UNSUFFICIENT_MEMORY;
    } else {
        file->bytes = malloc(size ? size : 1);
        if (file->bytes) memcpy(file->bytes, bytes, size);
        status = file->bytes ? libraw_open_buffer(file->raw, file->bytes, size) : LIBRAW_UNSUFFICIENT_MEMORY;
    }
    if (status != LIBRAW_SUCCESS) { fail(error, error_size, "open", status); craw_close(file); return NULL; }
    /* Sizes as developed: LibRaw reports the raw's, flipped when the flip turns the image. */
    status = libraw_adjust_sizes_info_only(file->raw);
    if (status != LIBRAW_SUCCESS) { fail(error, error_size, "sizes", status); craw_close(file); return NULL; }
    int flip = file->raw->sizes.flip;
    int turned = flip == 5 || flip == 6;
    info->width = turned ? file->raw->sizes.iheight : file->raw->sizes.iwidth;
    info->height = turned ? file->raw->sizes.iwidth : file->raw->sizes.iheight;
    info->orientation = orientation_of_flip(flip);
    info->baseline_exposure = file->raw->color.dng_levels.baseline_exposure;
    snprintf(info->make, sizeof info->make, "%s", file->raw->idata.make);
    snprintf(info->model, sizeof info->model, "%s", file->raw->idata.model);
    /* Nothing is unpacked yet: reading a file's facts costs its header, not its mosaic. */
    file->size = size;
    file->needs_reopen = 1; /* libraw_adjust_sizes_info_only leaves it to be opened again before unpacking */
    return file;
}

/* Opens the file again when its last use left it unusable for the next (sizes read, or a development done). */
static int reopen(craw_file *file) {
    if (!file->needs_reopen) return LIBRAW_SUCCESS;
    libraw_recycle(file->raw);
    file->needs_reopen = 0;
    return file->path ? libraw_open_file(file->raw, file->path) : libraw_open_buffer(file->raw, file->bytes, file->size);
}

float craw_as_shot_temperature(craw_file *file) {
    /* The colour data is sound only once the mosaic unpacked: on damaged files LibRaw's parser leaves it undefined. */
    int status = reopen(file);
    if (status == LIBRAW_SUCCESS) status = libraw_unpack(file->raw);
    file->needs_reopen = 1;
    return status == LIBRAW_SUCCESS ? as_shot_temperature(file->raw) : 0;
}

unsigned short *craw_develop(craw_file *file, int draft, int half, int *width, int *height, char *error, size_t error_size) {
    libraw_data_t *raw = file->raw;
    int status = reopen(file);
    if (status == LIBRAW_SUCCESS) status = libraw_unpack(raw);
    if (status != LIBRAW_SUCCESS) { fail(error, error_size, "unpack", status); return NULL; }
    file->needs_reopen = 1;
    raw->params.output_bps = 16;
    raw->params.output_color = 1; /* sRGB primaries */
    raw->params.gamm[0] = 1.0;    /* linear */
    raw->params.gamm[1] = 1.0;
    raw->params.no_auto_bright = 1;
    raw->params.use_camera_wb = 1;
    raw->params.user_flip = 0; /* Core Image applies the orientation */
    raw->params.half_size = half ? 1 : 0;
    raw->params.user_qual = draft ? 0 : 3;
    raw->params.highlight = 0;
    status = libraw_dcraw_process(raw);
    if (status != LIBRAW_SUCCESS) { fail(error, error_size, "develop", status); return NULL; }
    libraw_processed_image_t *image = libraw_dcraw_make_mem_image(raw, &status);
    if (!image) { fail(error, error_size, "develop", status); return NULL; }
    if (image->type != LIBRAW_IMAGE_BITMAP || image->bits != 16 || image->colors != 3) {
        libraw_dcraw_clear_mem(image);
        fail(error, error_size, "develop", LIBRAW_UNSUPPORTED_THUMBNAIL);
        return NULL;
    }
    size_t count = (size_t)image->width * image->height * 3;
    unsigned short *pixels = malloc(count * sizeof *pixels);
    if (pixels) memcpy(pixels, image->data, count * sizeof *pixels);
    *width = image->width;
    *height = image->height;
    libraw_dcraw_clear_mem(image);
    if (!pixels) fail(error, error_size, "develop", 0);
    return pixels;
}

unsigned char *craw_preview_jpeg(craw_file *file, size_t *size) {
    if (reopen(file) != LIBRAW_SUCCESS) return NULL;
    file->needs_reopen = 1;
    if (libraw_unpack_thumb(file->raw) != LIBRAW_SUCCESS) return NULL;
    int status = 0;
    libraw_processed_image_t *thumb = libraw_dcraw_make_mem_thumb(file->raw, &status);
    if (!thumb) return NULL;
    unsigned char *bytes = NULL;
    if (thumb->type == LIBRAW_IMAGE_JPEG && thumb->data_size > 0) {
        bytes = malloc(thumb->data_size);
        if (bytes) { memcpy(bytes, thumb->data, thumb->data_size); *size = thumb->data_size; }
    }
    libraw_dcraw_clear_mem(thumb);
    return bytes;
}

void craw_free(void *pointer) { free(pointer); }

void craw_close(craw_file *file) {
    if (!file) return;
    if (file->raw) libraw_close(file->raw);
    free(file->bytes);
    free(file->path);
    free(file);
}

int craw_camera_count(void) { return libraw_cameraCount(); }
const char *craw_camera(int index) {
    const char **list = libraw_cameraList();
    return index >= 0 && index < libraw_cameraCount() ? list[index] : NULL;
}
const char *craw_version(void) { return libraw_version(); }
