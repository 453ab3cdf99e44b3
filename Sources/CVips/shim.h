#ifndef CVIPS_SHIM_H
#define CVIPS_SHIM_H
#include <vips/vips.h>

/* libvips' convenience API is C-variadic and its init is a macro; Swift can call neither.
   These fixed-arity wrappers are all OpenPhotoKit needs. */

static inline int cvips_init(const char *argv0) { return VIPS_INIT(argv0); }

/* Opens a file lazily: reads the header only, decodes no pixels. */
static inline VipsImage *cvips_header_from_file(const char *path) {
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
}

static inline VipsImage *cvips_header_from_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

/* Opens an image in memory for random access (for re-encoding). The buffer must outlive the image. */
static inline VipsImage *cvips_load_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", NULL);
}

static inline int cvips_orientation(VipsImage *image) {
    int orientation = 1;
    if (vips_image_get_typeof(image, VIPS_META_ORIENTATION)) {
        if (vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation) != 0) orientation = 1;
    }
    return orientation;
}

static inline const char *cvips_loader(VipsImage *image) {
    const char *loader = NULL;
    if (vips_image_get_typeof(image, VIPS_META_LOADER)) {
        if (vips_image_get_string(image, VIPS_META_LOADER, &loader) != 0) loader = NULL;
    }
    return loader;
}


/* A metadata blob ("exif-data", "xmp-data", "icc-profile-data"), or NULL. Owned by the image. */
static inline const void *cvips_blob(VipsImage *image, const char *name, size_t *length) {
    const void *data = NULL;
    *length = 0;
    if (!vips_image_get_typeof(image, name)) return NULL;
    if (vips_image_get_blob(image, name, &data, length) != 0) return NULL;
    return data;
}

/* Frames of an animated image (GIF, WebP); 1 for stills. */
static inline int cvips_n_pages(VipsImage *image) { return vips_image_get_n_pages(image); }

static inline void cvips_unref(VipsImage *image) { g_object_unref(image); }

/* Encoding from an image in memory. The caller frees *buf with g_free. */
static inline int cvips_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, NULL);
}

static inline int cvips_pngsave_buffer(VipsImage *in, void **buf, size_t *len) {
    return vips_pngsave_buffer(in, buf, len, NULL);
}

/* Applies the EXIF orientation to the pixels (the result is upright, orientation 1). */
static inline VipsImage *cvips_autorot(VipsImage *in) {
    VipsImage *out = NULL;
    if (vips_autorot(in, &out, NULL)) return NULL;
    return out;
}

static inline void cvips_free(void *p) { g_free(p); }

/* Writes a new image (used by test fixtures and the demo): a smooth gradient of the given size. */
static inline int cvips_write_test_image(const char *path, int width, int height, int orientation, int quality) {
    VipsImage *x = NULL, *y = NULL, *r = NULL, *g = NULL, *b = NULL, *rgb = NULL, *u8 = NULL;
    int result = -1;
    if (vips_xyz(&x, width, height, NULL)) goto done;
    if (vips_extract_band(x, &y, 1, NULL)) goto done;
    if (vips_extract_band(x, &r, 0, NULL)) goto done;
    {
        VipsImage *tmp = NULL;
        if (vips_linear1(r, &tmp, 255.0 / (width > 1 ? width - 1 : 1), 0.0, NULL)) goto done;
        g_object_unref(r); r = tmp;
        if (vips_linear1(y, &g, 255.0 / (height > 1 ? height - 1 : 1), 0.0, NULL)) goto done;
        if (vips_linear1(r, &tmp, -1.0, 255.0, NULL)) goto done;
        b = tmp;
    }
    {
        VipsImage *bands[3] = { r, g, b };
        if (vips_bandjoin(bands, &rgb, 3, NULL)) goto done;
    }
    if (vips_cast_uchar(rgb, &u8, NULL)) goto done;
    u8->Type = VIPS_INTERPRETATION_sRGB;
    if (orientation > 1) {
        VipsImage *copy = NULL;
        if (vips_copy(u8, &copy, NULL)) goto done;
        vips_image_set_int(copy, VIPS_META_ORIENTATION, orientation);
        g_object_unref(u8); u8 = copy;
    }
    if (vips_foreign_find_save(path) == NULL) goto done;
    result = vips_image_write_to_file(u8, path, "Q", quality, NULL);
done:
    if (x) g_object_unref(x);
    if (y) g_object_unref(y);
    if (r) g_object_unref(r);
    if (g) g_object_unref(g);
    if (b) g_object_unref(b);
    if (rgb) g_object_unref(rgb);
    if (u8) g_object_unref(u8);
    return result;
}

/* libheif's depth images, through whichever libheif.so.1 this process loaded (see HEIFRuntime): looked up with
   dlsym so no particular libheif is linked. Returns the primary image's depth image count, or -1. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
typedef struct cheif_error { int code; int subcode; const char *message; } cheif_error;
static inline int cheif_depth_image_count(const char *path) {
    void *lib = dlopen("libheif.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libheif.so.1", RTLD_NOW);
    if (!lib) return -1;
    void *(*alloc)(void) = (void *(*)(void))dlsym(lib, "heif_context_alloc");
    void (*release)(void *) = (void (*)(void *))dlsym(lib, "heif_context_free");
    cheif_error (*read)(void *, const char *, const void *) = (cheif_error (*)(void *, const char *, const void *))dlsym(lib, "heif_context_read_from_file");
    cheif_error (*primary)(void *, void **) = (cheif_error (*)(void *, void **))dlsym(lib, "heif_context_get_primary_image_handle");
    int (*count)(const void *) = (int (*)(const void *))dlsym(lib, "heif_image_handle_get_number_of_depth_images");
    void (*release_handle)(const void *) = (void (*)(const void *))dlsym(lib, "heif_image_handle_release");
    int result = -1;
    if (alloc && release && read && primary && count && release_handle) {
        void *ctx = alloc();
        if (ctx) {
            if (read(ctx, path, NULL).code == 0) {
                void *handle = NULL;
                if (primary(ctx, &handle).code == 0 && handle) {
                    result = count(handle);
                    release_handle(handle);
                }
            }
            release(ctx);
        }
    }
    dlclose(lib);
    return result;
}

/* The embedded thumbnail of a HEIF file's primary image, decoded by libheif (transformations applied: display-
   oriented), when it is at least min_width x min_height; its ICC profile (the thumbnail's, else the primary's) is
   attached for the caller's sRGB conversion. One context read and a small decode instead of libvips' heifload, which
   opens the file several times. Returns 0 and sets *out; 1 when there is no thumbnail that large (or its shape
   differs from the primary's); -1 when libheif fails (the caller falls back to libvips). */
