#ifndef CVIPS_SHIMS_H
#define CVIPS_SHIMS_H
#include <vips/vips.h>
#include <stdint.h>

/* libvips for Swift: fixed-arity wrappers of its variadic C API (image.c), any operation by name with typed
   arguments (operation.c), the libheif runtime behind HEIF thumbnails, tiles and encoding (heif.c), and one
   initialisation for the process (runtime.c). */

/* Starts libvips once for the process, with the one configuration every module shares: libheif loaded and
   its plugins initialised before any thread decodes, no operation cache (a library renders each file once and
   must never see an old file's pixels under a reused path). Returns 0, or -1 when libvips cannot start. */
int cvips_start(void);

/* Opens a file lazily: reads the header only, decodes no pixels. */
VipsImage *cvips_header_from_file(const char *path);

/* The same for a file known to be a JPEG (its first bytes say so): libvips' JPEG loader at once, without asking
   every loader whether the file is theirs (what finding the loader costs is most of a header's time). */
VipsImage *cvips_header_from_jpeg_file(const char *path);

VipsImage *cvips_header_from_buffer(const void *buf, size_t len);

/* Opens an image in memory for random access (for re-encoding). The buffer must outlive the image. */
VipsImage *cvips_load_buffer(const void *buf, size_t len);

int cvips_orientation(VipsImage *image);

const char *cvips_loader(VipsImage *image);

/* A metadata blob ("exif-data", "xmp-data", "icc-profile-data"), or NULL. Owned by the image. */
const void *cvips_blob(VipsImage *image, const char *name, size_t *length);

/* Frames of an animated image (GIF, WebP); 1 for stills. */
int cvips_n_pages(VipsImage *image);

void cvips_unref(VipsImage *image);

/* Encoding from an image in memory. The caller frees *buf with g_free. */
int cvips_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality);

int cvips_pngsave_buffer(VipsImage *in, void **buf, size_t *len);

/* Applies the EXIF orientation to the pixels (the result is upright, orientation 1). */
VipsImage *cvips_autorot(VipsImage *in);

void cvips_free(void *p);

/* libheif's depth images, through whichever libheif.so.1 this process loaded (see HEIFRuntime): looked up with
   dlsym so no particular libheif is linked. Returns the primary image's depth image count, or -1. */
int cheif_depth_image_count(const char *path);

/* The embedded thumbnail of a HEIF file's primary image, decoded by libheif (transformations applied: display-
   oriented), when it is at least min_width x min_height; its ICC profile (the thumbnail's, else the primary's) is
   attached for the caller's sRGB conversion. One context read and a small decode instead of libvips' heifload, which
   opens the file several times. Returns 0 and sets *out; 1 when there is no thumbnail that large (or its shape
   differs from the primary's); -1 when libheif fails (the caller falls back to libvips). */
int cheif_thumbnail(const char *path, int min_width, int min_height, VipsImage **out);

/* HEIC encoding through libheif directly (dlsym into whichever libheif.so.1 is loaded, as above): libvips 8.14's
   heifsave hands libheif ≥ 1.16 a writer that reports success with a NULL message, which libheif then treats as a
   failure ("heif_writer callback returned a null error text"). 8-bit interleaved RGB or RGBA in; an ICC profile and
   an EXIF block (TIFF header first) attached when given. Returns 0 and a buffer the caller frees with g_free, or -1
   with *message set to libheif's error text (static storage). */
int cheif_encode(const uint8_t *pixels, int width, int height, int bands, int quality, const void *icc, size_t icc_length, const void *exif, size_t exif_length, void **out, size_t *out_length, const char **message);

/* Loads libheif's functions and initialises its plugins once, before any thread decodes. */
void cheif_initialize(void);

/* The primary image of a HEIF grid file as a lazy image decoded tile by tile, as stored (8-bit RGB or RGBA,
   sRGB-labelled, its ICC profile attached), behind a tile cache; `transforms` receives up to 4 operations to apply in
   order to show it — 90, 180, 270 (counter-clockwise turns), -1 (mirror top to bottom), -2 (mirror left to right) —
   and `count` how many. NULL when the file is not a grid of several tiles, is cropped (clap), or libheif cannot decode
   tiles (the caller uses libvips' heifload). */
VipsImage *cheif_tiled_image(const char *path, int *transforms, int *count);

/* A HEIF grid of tile×tile HEVC images (width and height multiples of tile), as iPhones write them; for tests and
   benchmarks. 8-bit interleaved RGB in. */
int cheif_encode_grid(const uint8_t *pixels, int width, int height, int tile, int quality, void **out, size_t *out_length, const char **message);

/* ---- Rendering for the image manager ---- */

/* A display-oriented (auto-rotated) thumbnail of exactly width x height (the caller keeps the aspect ratio), or
   covering width x height and cropped at the centre (crop = 1). Shrink-on-load for JPEG, the embedded thumbnail of
   HEIC when large enough; converted to sRGB when the file carries a profile. */
/* Converts an image that carries an ICC profile to sRGB (after shrinking: the transform runs on few pixels);
   returns the input, with a new reference, when it carries none. */
VipsImage *cvips_to_srgb_profile(VipsImage *in);

VipsImage *cvips_thumbnail_exact(const char *path, int width, int height, int crop);

