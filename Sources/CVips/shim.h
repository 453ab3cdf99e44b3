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

#endif
