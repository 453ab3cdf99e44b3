/* CRaw: camera RAW files (DNG and the cameras LibRaw knows) developed by LibRaw, for Core Image's CIRAWFilter.
 * One opened file is a `craw_file`; developing it gives 16-bit linear RGB with sRGB primaries, unrotated. */
#ifndef CRAW_H
#define CRAW_H
#include <stddef.h>

typedef struct craw_file craw_file;

typedef struct craw_info {
    int width, height;          /* the developed size (before the orientation) */
    int orientation;            /* EXIF orientation, 1…8 */
    float baseline_exposure;    /* DNG BaselineExposure, EV */
    char make[64], model[64];
} craw_info;

/* Opens a RAW file from a path or from bytes (copied) and reads its facts (its header only: the mosaic is unpacked
 * by craw_develop); NULL with a message in `error` when LibRaw cannot read it. A file can be developed and previewed
 * any number of times. */
craw_file *craw_open(const char *path, const void *bytes, size_t size, craw_info *info, char *error, size_t error_size);

/* Develops the file: `draft` uses bilinear demosaicing instead of AHD, `half` halves the size (each 2×2 block one
 * pixel). Returns width × height × 3 native-endian uint16 values (free with craw_free), NULL with a message. */
unsigned short *craw_develop(craw_file *file, int draft, int half, int *width, int *height, char *error, size_t error_size);

/* An estimate of the scene's light in kelvin, from the camera's as-shot white balance (unpacks the mosaic: the
 * colour data is only sound then); 0 when the file has none or cannot be unpacked. */
float craw_as_shot_temperature(craw_file *file);

/* The embedded JPEG preview's bytes (free with craw_free), NULL when there is none. */
unsigned char *craw_preview_jpeg(craw_file *file, size_t *size);

void craw_free(void *pointer);
void craw_close(craw_file *file);

/* The camera models LibRaw reads ("Canon EOS R5" …). */
int craw_camera_count(void);
const char *craw_camera(int index);
const char *craw_version(void);
#endif