/* vips_thumbnail as it comes: centre crop, nothing else (the benchmarks' baseline). */
VipsImage *cvips_thumbnail_plain(const char *path, int width, int height);

/* Display-oriented and in sRGB: auto-rotated by the image's orientation, then its ICC profile applied. Takes the
   caller's reference to `in`. */
VipsImage *cvips_upright_srgb(VipsImage *in);

/* The whole image, display-oriented. */
VipsImage *cvips_load_upright(const char *path);

/* The whole image, display-oriented, in 8-bit sRGB, streamed into a file (format and options from the name, as
   "out.jpg[Q=85]"): libvips pulls the pixels through in strips, so memory stays bounded whatever the size (an
   upright image is read sequentially; a rotation reads the tiles it needs). Returns 0, or -1 with the vips error. */
int cvips_write_upright(const char *path, const char *target);

/* The whole image with an EXIF orientation the file's loader did not see (a PNG eXIf after the image data), then
   display-oriented and in sRGB: the caller sizes it with cvips_thumbnail_image_exact. */
VipsImage *cvips_load_oriented(const char *path, int orientation);

VipsImage *cvips_crop(VipsImage *in, int left, int top, int width, int height);

/* Resized to exactly width x height. */
VipsImage *cvips_resize_exact(VipsImage *in, int width, int height);

/* 8-bit sRGB pixels (3 bands, or 4 with alpha) in a new buffer the caller frees with g_free. */
void *cvips_srgb_pixels(VipsImage *in, size_t *length, int *width, int *height, int *bands);

/* Encodes 8-bit sRGB pixels: format 0 JPEG (quality), 1 PNG, 2 WebP (quality), 3 HEIC (quality). */
int cvips_encode_pixels(const void *pixels, size_t length, int width, int height, int bands, int format, int quality, void **buffer, size_t *out_length);

/* ---- Video poster frames (pixels from libavcodec) ---- */
VipsImage *cvips_image_from_rgb(const void *pixels, size_t length, int width, int height);

/* 8-bit sRGB pixels (3 or 4 bands), copied into a new image. */
VipsImage *cvips_image_from_pixels(const void *pixels, size_t length, int width, int height, int bands);

/* Rotated clockwise by 0, 90, 180 or 270 degrees. */
VipsImage *cvips_rotate(VipsImage *in, int degrees);

/* cvips_thumbnail_exact for an image in memory. */
VipsImage *cvips_thumbnail_image_exact(VipsImage *in, int width, int height, int crop);

/* ---- Generic operation calls: OpenCoreImage builds its pipelines from these, as libvips' own bindings do
   (pyvips, ruby-vips): create an operation by name, set its inputs, build it through the cache, read its outputs. ---- */
VipsOperation *cvips_operation_new(const char *name);

/* Whether the operation has an argument of that name (setting one it lacks would crash in GObject). */
int cvips_has_argument(VipsOperation *op, const char *name);

void cvips_set_image(VipsOperation *op, const char *name, VipsImage *value);

void cvips_set_int(VipsOperation *op, const char *name, int value);

void cvips_set_double(VipsOperation *op, const char *name, double value);

void cvips_set_bool(VipsOperation *op, const char *name, int value);

void cvips_set_string(VipsOperation *op, const char *name, const char *value);

/* An enum or flags argument by its nickname ("centre", "bilinear"): 0, or -1 when the nickname is unknown. */
int cvips_set_enum(VipsOperation *op, const char *name, const char *nick);

void cvips_set_doubles(VipsOperation *op, const char *name, const double *values, int n);

void cvips_set_ints(VipsOperation *op, const char *name, const int *values, int n);

void cvips_set_images(VipsOperation *op, const char *name, VipsImage **values, int n);

/* A copy of the bytes as a blob argument (a loader's "buffer"). */
void cvips_set_blob(VipsOperation *op, const char *name, const void *data, size_t length);

int cvips_set_interpolate(VipsOperation *op, const char *name, const char *nick);

/* Builds the operation (through the operation cache); on failure releases it and returns -1 with the vips error. */
int cvips_operation_build(VipsOperation **op);

/* An output image, with a reference the caller owns. */
VipsImage *cvips_get_image(VipsOperation *op, const char *name);

double cvips_get_double(VipsOperation *op, const char *name);

/* An output blob, copied into memory the caller frees with g_free. */
void *cvips_get_blob(VipsOperation *op, const char *name, size_t *length);

/* Releases a built operation and its references to its outputs. */
void cvips_operation_release(VipsOperation *op);

void cvips_operation_discard(VipsOperation *op);

/* A copy of the image whose metadata may be changed (the pixels are shared). */
VipsImage *cvips_copy(VipsImage *in);

void cvips_set_meta_blob(VipsImage *image, const char *name, const void *data, size_t length);

void cvips_set_meta_int(VipsImage *image, const char *name, int value);

void cvips_remove_meta(VipsImage *image, const char *name);

int cvips_get_format(VipsImage *image);

int cvips_get_interpretation(VipsImage *image);

void cvips_set_interpretation(VipsImage *image, int interpretation);

void cvips_ref(VipsImage *image);

/* A profile libvips carries built in ("srgb", "p3", "cmyk"), copied into memory the caller frees with g_free. */
void *cvips_builtin_profile(const char *name, size_t *length);

#endif
