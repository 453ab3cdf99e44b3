#include "cvips_shims.h"
#include <math.h>
#include <string.h>

VipsImage *cvips_header_from_file(const char *path) {
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
}

VipsImage *cvips_header_from_jpeg_file(const char *path) {
    VipsImage *out = NULL;
    if (vips_jpegload(path, &out, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL) != 0) return NULL;
    return out;
}

VipsImage *cvips_header_from_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

VipsImage *cvips_load_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", NULL);
}

int cvips_orientation(VipsImage *image) {
    int orientation = 1;
    if (vips_image_get_typeof(image, VIPS_META_ORIENTATION)) {
        if (vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation) != 0) orientation = 1;
    }
    return orientation;
}

const char *cvips_loader(VipsImage *image) {
    const char *loader = NULL;
    if (vips_image_get_typeof(image, VIPS_META_LOADER)) {
        if (vips_image_get_string(image, VIPS_META_LOADER, &loader) != 0) loader = NULL;
    }
    return loader;
}

const void *cvips_blob(VipsImage *image, const char *name, size_t *length) {
    const void *data = NULL;
    *length = 0;
    if (!vips_image_get_typeof(image, name)) return NULL;
    if (vips_image_get_blob(image, name, &data, length) != 0) return NULL;
    return data;
}

int cvips_n_pages(VipsImage *image) { return vips_image_get_n_pages(image); }

void cvips_unref(VipsImage *image) { g_object_unref(image); }

int cvips_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, NULL);
}

int cvips_pngsave_buffer(VipsImage *in, void **buf, size_t *len) {
    return vips_pngsave_buffer(in, buf, len, NULL);
}

VipsImage *cvips_autorot(VipsImage *in) {
    VipsImage *out = NULL;
    if (vips_autorot(in, &out, NULL)) return NULL;
    return out;
}

void cvips_free(void *p) { g_free(p); }

VipsImage *cvips_to_srgb_profile(VipsImage *in) {
    if (!vips_image_get_typeof(in, VIPS_META_ICC_NAME)) { g_object_ref(in); return in; }
    VipsImage *out = NULL;
    if (vips_icc_transform(in, &out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE, NULL)) {
        vips_error_clear();  /* an unusable profile: keep the pixels as they are */
        g_object_ref(in);
        return in;
    }
    return out;
}

VipsImage *cvips_thumbnail_exact(const char *path, int width, int height, int crop) {
    VipsImage *out = NULL;
    if (crop) {
        if (vips_thumbnail(path, &out, width, "height", height, "crop", VIPS_INTERESTING_CENTRE, NULL)) return NULL;
    } else {
        if (vips_thumbnail(path, &out, width, "height", height, "size", VIPS_SIZE_FORCE, NULL)) return NULL;
    }
    VipsImage *srgb = cvips_to_srgb_profile(out);
    g_object_unref(out);
    return srgb;
}

VipsImage *cvips_thumbnail_plain(const char *path, int width, int height) {
    VipsImage *out = NULL;
    if (vips_thumbnail(path, &out, width, "height", height, "crop", VIPS_INTERESTING_CENTRE, NULL)) return NULL;
    return out;
}

VipsImage *cvips_upright_srgb(VipsImage *in) {
    VipsImage *out = NULL;
    int failed = vips_autorot(in, &out, NULL);
    g_object_unref(in);
    if (failed) return NULL;
    VipsImage *srgb = cvips_to_srgb_profile(out);
    g_object_unref(out);
    return srgb;
}

VipsImage *cvips_load_upright(const char *path) {
    VipsImage *in = vips_image_new_from_file(path, "access", VIPS_ACCESS_RANDOM, NULL);
    return in ? cvips_upright_srgb(in) : NULL;
}

int cvips_write_upright(const char *path, const char *target) {
    VipsImage *header = vips_image_new_from_file(path, NULL);
    if (!header) return -1;
    int orientation = vips_image_get_orientation(header);
    g_object_unref(header);
    VipsAccess access = orientation > 1 ? VIPS_ACCESS_RANDOM : VIPS_ACCESS_SEQUENTIAL;
    VipsImage *in = vips_image_new_from_file(path, "access", access, NULL);
    if (!in) return -1;
    VipsImage *srgb = cvips_upright_srgb(in);
    if (!srgb) return -1;
    VipsImage *eight = NULL;
    int failed = vips_colourspace(srgb, &eight, VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(srgb);
    if (failed) return -1;
    failed = vips_image_write_to_file(eight, target, NULL);
    g_object_unref(eight);
    return failed ? -1 : 0;
}

VipsImage *cvips_load_oriented(const char *path, int orientation) {
    VipsImage *in = vips_image_new_from_file(path, "access", VIPS_ACCESS_RANDOM, NULL);
    if (!in) return NULL;
    VipsImage *tagged = NULL;
    int failed = vips_copy(in, &tagged, NULL);
    g_object_unref(in);
    if (failed) return NULL;
    vips_image_set_int(tagged, VIPS_META_ORIENTATION, orientation);
    return cvips_upright_srgb(tagged);
}

VipsImage *cvips_crop(VipsImage *in, int left, int top, int width, int height) {
    VipsImage *out = NULL;
    if (vips_crop(in, &out, left, top, width, height, NULL)) return NULL;
    return out;
}

VipsImage *cvips_resize_exact(VipsImage *in, int width, int height) {
    VipsImage *out = NULL;
    double h = (double)width / vips_image_get_width(in), v = (double)height / vips_image_get_height(in);
    if (vips_resize(in, &out, h, "vscale", v, NULL)) return NULL;
    if (vips_image_get_width(out) != width || vips_image_get_height(out) != height) {
        /* vips rounds; trim or pad the last pixel row/column. */
        VipsImage *fixed = NULL;
        int failed = vips_embed(out, &fixed, 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL);
        g_object_unref(out);
        if (failed) return NULL;
        out = fixed;
    }
    return out;
}

void *cvips_srgb_pixels(VipsImage *in, size_t *length, int *width, int *height, int *bands) {
    VipsImage *srgb = NULL, *u8 = NULL;
    if (vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL)) return NULL;
    if (vips_cast_uchar(srgb, &u8, NULL)) { g_object_unref(srgb); return NULL; }
    g_object_unref(srgb);
    if (vips_image_get_bands(u8) > 4) {
        VipsImage *four = NULL;
        if (vips_extract_band(u8, &four, 0, "n", 4, NULL)) { g_object_unref(u8); return NULL; }
        g_object_unref(u8);
        u8 = four;
    }
    void *memory = vips_image_write_to_memory(u8, length);
    *width = vips_image_get_width(u8);
    *height = vips_image_get_height(u8);
    *bands = vips_image_get_bands(u8);
    g_object_unref(u8);
    return memory;
}