static inline int cheif_thumbnail(const char *path, int min_width, int min_height, VipsImage **out) {
    *out = NULL;
    void *lib = dlopen("libheif.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) return -1;
    void *(*alloc)(void) = (void *(*)(void))dlsym(lib, "heif_context_alloc");
    void (*release)(void *) = (void (*)(void *))dlsym(lib, "heif_context_free");
    cheif_error (*read)(void *, const char *, const void *) = (cheif_error (*)(void *, const char *, const void *))dlsym(lib, "heif_context_read_from_file");
    cheif_error (*primary)(void *, void **) = (cheif_error (*)(void *, void **))dlsym(lib, "heif_context_get_primary_image_handle");
    int (*thumbnail_ids)(const void *, uint32_t *, int) = (int (*)(const void *, uint32_t *, int))dlsym(lib, "heif_image_handle_get_list_of_thumbnail_IDs");
    cheif_error (*thumbnail)(const void *, uint32_t, void **) = (cheif_error (*)(const void *, uint32_t, void **))dlsym(lib, "heif_image_handle_get_thumbnail");
    int (*handle_width)(const void *) = (int (*)(const void *))dlsym(lib, "heif_image_handle_get_width");
    int (*handle_height)(const void *) = (int (*)(const void *))dlsym(lib, "heif_image_handle_get_height");
    int (*has_alpha)(const void *) = (int (*)(const void *))dlsym(lib, "heif_image_handle_has_alpha_channel");
    size_t (*profile_size)(const void *) = (size_t (*)(const void *))dlsym(lib, "heif_image_handle_get_raw_color_profile_size");
    cheif_error (*profile)(const void *, void *) = (cheif_error (*)(const void *, void *))dlsym(lib, "heif_image_handle_get_raw_color_profile");
    void (*release_handle)(const void *) = (void (*)(const void *))dlsym(lib, "heif_image_handle_release");
    cheif_error (*decode)(const void *, void **, int, int, const void *) = (cheif_error (*)(const void *, void **, int, int, const void *))dlsym(lib, "heif_decode_image");
    const uint8_t *(*plane)(const void *, int, int *) = (const uint8_t *(*)(const void *, int, int *))dlsym(lib, "heif_image_get_plane_readonly");
    int (*image_width)(const void *, int) = (int (*)(const void *, int))dlsym(lib, "heif_image_get_width");
    int (*image_height)(const void *, int) = (int (*)(const void *, int))dlsym(lib, "heif_image_get_height");
    void (*release_image)(const void *) = (void (*)(const void *))dlsym(lib, "heif_image_release");
    int result = -1;
    void *ctx = NULL, *main_handle = NULL, *thumb = NULL, *image = NULL;
    if (!alloc || !release || !read || !primary || !thumbnail_ids || !thumbnail || !handle_width || !handle_height || !has_alpha ||
        !profile_size || !profile || !release_handle || !decode || !plane || !image_width || !image_height || !release_image) goto done;
    if (!(ctx = alloc()) || read(ctx, path, NULL).code != 0 || primary(ctx, &main_handle).code != 0 || !main_handle) goto done;
    uint32_t ids[8];
    int count = thumbnail_ids(main_handle, ids, 8);
    int best = -1, best_area = 0;
    for (int i = 0; i < count; i++) {
        void *candidate = NULL;
        if (thumbnail(main_handle, ids[i], &candidate).code != 0 || !candidate) continue;
        int area = handle_width(candidate) * handle_height(candidate);
        if (area > best_area) { best_area = area; best = i; }
        release_handle(candidate);
    }
    result = 1;
    if (best < 0 || thumbnail(main_handle, ids[best], &thumb).code != 0 || !thumb) goto done;
    int tw = handle_width(thumb), th = handle_height(thumb), pw = handle_width(main_handle), ph = handle_height(main_handle);
    if (tw < min_width || th < min_height || tw <= 0 || th <= 0 || pw <= 0 || ph <= 0) goto done;
    if (fabs((double)tw / th - (double)pw / ph) > 0.01 * ((double)pw / ph)) goto done;  /* not the same picture shape */
    int bands = has_alpha(thumb) ? 4 : 3;
    result = -1;
    if (decode(thumb, &image, 1 /* RGB */, bands == 4 ? 11 : 10 /* interleaved RGB(A) */, NULL).code != 0 || !image) goto done;
    int stride = 0;
    const uint8_t *pixels = plane(image, 10 /* interleaved */, &stride);
    int w = image_width(image, 10), h = image_height(image, 10);
    if (!pixels || w <= 0 || h <= 0 || stride < w * bands) goto done;
    if (w < min_width || h < min_height) { result = 1; goto done; }
    VipsImage *copy = vips_image_new_memory();
    vips_image_init_fields(copy, w, h, bands, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE, VIPS_INTERPRETATION_sRGB, 1.0, 1.0);
    if (vips_image_write_prepare(copy)) { g_object_unref(copy); goto done; }
    for (int y = 0; y < h; y++) memcpy(VIPS_IMAGE_ADDR(copy, 0, y), pixels + (size_t)y * stride, (size_t)w * bands);
    void *handles[2] = { thumb, main_handle };
    for (int i = 0; i < 2; i++) {
        size_t size = profile_size(handles[i]);
        if (size == 0) continue;
        void *icc = g_malloc(size);
        if (profile(handles[i], icc).code == 0) vips_image_set_blob_copy(copy, VIPS_META_ICC_NAME, icc, size);
        g_free(icc);
        break;
    }
    *out = copy;
    result = 0;
done:
    if (image) release_image(image);
    if (thumb) release_handle(thumb);
    if (main_handle) release_handle(main_handle);
    if (ctx) release(ctx);
    dlclose(lib);
    return result;
}

typedef struct cheif_tiling_t {
    int version;
    uint32_t num_columns, num_rows, tile_width, tile_height, image_width, image_height, top_offset, left_offset;
    uint8_t number_of_extra_dimensions;
    uint32_t extra_dimension_size[8];
} cheif_tiling_t;

typedef struct cheif_writer { int writer_api_version; cheif_error (*write)(void *ctx, const void *data, size_t size, void *userdata); } cheif_writer;
static inline cheif_error cheif_append(void *ctx, const void *data, size_t size, void *userdata) {
    (void)ctx;
    g_byte_array_append((GByteArray *)userdata, (const guint8 *)data, (guint)size);
    cheif_error ok = { 0, 0, "Success" };
    return ok;
}

/* libheif's functions, looked up once in whichever libheif.so.1 this process loaded (see HEIFRuntime). */
typedef struct cheif_api {
    void *lib;
    void *(*alloc)(void);
    void (*free_context)(void *);
    cheif_error (*read)(void *, const char *, const void *);
    cheif_error (*primary)(void *, void **);
    void (*release_handle)(const void *);
    cheif_error (*tiling)(const void *, int, cheif_tiling_t *);
    cheif_error (*decode_tile)(const void *, void **, int, int, const void *, uint32_t, uint32_t);
    const uint8_t *(*plane)(const void *, int, int *);
    int (*image_width)(const void *, int);
    int (*image_height)(const void *, int);
    void (*release_image)(const void *);
    int (*has_alpha)(const void *);
    size_t (*profile_size)(const void *);
    cheif_error (*profile)(const void *, void *);
    void *(*options_alloc)(void);
    void (*options_free)(void *);
    uint32_t (*item_id)(const void *);
    int (*transformations)(const void *, uint32_t, uint32_t *, int);
    int (*rotation_ccw)(const void *, uint32_t, uint32_t);
    int (*mirror)(const void *, uint32_t, uint32_t);
    void *options; /* shared decoding options: ignore the image's transformations (applied by the caller) */
    int decodes_tiles; /* libheif ≥ 1.19's tile decoding is there */
    /* Encoding. */
    cheif_error (*image_create)(int, int, int, int, void **);
    cheif_error (*add_plane)(void *, int, int, int, int);
    uint8_t *(*writable_plane)(void *, int, int *);
    cheif_error (*set_profile)(void *, const char *, const void *, size_t);
    cheif_error (*get_encoder)(void *, int, void **);
    cheif_error (*set_quality)(void *, int);
    cheif_error (*encode_image)(void *, const void *, void *, const void *, void **);
    cheif_error (*encode_grid)(void *, void **, uint16_t, uint16_t, void *, const void *, void **);
    cheif_error (*add_exif)(void *, const void *, const void *, int);
    cheif_error (*write)(void *, cheif_writer *, void *);
    void (*release_encoder)(void *);
    int encodes; /* every encoding function is there */
} cheif_api;

static inline const cheif_api *cheif_load_api(void) {
    static cheif_api api;
    static gsize ready = 0;
    if (g_once_init_enter(&ready)) {
        void *lib = dlopen("libheif.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (!lib) lib = dlopen("libheif.so.1", RTLD_NOW);
        if (lib) {
            /* Plugins are loaded by heif_init; left to first use, two threads decoding at once race on it. */
            cheif_error (*init)(void *) = (cheif_error (*)(void *))dlsym(lib, "heif_init");
            if (init) init(NULL);
            api.lib = lib;
            api.alloc = (void *(*)(void))dlsym(lib, "heif_context_alloc");
            api.free_context = (void (*)(void *))dlsym(lib, "heif_context_free");
            api.read = (cheif_error (*)(void *, const char *, const void *))dlsym(lib, "heif_context_read_from_file");
            api.primary = (cheif_error (*)(void *, void **))dlsym(lib, "heif_context_get_primary_image_handle");
            api.release_handle = (void (*)(const void *))dlsym(lib, "heif_image_handle_release");
            api.tiling = (cheif_error (*)(const void *, int, cheif_tiling_t *))dlsym(lib, "heif_image_handle_get_image_tiling");
            api.decode_tile = (cheif_error (*)(const void *, void **, int, int, const void *, uint32_t, uint32_t))dlsym(lib, "heif_image_handle_decode_image_tile");
            api.plane = (const uint8_t *(*)(const void *, int, int *))dlsym(lib, "heif_image_get_plane_readonly");
            api.image_width = (int (*)(const void *, int))dlsym(lib, "heif_image_get_width");
            api.image_height = (int (*)(const void *, int))dlsym(lib, "heif_image_get_height");
            api.release_image = (void (*)(const void *))dlsym(lib, "heif_image_release");
            api.has_alpha = (int (*)(const void *))dlsym(lib, "heif_image_handle_has_alpha_channel");
            api.profile_size = (size_t (*)(const void *))dlsym(lib, "heif_image_handle_get_raw_color_profile_size");
            api.profile = (cheif_error (*)(const void *, void *))dlsym(lib, "heif_image_handle_get_raw_color_profile");
            api.options_alloc = (void *(*)(void))dlsym(lib, "heif_decoding_options_alloc");
            api.options_free = (void (*)(void *))dlsym(lib, "heif_decoding_options_free");
            api.item_id = (uint32_t (*)(const void *))dlsym(lib, "heif_image_handle_get_item_id");
            api.transformations = (int (*)(const void *, uint32_t, uint32_t *, int))dlsym(lib, "heif_item_get_transformation_properties");
            api.rotation_ccw = (int (*)(const void *, uint32_t, uint32_t))dlsym(lib, "heif_item_get_property_transform_rotation_ccw");
            api.mirror = (int (*)(const void *, uint32_t, uint32_t))dlsym(lib, "heif_item_get_property_transform_mirror");
            if (api.options_alloc && (api.options = api.options_alloc())) ((uint8_t *)api.options)[1] = 1; /* ignore_transformations */
            api.decodes_tiles = api.options && api.item_id && api.transformations && api.rotation_ccw && api.mirror && api.alloc &&
                api.free_context && api.read && api.primary && api.release_handle && api.tiling && api.decode_tile && api.plane &&
                api.image_width && api.image_height && api.release_image && api.has_alpha && api.profile_size && api.profile;
            api.image_create = (cheif_error (*)(int, int, int, int, void **))dlsym(lib, "heif_image_create");
            api.add_plane = (cheif_error (*)(void *, int, int, int, int))dlsym(lib, "heif_image_add_plane");
            api.writable_plane = (uint8_t *(*)(void *, int, int *))dlsym(lib, "heif_image_get_plane");
            api.set_profile = (cheif_error (*)(void *, const char *, const void *, size_t))dlsym(lib, "heif_image_set_raw_color_profile");
            api.get_encoder = (cheif_error (*)(void *, int, void **))dlsym(lib, "heif_context_get_encoder_for_format");
            api.set_quality = (cheif_error (*)(void *, int))dlsym(lib, "heif_encoder_set_lossy_quality");
            api.encode_image = (cheif_error (*)(void *, const void *, void *, const void *, void **))dlsym(lib, "heif_context_encode_image");
            api.encode_grid = (cheif_error (*)(void *, void **, uint16_t, uint16_t, void *, const void *, void **))dlsym(lib, "heif_context_encode_grid");
            api.add_exif = (cheif_error (*)(void *, const void *, const void *, int))dlsym(lib, "heif_context_add_exif_metadata");
            api.write = (cheif_error (*)(void *, cheif_writer *, void *))dlsym(lib, "heif_context_write");
            api.release_encoder = (void (*)(void *))dlsym(lib, "heif_encoder_release");
            api.encodes = api.alloc && api.free_context && api.image_create && api.add_plane && api.writable_plane && api.set_profile &&
                api.get_encoder && api.set_quality && api.encode_image && api.encode_grid && api.add_exif && api.write &&
                api.release_encoder && api.release_image && api.release_handle;
        }
        g_once_init_leave(&ready, 1);
    }
    return api.lib ? &api : NULL;
}

/* HEIC encoding through libheif directly (dlsym into whichever libheif.so.1 is loaded, as above): libvips 8.14's
   heifsave hands libheif ≥ 1.16 a writer that reports success with a NULL message, which libheif then treats as a
   failure ("heif_writer callback returned a null error text"). 8-bit interleaved RGB or RGBA in; an ICC profile and
   an EXIF block (TIFF header first) attached when given. Returns 0 and a buffer the caller frees with g_free, or -1
   with *message set to libheif's error text (static storage). */
static inline int cheif_encode(const uint8_t *pixels, int width, int height, int bands, int quality, const void *icc, size_t icc_length,
                               const void *exif, size_t exif_length, void **out, size_t *out_length, const char **message) {
    *out = NULL; *out_length = 0; *message = "libheif cannot encode here";
    const cheif_api *api = cheif_load_api();
    if (!api || !api->encodes) return -1;
    int result = -1;
    void *ctx = NULL, *image = NULL, *encoder = NULL, *handle = NULL;
    GByteArray *bytes = g_byte_array_new();
    cheif_error e;
    if (!(ctx = api->alloc())) goto done;
    e = api->image_create(width, height, 1 /* RGB */, bands == 4 ? 11 /* interleaved RGBA */ : 10 /* interleaved RGB */, &image);
    if (e.code) { *message = e.message; goto done; }
    e = api->add_plane(image, 10 /* interleaved */, width, height, 8);
    if (e.code) { *message = e.message; goto done; }
    int stride = 0;
    uint8_t *plane = api->writable_plane(image, 10, &stride);
    if (!plane) { *message = "no image plane"; goto done; }
    for (int y = 0; y < height; y++) memcpy(plane + (size_t)y * stride, pixels + (size_t)y * width * bands, (size_t)width * bands);
    if (icc && icc_length) { e = api->set_profile(image, "prof", icc, icc_length); if (e.code) { *message = e.message; goto done; } }
    e = api->get_encoder(ctx, 1 /* HEVC */, &encoder);
    if (e.code) { *message = e.message; goto done; }
    api->set_quality(encoder, quality);
    e = api->encode_image(ctx, image, encoder, NULL, &handle);
    if (e.code) { *message = e.message; goto done; }
    if (exif && exif_length) { e = api->add_exif(ctx, handle, exif, (int)exif_length); if (e.code) { *message = e.message; goto done; } }
    cheif_writer writer = { 1, cheif_append };
    e = api->write(ctx, &writer, bytes);
    if (e.code) { *message = e.message; goto done; }
    *out_length = bytes->len;
    *out = g_byte_array_free(bytes, FALSE);
    bytes = NULL;
    *message = NULL;
    result = 0;
done:
    if (bytes) g_byte_array_free(bytes, TRUE);
    if (handle) api->release_handle(handle);
    if (encoder) api->release_encoder(encoder);
    if (image) api->release_image(image);
    if (ctx) api->free_context(ctx);
    return result;
}


/* ---- HEIF grid images decoded tile by tile (libheif ≥ 1.19's heif_image_handle_decode_image_tile, through dlsym as
   above): iPhone photos are grids of 512×512 HEVC tiles, and libvips' heifload decodes the whole image at once
   (≈ 250 MB for 48 MP). Here a lazy libvips image decodes only the tiles a region needs — each worker thread with its
   own libheif context, keeping its last tile — behind a tile cache two rows (or columns) of tiles deep. Tiles are
   decoded as stored (libheif 1.19 asserts on transformed tile indices of turned grids); the image's rotations and
   mirrorings are reported for the caller to apply. ---- */

typedef struct cheif_tiled {
    char *path;
    int tile_width, tile_height, width, height, bands, left_offset, top_offset;
} cheif_tiled;


/* Loads libheif's functions and initialises its plugins once, before any thread decodes. */
static inline void cheif_initialize(void) { (void)cheif_load_api(); }

typedef struct cheif_sequence {
    void *context, *handle, *tile;
    int tile_x, tile_y;
    const uint8_t *plane;
    int stride, tile_pixels_width, tile_pixels_height;
} cheif_sequence;

static inline void *cheif_start(VipsImage *out, void *a, void *b) {
    (void)out; (void)b;
    const cheif_api *api = cheif_load_api();
    cheif_tiled *tiled = (cheif_tiled *)a;
    cheif_sequence *seq = g_new0(cheif_sequence, 1);
    seq->tile_x = seq->tile_y = -1;
    if (!api || !(seq->context = api->alloc()) || api->read(seq->context, tiled->path, NULL).code != 0 ||
        api->primary(seq->context, &seq->handle).code != 0) {
        if (seq->context && api) api->free_context(seq->context);
        g_free(seq);
        vips_error("heiftile", "cannot open %s", tiled->path);
        return NULL;
    }
    return seq;
}

static inline int cheif_generate(VipsRegion *out, void *vseq, void *a, void *b, gboolean *stop) {
    (void)b; (void)stop;
    const cheif_api *api = cheif_load_api();
    cheif_sequence *seq = (cheif_sequence *)vseq;
    cheif_tiled *tiled = (cheif_tiled *)a;
    VipsRect *r = &out->valid;
    /* A turned grid may start with a partial tile: tile (0, 0) then begins at (−left_offset, −top_offset). */
    int first_x = (r->left + tiled->left_offset) / tiled->tile_width, last_x = (r->left + r->width - 1 + tiled->left_offset) / tiled->tile_width;
    int first_y = (r->top + tiled->top_offset) / tiled->tile_height, last_y = (r->top + r->height - 1 + tiled->top_offset) / tiled->tile_height;
    for (int ty = first_y; ty <= last_y; ty++) {
        for (int tx = first_x; tx <= last_x; tx++) {
            if (tx != seq->tile_x || ty != seq->tile_y) {
                if (seq->tile) { api->release_image(seq->tile); seq->tile = NULL; }
                seq->tile_x = seq->tile_y = -1;
                cheif_error e = api->decode_tile(seq->handle, &seq->tile, 1 /* RGB */, tiled->bands == 4 ? 11 : 10, api->options, (uint32_t)tx, (uint32_t)ty);
                if (e.code != 0 || !seq->tile) {
                    vips_error("heiftile", "tile %d,%d of %s: %s", tx, ty, tiled->path, e.message ? e.message : "decoding failed");
                    return -1;
                }
                seq->plane = api->plane(seq->tile, 10 /* interleaved */, &seq->stride);
                seq->tile_pixels_width = api->image_width(seq->tile, 10);
                seq->tile_pixels_height = api->image_height(seq->tile, 10);
                if (!seq->plane) { vips_error("heiftile", "tile %d,%d has no pixels", tx, ty); return -1; }
                seq->tile_x = tx; seq->tile_y = ty;
            }
            VipsRect tile = { tx * tiled->tile_width - tiled->left_offset, ty * tiled->tile_height - tiled->top_offset,
                              seq->tile_pixels_width, seq->tile_pixels_height };
            VipsRect overlap;
            vips_rect_intersectrect(r, &tile, &overlap);
            for (int y = overlap.top; y < overlap.top + overlap.height; y++) {
                memcpy(VIPS_REGION_ADDR(out, overlap.left, y),
                       seq->plane + (size_t)(y - tile.top) * seq->stride + (size_t)(overlap.left - tile.left) * tiled->bands,
                       (size_t)overlap.width * tiled->bands);
            }
        }
    }
    return 0;
}

static inline int cheif_stop(void *vseq, void *a, void *b) {
    (void)a; (void)b;
    const cheif_api *api = cheif_load_api();
    cheif_sequence *seq = (cheif_sequence *)vseq;
    if (api) {
        if (seq->tile) api->release_image(seq->tile);
        if (seq->handle) api->release_handle(seq->handle);
        if (seq->context) api->free_context(seq->context);
    }
    g_free(seq);
    return 0;
}

static inline void cheif_tiled_free(VipsImage *image, cheif_tiled *tiled) {
    (void)image;
    g_free(tiled->path);
    g_free(tiled);
}

/* The primary image of a HEIF grid file as a lazy image decoded tile by tile, as stored (8-bit RGB or RGBA,
   sRGB-labelled, its ICC profile attached), behind a tile cache; `transforms` receives up to 4 operations to apply in
   order to show it — 90, 180, 270 (counter-clockwise turns), -1 (mirror top to bottom), -2 (mirror left to right) —
   and `count` how many. NULL when the file is not a grid of several tiles, is cropped (clap), or libheif cannot decode
   tiles (the caller uses libvips' heifload). */
static inline VipsImage *cheif_tiled_image(const char *path, int *transforms, int *count) {
    *count = 0;
    const cheif_api *api = cheif_load_api();
    if (!api || !api->decodes_tiles) return NULL;
    void *context = api->alloc(), *handle = NULL;
    if (!context) return NULL;
    VipsImage *result = NULL;
    cheif_tiling_t tiling;
    memset(&tiling, 0, sizeof tiling);
    tiling.version = 1;
    if (api->read(context, path, NULL).code != 0 || api->primary(context, &handle).code != 0 || !handle) goto done;
    if (api->tiling(handle, 0, &tiling).code != 0 || tiling.num_columns * tiling.num_rows < 2 || tiling.tile_width == 0 ||
        tiling.tile_height == 0 || tiling.image_width == 0 || tiling.image_height == 0) goto done;
    {
        uint32_t item = api->item_id(handle), properties[8];
        int n = api->transformations(context, item, properties, 8);
        if (n < 0 || n > 4) goto done;
        for (int i = 0; i < n; i++) {
            int angle = api->rotation_ccw(context, item, properties[i]);
            int mirror = api->mirror(context, item, properties[i]);
            if (angle > 0) transforms[(*count)++] = angle;
            else if (angle == 0) continue;
            else if (mirror == 0) transforms[(*count)++] = -1;
            else if (mirror == 1) transforms[(*count)++] = -2;
            else { *count = 0; goto done; }  /* a crop, or something else: heifload */
        }
    }
    cheif_tiled *tiled = g_new0(cheif_tiled, 1);
    tiled->path = g_strdup(path);
    tiled->tile_width = (int)tiling.tile_width;
    tiled->tile_height = (int)tiling.tile_height;
    tiled->width = (int)tiling.image_width;
    tiled->height = (int)tiling.image_height;
    tiled->bands = api->has_alpha(handle) ? 4 : 3;
    VipsImage *image = vips_image_new();
    vips_image_init_fields(image, tiled->width, tiled->height, tiled->bands, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE,
                           VIPS_INTERPRETATION_sRGB, 1.0, 1.0);
    g_signal_connect(image, "close", G_CALLBACK(cheif_tiled_free), tiled);
    size_t size = api->profile_size(handle);
    if (size > 0) {
        void *icc = g_malloc(size);
        if (api->profile(handle, icc).code == 0) vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, icc, size);
        g_free(icc);
    }
    if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_SMALLTILE, NULL) ||
        vips_image_generate(image, cheif_start, cheif_generate, cheif_stop, tiled, NULL)) {
        g_object_unref(image);
        *count = 0;
        goto done;
    }
    /* Two rows of tiles for upright reading, two columns when a quarter turn reads the tiles column-wise. */
    int across = (int)(tiling.num_columns > tiling.num_rows ? tiling.num_columns : tiling.num_rows);
    if (vips_tilecache(image, &result, "tile_width", tiled->tile_width, "tile_height", tiled->tile_height,
                       "max_tiles", across * 2 + 2, "threaded", TRUE, NULL)) { result = NULL; *count = 0; }
    g_object_unref(image);
