#include "cvips_shims.h"
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct cheif_error { int code; int subcode; const char *message; } cheif_error;

int cheif_depth_image_count(const char *path) {
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

int cheif_thumbnail(const char *path, int min_width, int min_height, VipsImage **out) {
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

static cheif_error cheif_append(void *ctx, const void *data, size_t size, void *userdata) {
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

static const cheif_api *cheif_load_api(void) {
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

int cheif_encode(const uint8_t *pixels, int width, int height, int bands, int quality, const void *icc, size_t icc_length,
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

void cheif_initialize(void) { (void)cheif_load_api(); }

typedef struct cheif_sequence {
    void *context, *handle, *tile;
    int tile_x, tile_y;
    const uint8_t *plane;
    int stride, tile_pixels_width, tile_pixels_height;
} cheif_sequence;

static void *cheif_start(VipsImage *out, void *a, void *b) {
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

static int cheif_generate(VipsRegion *out, void *vseq, void *a, void *b, gboolean *stop) {
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

static int cheif_stop(void *vseq, void *a, void *b) {
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

static void cheif_tiled_free(VipsImage *image, cheif_tiled *tiled) {
    (void)image;
    g_free(tiled->path);
    g_free(tiled);
}

VipsImage *cheif_tiled_image(const char *path, int *transforms, int *count) {
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

int cheif_encode_grid(const uint8_t *pixels, int width, int height, int tile, int quality, void **out, size_t *out_length,
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
