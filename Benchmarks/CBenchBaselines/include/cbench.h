#ifndef CBENCH_H
#define CBENCH_H
#include <vips/vips.h>
#include <stdint.h>

/* The baselines photos-bench compares with: the same work written directly against libvips. */

int cbench_edit_chain(const char *in_path, const char *out_path, int shrink, double scale, double angle, double keep, double ev, double saturation, double brightness, double contrast, double vignette, int quality);

/* Baseline for a 3-D colour lookup in libvips (no such operation there): the cube laid out as N slices of N×N
   (`laid`: 3 floats per entry, x = r + b·N, y = g), two bilinear mapim lookups in the nearest blue slices, mixed.
   In linear light (as CIColorCube), JPEG out. */
int cbench_cube(const char *in_path, const char *out_path, const float *laid, int n, int quality);

/* Baseline for a photo look as a libvips user writes it: saturation in linear light, then contrast on the 8-bit
   sRGB values (CIPhotoEffectChrome's recipe: saturation 1.25, contrast 1.1 about the middle). */
int cbench_chrome(const char *in_path, const char *out_path, int quality);

/* Baselines of `photos-bench editing`. A screen-sized image as libvips' own thumbnailer makes it: decoded with
 * shrink-on-load, in memory, 8-bit (what an editing input's displaySizeImage costs at least). */
int cbench_thumbnail_to_memory(const char *path, int size);

/* The built-in editor's crop + exposure + saturation written directly against libvips: crop in unit coordinates from
 * the top left, exposure in linear light, saturation with Rec. 709 weights, JPEG at `quality`. */
int cbench_crop_exposure_saturation(const char *in_path, const char *out_path, double x, double y, double w, double h, double ev, double saturation, int quality);

#endif