done:
    if (handle) api->release_handle(handle);
    api->free_context(context);
    return result;
}

/* A HEIF grid of tile×tile HEVC images (width and height multiples of tile), as iPhones write them; for tests and
   benchmarks. 8-bit interleaved RGB in. */
static inline int cheif_encode_grid(const uint8_t *pixels, int width, int height, int tile, int quality, void **out, size_t *out_length,
                                    const char **message) {
    *out = NULL; *out_length = 0; *message = "libheif cannot encode here";
    const cheif_api *api = cheif_load_api();
    if (!api || !api->encodes) return -1;
    int columns = width / tile, rows = height / tile, result = -1;
    void **tiles = g_new0(void *, (size_t)columns * rows);
    void *ctx = NULL, *encoder = NULL, *handle = NULL;
    GByteArray *bytes = g_byte_array_new();
    cheif_error e;
    if (!(ctx = api->alloc())) goto done;
    for (int ty = 0; ty < rows; ty++) for (int tx = 0; tx < columns; tx++) {
        void **slot = &tiles[ty * columns + tx];
        e = api->image_create(tile, tile, 1, 10, slot);
        if (e.code) { *message = e.message; goto done; }
        e = api->add_plane(*slot, 10, tile, tile, 8);
        if (e.code) { *message = e.message; goto done; }
        int stride = 0;
        uint8_t *plane = api->writable_plane(*slot, 10, &stride);
        for (int y = 0; y < tile; y++)
            memcpy(plane + (size_t)y * stride, pixels + ((size_t)(ty * tile + y) * width + (size_t)tx * tile) * 3, (size_t)tile * 3);
    }
    e = api->get_encoder(ctx, 1, &encoder);
    if (e.code) { *message = e.message; goto done; }
    api->set_quality(encoder, quality);
    /* libheif 1.19 reads the tile array column count first, whatever the header's parameter names say. */
    e = api->encode_grid(ctx, tiles, (uint16_t)columns, (uint16_t)rows, encoder, NULL, &handle);
    if (e.code) { *message = e.message; goto done; }
    cheif_writer writer = { 1, cheif_append };
    e = api->write(ctx, &writer, bytes);
    if (e.code) { *message = e.message; goto done; }
    *out_length = bytes->len;
    *out = g_byte_array_free(bytes, FALSE);
    bytes = NULL;
    *message = NULL;
    result = 0;
done:
    if (bytes) g_byte_array_free(bytes, TRUE);
    for (int i = 0; i < columns * rows; i++) if (tiles[i]) api->release_image(tiles[i]);
    g_free(tiles);
    if (handle) api->release_handle(handle);
    if (encoder) api->release_encoder(encoder);
    if (ctx) api->free_context(ctx);
    return result;
}