int cvips_encode_pixels(const void *pixels, size_t length, int width, int height, int bands, int format,
                                      int quality, void **buffer, size_t *out_length) {
    VipsImage *image = vips_image_new_from_memory_copy(pixels, length, width, height, bands, VIPS_FORMAT_UCHAR);
    if (!image) return -1;
    image->Type = VIPS_INTERPRETATION_sRGB;
    int status;
    switch (format) {
    case 0: status = vips_jpegsave_buffer(image, buffer, out_length, "Q", quality, NULL); break;
    case 1: status = vips_pngsave_buffer(image, buffer, out_length, NULL); break;
    case 2: status = vips_webpsave_buffer(image, buffer, out_length, "Q", quality, NULL); break;
    default: {
        const char *message = NULL;
        status = cheif_encode((const uint8_t *)pixels, width, height, bands, quality, NULL, 0, NULL, 0, buffer, out_length, &message);
        if (status) vips_error("heifsave", "%s", message ? message : "libheif failed");
        break;
    }
    }
    g_object_unref(image);
    return status;
}

VipsImage *cvips_image_from_rgb(const void *pixels, size_t length, int width, int height) {
    VipsImage *image = vips_image_new_from_memory_copy(pixels, length, width, height, 3, VIPS_FORMAT_UCHAR);
    if (image) image->Type = VIPS_INTERPRETATION_sRGB;
    return image;
}

VipsImage *cvips_image_from_pixels(const void *pixels, size_t length, int width, int height, int bands) {
    VipsImage *image = vips_image_new_from_memory_copy(pixels, length, width, height, bands, VIPS_FORMAT_UCHAR);
    if (image) image->Type = VIPS_INTERPRETATION_sRGB;
    return image;
}

VipsImage *cvips_rotate(VipsImage *in, int degrees) {
    VipsImage *out = NULL;
    VipsAngle angle = degrees == 90 ? VIPS_ANGLE_D90 : degrees == 180 ? VIPS_ANGLE_D180 : degrees == 270 ? VIPS_ANGLE_D270 : VIPS_ANGLE_D0;
    if (vips_rot(in, &out, angle, NULL)) return NULL;
    return out;
}

VipsImage *cvips_thumbnail_image_exact(VipsImage *in, int width, int height, int crop) {
    VipsImage *out = NULL;
    if (crop) {
        if (vips_thumbnail_image(in, &out, width, "height", height, "crop", VIPS_INTERESTING_CENTRE, NULL)) return NULL;
    } else {
        if (vips_thumbnail_image(in, &out, width, "height", height, "size", VIPS_SIZE_FORCE, NULL)) return NULL;
    }
    return out;
}

VipsImage *cvips_copy(VipsImage *in) {
    VipsImage *out = NULL;
    if (vips_copy(in, &out, NULL)) return NULL;
    return out;
}

void cvips_set_meta_blob(VipsImage *image, const char *name, const void *data, size_t length) {
    vips_image_set_blob_copy(image, name, data, length);
}

void cvips_set_meta_int(VipsImage *image, const char *name, int value) { vips_image_set_int(image, name, value); }

void cvips_remove_meta(VipsImage *image, const char *name) { vips_image_remove(image, name); }

int cvips_get_format(VipsImage *image) { return (int)vips_image_get_format(image); }

int cvips_get_interpretation(VipsImage *image) { return (int)vips_image_get_interpretation(image); }

void cvips_set_interpretation(VipsImage *image, int interpretation) { image->Type = (VipsInterpretation)interpretation; }

void cvips_ref(VipsImage *image) { g_object_ref(image); }

void *cvips_builtin_profile(const char *name, size_t *length) {
    VipsBlob *blob = NULL;
    *length = 0;
    if (vips_profile_load(name, &blob, NULL) || !blob) { vips_error_clear(); return NULL; }
    size_t size = 0;
    const void *data = vips_blob_get(blob, &size);
    void *copy = g_malloc(size > 0 ? size : 1);
    if (size > 0) memcpy(copy, data, size);
    *length = size;
    vips_area_unref(VIPS_AREA(blob));
    return copy;
}