/* ---- Rendering for the image manager ---- */

/* A display-oriented (auto-rotated) thumbnail of exactly width x height (the caller keeps the aspect ratio), or
   covering width x height and cropped at the centre (crop = 1). Shrink-on-load for JPEG, the embedded thumbnail of
   HEIC when large enough; converted to sRGB when the file carries a profile. */
/* Converts an image that carries an ICC profile to sRGB (after shrinking: the transform runs on few pixels);
   returns the input, with a new reference, when it carries none. */
static inline VipsImage *cvips_to_srgb_profile(VipsImage *in) {
    if (!vips_image_get_typeof(in, VIPS_META_ICC_NAME)) { g_object_ref(in); return in; }
    VipsImage *out = NULL;
    if (vips_icc_transform(in, &out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE, NULL)) {
        vips_error_clear();  /* an unusable profile: keep the pixels as they are */
        g_object_ref(in);
        return in;
    }
    return out;
}

static inline VipsImage *cvips_thumbnail_exact(const char *path, int width, int height, int crop) {
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

/* vips_thumbnail as it comes: centre crop, nothing else (the benchmarks' baseline). */
static inline VipsImage *cvips_thumbnail_plain(const char *path, int width, int height) {
    VipsImage *out = NULL;
    if (vips_thumbnail(path, &out, width, "height", height, "crop", VIPS_INTERESTING_CENTRE, NULL)) return NULL;
    return out;
}


/* Display-oriented and in sRGB: auto-rotated by the image's orientation, then its ICC profile applied. Takes the
   caller's reference to `in`. */
static inline VipsImage *cvips_upright_srgb(VipsImage *in) {
    VipsImage *out = NULL;
    int failed = vips_autorot(in, &out, NULL);
    g_object_unref(in);
    if (failed) return NULL;
    VipsImage *srgb = cvips_to_srgb_profile(out);
    g_object_unref(out);
    return srgb;
}

/* The whole image, display-oriented. */
static inline VipsImage *cvips_load_upright(const char *path) {
    VipsImage *in = vips_image_new_from_file(path, "access", VIPS_ACCESS_RANDOM, NULL);
    return in ? cvips_upright_srgb(in) : NULL;
}

/* The whole image, display-oriented, in 8-bit sRGB, streamed into a file (format and options from the name, as
   "out.jpg[Q=85]"): libvips pulls the pixels through in strips, so memory stays bounded whatever the size (an
   upright image is read sequentially; a rotation reads the tiles it needs). Returns 0, or -1 with the vips error. */
static inline int cvips_write_upright(const char *path, const char *target) {
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

/* The whole image with an EXIF orientation the file's loader did not see (a PNG eXIf after the image data), then
   display-oriented and in sRGB: the caller sizes it with cvips_thumbnail_image_exact. */
static inline VipsImage *cvips_load_oriented(const char *path, int orientation) {
    VipsImage *in = vips_image_new_from_file(path, "access", VIPS_ACCESS_RANDOM, NULL);
    if (!in) return NULL;
    VipsImage *tagged = NULL;
    int failed = vips_copy(in, &tagged, NULL);
    g_object_unref(in);
    if (failed) return NULL;
    vips_image_set_int(tagged, VIPS_META_ORIENTATION, orientation);
    return cvips_upright_srgb(tagged);
}

static inline VipsImage *cvips_crop(VipsImage *in, int left, int top, int width, int height) {
    VipsImage *out = NULL;
    if (vips_crop(in, &out, left, top, width, height, NULL)) return NULL;
    return out;
}

/* Resized to exactly width x height. */
static inline VipsImage *cvips_resize_exact(VipsImage *in, int width, int height) {
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

/* 8-bit sRGB pixels (3 bands, or 4 with alpha) in a new buffer the caller frees with g_free. */
static inline void *cvips_srgb_pixels(VipsImage *in, size_t *length, int *width, int *height, int *bands) {
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

/* Encodes 8-bit sRGB pixels: format 0 JPEG (quality), 1 PNG, 2 WebP (quality), 3 HEIC (quality). */
static inline int cvips_encode_pixels(const void *pixels, size_t length, int width, int height, int bands, int format,
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

/* A test image whose *displayed* top-left corner is red, top-right green, bottom-left blue (the rest grey),
   stored so that EXIF orientation `orientation` displays it that way. width x height is the displayed size. */
static inline int cvips_write_marker_image(const char *path, int width, int height, int orientation) {
    VipsImage *grey = NULL, *img = NULL, *stored = NULL;
    double background[3] = { 128, 128, 128 };
    if (vips_black(&grey, width, height, "bands", 3, NULL)) return -1;
    if (vips_linear(grey, &img, (double[]){ 1, 1, 1 }, background, 3, NULL)) { g_object_unref(grey); return -1; }
    g_object_unref(grey);
    int mw = width / 4 > 0 ? width / 4 : 1, mh = height / 4 > 0 ? height / 4 : 1;
    double red[3] = { 255, 0, 0 }, green[3] = { 0, 255, 0 }, blue[3] = { 0, 0, 255 };
    VipsImage *u8 = NULL;
    if (vips_cast_uchar(img, &u8, NULL)) { g_object_unref(img); return -1; }
    g_object_unref(img);
    VipsImage *mem = vips_image_copy_memory(u8);
    g_object_unref(u8);
    if (!mem) return -1;
    if (vips_draw_rect(mem, red, 3, 0, 0, mw, mh, "fill", TRUE, NULL) ||
        vips_draw_rect(mem, green, 3, width - mw, 0, mw, mh, "fill", TRUE, NULL) ||
        vips_draw_rect(mem, blue, 3, 0, height - mh, mw, mh, "fill", TRUE, NULL)) { g_object_unref(mem); return -1; }
    mem->Type = VIPS_INTERPRETATION_sRGB;
    /* Undo what the orientation will do on display. */
    VipsImage *a = NULL, *b = NULL;
    int failed = 0;
    switch (orientation) {
    case 2: failed = vips_flip(mem, &stored, VIPS_DIRECTION_HORIZONTAL, NULL); break;
    case 3: failed = vips_rot(mem, &stored, VIPS_ANGLE_D180, NULL); break;
    case 4: failed = vips_flip(mem, &stored, VIPS_DIRECTION_VERTICAL, NULL); break;
    case 5: failed = vips_rot(mem, &a, VIPS_ANGLE_D90, NULL) || vips_flip(a, &stored, VIPS_DIRECTION_HORIZONTAL, NULL); break;
    case 6: failed = vips_rot(mem, &stored, VIPS_ANGLE_D270, NULL); break;
    case 7: failed = vips_rot(mem, &a, VIPS_ANGLE_D270, NULL) || vips_flip(a, &stored, VIPS_DIRECTION_HORIZONTAL, NULL); break;
    case 8: failed = vips_rot(mem, &stored, VIPS_ANGLE_D90, NULL); break;
    default: failed = vips_copy(mem, &stored, NULL); break;
    }
    if (a) g_object_unref(a);
    (void)b;
    g_object_unref(mem);
    if (failed || !stored) return -1;
    VipsImage *tagged = NULL;
    if (vips_copy(stored, &tagged, NULL)) { g_object_unref(stored); return -1; }
    g_object_unref(stored);
    if (orientation > 1) vips_image_set_int(tagged, VIPS_META_ORIENTATION, orientation);
    int result = vips_image_write_to_file(tagged, path, "Q", 95, NULL);
    g_object_unref(tagged);
    return result;
}

/* ---- Video poster frames (pixels from libavcodec) ---- */

static inline VipsImage *cvips_image_from_rgb(const void *pixels, size_t length, int width, int height) {
    VipsImage *image = vips_image_new_from_memory_copy(pixels, length, width, height, 3, VIPS_FORMAT_UCHAR);
    if (image) image->Type = VIPS_INTERPRETATION_sRGB;
    return image;
}

/* 8-bit sRGB pixels (3 or 4 bands), copied into a new image. */
static inline VipsImage *cvips_image_from_pixels(const void *pixels, size_t length, int width, int height, int bands) {
    VipsImage *image = vips_image_new_from_memory_copy(pixels, length, width, height, bands, VIPS_FORMAT_UCHAR);
    if (image) image->Type = VIPS_INTERPRETATION_sRGB;
    return image;
}

/* Rotated clockwise by 0, 90, 180 or 270 degrees. */
static inline VipsImage *cvips_rotate(VipsImage *in, int degrees) {
    VipsImage *out = NULL;
    VipsAngle angle = degrees == 90 ? VIPS_ANGLE_D90 : degrees == 180 ? VIPS_ANGLE_D180 : degrees == 270 ? VIPS_ANGLE_D270 : VIPS_ANGLE_D0;
    if (vips_rot(in, &out, angle, NULL)) return NULL;
    return out;
}

/* cvips_thumbnail_exact for an image in memory. */
static inline VipsImage *cvips_thumbnail_image_exact(VipsImage *in, int width, int height, int crop) {
    VipsImage *out = NULL;
    if (crop) {
        if (vips_thumbnail_image(in, &out, width, "height", height, "crop", VIPS_INTERESTING_CENTRE, NULL)) return NULL;
    } else {
        if (vips_thumbnail_image(in, &out, width, "height", height, "size", VIPS_SIZE_FORCE, NULL)) return NULL;
    }
    return out;
}

/* ---- Generic operation calls: OpenCoreImage builds its pipelines from these, as libvips' own bindings do
   (pyvips, ruby-vips): create an operation by name, set its inputs, build it through the cache, read its outputs. ---- */

static inline VipsOperation *cvips_operation_new(const char *name) { return vips_operation_new(name); }
/* Whether the operation has an argument of that name (setting one it lacks would crash in GObject). */
static inline int cvips_has_argument(VipsOperation *op, const char *name) {
    GParamSpec *pspec; VipsArgumentClass *argument_class; VipsArgumentInstance *argument_instance;
    return vips_object_get_argument(VIPS_OBJECT(op), name, &pspec, &argument_class, &argument_instance) == 0;
}
static inline void cvips_set_image(VipsOperation *op, const char *name, VipsImage *value) { g_object_set(op, name, value, NULL); }
static inline void cvips_set_int(VipsOperation *op, const char *name, int value) { g_object_set(op, name, value, NULL); }
static inline void cvips_set_double(VipsOperation *op, const char *name, double value) { g_object_set(op, name, value, NULL); }
static inline void cvips_set_bool(VipsOperation *op, const char *name, int value) { g_object_set(op, name, (gboolean)(value != 0), NULL); }
static inline void cvips_set_string(VipsOperation *op, const char *name, const char *value) { g_object_set(op, name, value, NULL); }
/* An enum or flags argument by its nickname ("centre", "bilinear"): 0, or -1 when the nickname is unknown. */
static inline int cvips_set_enum(VipsOperation *op, const char *name, const char *nick) {
    return vips_object_set_argument_from_string(VIPS_OBJECT(op), name, nick) == 0 ? 0 : -1;
}
static inline void cvips_set_doubles(VipsOperation *op, const char *name, const double *values, int n) {
    VipsArrayDouble *array = vips_array_double_new(values, n);
    g_object_set(op, name, array, NULL);
    vips_area_unref(VIPS_AREA(array));
}
static inline void cvips_set_ints(VipsOperation *op, const char *name, const int *values, int n) {
    VipsArrayInt *array = vips_array_int_new(values, n);
    g_object_set(op, name, array, NULL);
    vips_area_unref(VIPS_AREA(array));
}
static inline void cvips_set_images(VipsOperation *op, const char *name, VipsImage **values, int n) {
    VipsArrayImage *array = vips_array_image_new(values, n);
    g_object_set(op, name, array, NULL);
    vips_area_unref(VIPS_AREA(array));
}
/* A copy of the bytes as a blob argument (a loader's "buffer"). */
static inline void cvips_set_blob(VipsOperation *op, const char *name, const void *data, size_t length) {
    VipsBlob *blob = vips_blob_copy(data, length);
    g_object_set(op, name, blob, NULL);
    vips_area_unref(VIPS_AREA(blob));
}
static inline int cvips_set_interpolate(VipsOperation *op, const char *name, const char *nick) {
    VipsInterpolate *interpolate = vips_interpolate_new(nick);
    if (!interpolate) return -1;
    g_object_set(op, name, interpolate, NULL);
    g_object_unref(interpolate);
    return 0;
}
/* Builds the operation (through the operation cache); on failure releases it and returns -1 with the vips error. */
static inline int cvips_operation_build(VipsOperation **op) {
    if (vips_cache_operation_buildp(op)) {
        vips_object_unref_outputs(VIPS_OBJECT(*op));
        g_object_unref(*op);
        *op = NULL;
        return -1;
    }
    return 0;
}
/* An output image, with a reference the caller owns. */
static inline VipsImage *cvips_get_image(VipsOperation *op, const char *name) {
    VipsImage *out = NULL;
    g_object_get(op, name, &out, NULL);
    return out;
}
static inline double cvips_get_double(VipsOperation *op, const char *name) {
    double out = 0;
    g_object_get(op, name, &out, NULL);
    return out;
}
/* An output blob, copied into memory the caller frees with g_free. */
static inline void *cvips_get_blob(VipsOperation *op, const char *name, size_t *length) {
    VipsBlob *blob = NULL;
    *length = 0;
    g_object_get(op, name, &blob, NULL);
    if (!blob) return NULL;
    size_t size = 0;
    const void *data = vips_blob_get(blob, &size);
    void *copy = g_malloc(size > 0 ? size : 1);
    if (size > 0) memcpy(copy, data, size);
    *length = size;
    vips_area_unref(VIPS_AREA(blob));
    return copy;
}
/* Releases a built operation and its references to its outputs. */
static inline void cvips_operation_release(VipsOperation *op) {
    vips_object_unref_outputs(VIPS_OBJECT(op));
    g_object_unref(op);
}
static inline void cvips_operation_discard(VipsOperation *op) { g_object_unref(op); }
/* A copy of the image whose metadata may be changed (the pixels are shared). */
static inline VipsImage *cvips_copy(VipsImage *in) {
    VipsImage *out = NULL;
    if (vips_copy(in, &out, NULL)) return NULL;
    return out;
}
static inline void cvips_set_meta_blob(VipsImage *image, const char *name, const void *data, size_t length) {
    vips_image_set_blob_copy(image, name, data, length);
}
static inline void cvips_set_meta_int(VipsImage *image, const char *name, int value) { vips_image_set_int(image, name, value); }
static inline void cvips_remove_meta(VipsImage *image, const char *name) { vips_image_remove(image, name); }
static inline int cvips_get_format(VipsImage *image) { return (int)vips_image_get_format(image); }
static inline int cvips_get_interpretation(VipsImage *image) { return (int)vips_image_get_interpretation(image); }
static inline void cvips_set_interpretation(VipsImage *image, int interpretation) { image->Type = (VipsInterpretation)interpretation; }
static inline void cvips_ref(VipsImage *image) { g_object_ref(image); }

/* A profile libvips carries built in ("srgb", "p3", "cmyk"), copied into memory the caller frees with g_free. */
static inline void *cvips_builtin_profile(const char *name, size_t *length) {
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

/* ---- Benchmark baseline (photos-bench coreimage): a photo edit written directly against libvips, the same maths
   as the Core Image chain it is compared with — decode, linear light (scRGB), optional downscale, straighten
   (rotate about the centre, scaled to fill), crop to the central `keep` fraction, exposure, saturation / brightness /
   contrast, a radial vignette, back to 8-bit sRGB, JPEG. Returns 0, or -1 with the vips error. ---- */
static inline VipsImage *cbench_clamp01(VipsObject *scope, VipsImage *in) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 6);
    if (vips_relational_const1(in, &t[0], VIPS_OPERATION_RELATIONAL_MORE, 1.0, NULL) ||
        vips_black(&t[1], in->Xsize, in->Ysize, "bands", in->Bands, NULL) || vips_linear1(t[1], &t[2], 0.0, 1.0, NULL) ||
        vips_ifthenelse(t[0], t[2], in, &t[3], NULL) ||
        vips_relational_const1(t[3], &t[4], VIPS_OPERATION_RELATIONAL_LESS, 0.0, NULL) ||
        vips_ifthenelse(t[4], t[1], t[3], &t[5], NULL)) return NULL;
    return t[5];
}

static inline int cbench_edit_chain(const char *in_path, const char *out_path, int shrink, double scale, double angle, double keep,
                                    double ev, double saturation, double brightness, double contrast, double vignette, int quality) {
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 24);
    int result = -1;
    VipsImage *x = NULL;
    if (shrink > 1) t[0] = vips_image_new_from_file(in_path, "access", VIPS_ACCESS_RANDOM, "shrink", shrink, NULL);
    else t[0] = vips_image_new_from_file(in_path, "access", VIPS_ACCESS_RANDOM, NULL);
    if (!t[0]) goto done;
    if (vips_colourspace(t[0], &t[1], VIPS_INTERPRETATION_scRGB, NULL)) goto done;
    x = t[1];
    if (scale != 1) {
        if (vips_affine(x, &t[2], scale, 0, 0, scale, "interpolate", vips_interpolate_bilinear_static(), NULL)) goto done;
        x = t[2];
    }
    {
        double w = x->Xsize, h = x->Ysize, c = cos(angle), s = sin(angle);
        double k = fmax((w * fabs(c) + h * fabs(s)) / w, (w * fabs(s) + h * fabs(c)) / h);
        /* y down: a counter-clockwise turn in y-up coordinates. */
        double a = k * c, b = k * s, cc = -k * s, d = k * c;
        double cx = w / 2, cy = h / 2;
        double odx = cx - (a * cx + b * cy) + 0.5 * (a + b - 1), ody = cy - (cc * cx + d * cy) + 0.5 * (cc + d - 1);
        VipsArrayInt *area = vips_array_int_newv(4, 0, 0, (int)w, (int)h);
        int failed = vips_affine(x, &t[3], a, b, cc, d, "interpolate", vips_interpolate_bilinear_static(), "oarea", area,
                                 "odx", odx, "ody", ody, "extend", VIPS_EXTEND_COPY, NULL);
        vips_area_unref(VIPS_AREA(area));
        if (failed) goto done;
        x = t[3];
    }
    {
        int cw = (int)(x->Xsize * keep), ch = (int)(x->Ysize * keep);
        if (vips_crop(x, &t[4], (x->Xsize - cw) / 2, (x->Ysize - ch) / 2, cw, ch, NULL)) goto done;
        x = t[4];
    }
    if (vips_linear1(x, &t[5], pow(2, ev), 0, NULL)) goto done;
    {
        double l[3] = { 0.2125, 0.7154, 0.0721 }, m[9];
        for (int r = 0; r < 3; r++) for (int col = 0; col < 3; col++) m[r * 3 + col] = (1 - saturation) * l[col] + (r == col ? saturation : 0);
        t[6] = vips_image_new_matrix_from_array(3, 3, m, 9);
        if (!t[6] || vips_recomb(t[5], &t[7], t[6], NULL)) goto done;
        double offset = (brightness - 0.5) * contrast + 0.5;
        if (vips_linear1(t[7], &t[8], contrast, offset, NULL)) goto done;
        x = t[8];
    }
    {
        double w = x->Xsize, h = x->Ysize, outer = hypot(w, h) / 2;
        if (vips_xyz(&t[9], x->Xsize, x->Ysize, NULL)) goto done;
        double a2[2] = { 1, -1 }, b2[2] = { 0.5 - w / 2, h / 2 - 0.5 };
        if (vips_linear(t[9], &t[10], a2, b2, 2, NULL)) goto done;
        if (vips_multiply(t[10], t[10], &t[11], NULL)) goto done;
        VipsImage *sq0 = NULL, *sq1 = NULL;
        if (vips_extract_band(t[11], &sq0, 0, NULL) || vips_extract_band(t[11], &sq1, 1, NULL)) goto done;
        int failed = vips_add(sq0, sq1, &t[13], NULL);
        g_object_unref(sq0); g_object_unref(sq1);
        if (failed || vips_math2_const1(t[13], &t[14], VIPS_OPERATION_MATH2_POW, 0.5, NULL)) goto done;
        if (vips_linear1(t[14], &t[15], 1 / outer, 0, NULL)) goto done;
        VipsImage *tt = cbench_clamp01(scope, t[15]);
        if (!tt) goto done;
        /* smoothstep: t²(3 − 2t); factor 1 − intensity·smoothstep */
        if (vips_multiply(tt, tt, &t[16], NULL) || vips_linear1(tt, &t[17], -2, 3, NULL) || vips_multiply(t[16], t[17], &t[18], NULL) ||
            vips_linear1(t[18], &t[19], -vignette, 1, NULL) || vips_multiply(x, t[19], &t[20], NULL)) goto done;
        x = t[20];
    }
    if (vips_colourspace(x, &t[21], VIPS_INTERPRETATION_sRGB, NULL)) goto done;
    result = vips_jpegsave(t[21], out_path, "Q", quality, NULL) ? -1 : 0;
done:
    g_object_unref(scope);
    return result;
}

/* Baseline for a 3-D colour lookup in libvips (no such operation there): the cube laid out as N slices of N×N
   (`laid`: 3 floats per entry, x = r + b·N, y = g), two bilinear mapim lookups in the nearest blue slices, mixed.
   In linear light (as CIColorCube), JPEG out. */
static inline int cbench_cube(const char *in_path, const char *out_path, const float *laid, int n, int quality) {
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 24);
    int result = -1;
    if (!(t[0] = vips_image_new_from_file(in_path, "access", VIPS_ACCESS_SEQUENTIAL, NULL))) goto done;
    if (vips_colourspace(t[0], &t[1], VIPS_INTERPRETATION_scRGB, NULL)) goto done;
    if (!(t[2] = vips_image_new_from_memory_copy(laid, (size_t)n * n * n * 3 * sizeof(float), n * n, n, 3, VIPS_FORMAT_FLOAT))) goto done;
    VipsImage *unit = cbench_clamp01(scope, t[1]);
    if (!unit) goto done;
    if (vips_linear1(unit, &t[3], n - 1, 0, NULL)) goto done;
    if (vips_extract_band(t[3], &t[4], 0, NULL) || vips_extract_band(t[3], &t[5], 1, NULL) || vips_extract_band(t[3], &t[6], 2, NULL)) goto done;
    if (vips_floor(t[6], &t[7], NULL)) goto done;
    /* b0 ≤ n − 2 */
    if (vips_relational_const1(t[7], &t[8], VIPS_OPERATION_RELATIONAL_MORE, n - 2, NULL) || vips_black(&t[9], t[7]->Xsize, t[7]->Ysize, NULL) ||
        vips_linear1(t[9], &t[10], 0, n - 2, NULL) || vips_ifthenelse(t[8], t[10], t[7], &t[11], NULL)) goto done;
    if (vips_subtract(t[6], t[11], &t[12], NULL)) goto done;
    if (vips_linear1(t[11], &t[13], n, 0, NULL) || vips_add(t[4], t[13], &t[14], NULL) || vips_linear1(t[14], &t[15], 1, n, NULL)) goto done;
    VipsImage *i0[2] = { t[14], t[5] }, *i1[2] = { t[15], t[5] };
    if (vips_bandjoin(i0, &t[16], 2, NULL) || vips_bandjoin(i1, &t[17], 2, NULL)) goto done;
    if (vips_mapim(t[2], &t[18], t[16], "interpolate", vips_interpolate_bilinear_static(), NULL) ||
        vips_mapim(t[2], &t[19], t[17], "interpolate", vips_interpolate_bilinear_static(), NULL)) goto done;
    if (vips_subtract(t[19], t[18], &t[20], NULL) || vips_multiply(t[20], t[12], &t[21], NULL) || vips_add(t[18], t[21], &t[22], NULL)) goto done;
    {
        VipsImage *tagged = NULL;
        if (vips_copy(t[22], &tagged, "interpretation", VIPS_INTERPRETATION_scRGB, NULL)) goto done;
        int failed = vips_colourspace(tagged, &t[23], VIPS_INTERPRETATION_sRGB, NULL);
        g_object_unref(tagged);
        if (failed) goto done;
    }
    result = vips_jpegsave(t[23], out_path, "Q", quality, NULL) ? -1 : 0;
done:
    g_object_unref(scope);
    return result;
}

/* Baseline for a photo look as a libvips user writes it: saturation in linear light, then contrast on the 8-bit
   sRGB values (CIPhotoEffectChrome's recipe: saturation 1.25, contrast 1.1 about the middle). */
static inline int cbench_chrome(const char *in_path, const char *out_path, int quality) {
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 8);
    int result = -1;
    if (!(t[0] = vips_image_new_from_file(in_path, "access", VIPS_ACCESS_SEQUENTIAL, NULL))) goto done;
    if (vips_colourspace(t[0], &t[1], VIPS_INTERPRETATION_scRGB, NULL)) goto done;
    double l[3] = { 0.2125, 0.7154, 0.0721 }, m[9], s = 1.25;
    for (int r = 0; r < 3; r++) for (int c = 0; c < 3; c++) m[r * 3 + c] = (1 - s) * l[c] + (r == c ? s : 0);
    if (!(t[2] = vips_image_new_matrix_from_array(3, 3, m, 9)) || vips_recomb(t[1], &t[3], t[2], NULL)) goto done;
    if (vips_colourspace(t[3], &t[4], VIPS_INTERPRETATION_sRGB, NULL)) goto done;
    if (vips_linear1(t[4], &t[5], 1.1, 255 * (0.5 - 0.55), "uchar", TRUE, NULL)) goto done;
    result = vips_jpegsave(t[5], out_path, "Q", quality, NULL) ? -1 : 0;
done:
    g_object_unref(scope);
    return result;
}


/* Baselines of `photos-bench editing`. A screen-sized image as libvips' own thumbnailer makes it: decoded with
 * shrink-on-load, in memory, 8-bit (what an editing input's displaySizeImage costs at least). */
static inline int cbench_thumbnail_to_memory(const char *path, int size) {
    VipsImage *out = NULL;
    if (vips_thumbnail(path, &out, size, "height", size, "size", VIPS_SIZE_DOWN, NULL)) return -1;
    size_t length = 0;
    void *memory = vips_image_write_to_memory(out, &length);
    g_object_unref(out);
    if (!memory) return -1;
    g_free(memory);
    return 0;
}

/* The built-in editor's crop + exposure + saturation written directly against libvips: crop in unit coordinates from
 * the top left, exposure in linear light, saturation with Rec. 709 weights, JPEG at `quality`. */
static inline int cbench_crop_exposure_saturation(const char *in_path, const char *out_path, double x, double y, double w, double h,
                                                  double ev, double saturation, int quality) {
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 8);
    int result = -1;
    if (!(t[0] = vips_image_new_from_file(in_path, "access", VIPS_ACCESS_SEQUENTIAL, NULL))) goto done;
    {
        int left = (int)(x * t[0]->Xsize + 0.5), top = (int)(y * t[0]->Ysize + 0.5);
        int width = (int)(w * t[0]->Xsize + 0.5), height = (int)(h * t[0]->Ysize + 0.5);
        if (vips_crop(t[0], &t[1], left, top, width, height, NULL)) goto done;
    }
    if (vips_colourspace(t[1], &t[2], VIPS_INTERPRETATION_scRGB, NULL)) goto done;
    if (vips_linear1(t[2], &t[3], pow(2, ev), 0, NULL)) goto done;
    {
        double l[3] = { 0.2125, 0.7154, 0.0721 }, m[9];
        for (int r = 0; r < 3; r++) for (int c = 0; c < 3; c++) m[r * 3 + c] = (1 - saturation) * l[c] + (r == c ? saturation : 0);
        if (!(t[4] = vips_image_new_matrix_from_array(3, 3, m, 9)) || vips_recomb(t[3], &t[5], t[4], NULL)) goto done;
    }
    if (vips_colourspace(t[5], &t[6], VIPS_INTERPRETATION_sRGB, NULL)) goto done;
    result = vips_jpegsave(t[6], out_path, "Q", quality, NULL) ? -1 : 0;
done:
    g_object_unref(scope);
    return result;
}

#endif
