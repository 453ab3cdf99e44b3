#ifndef CSAMPLE_IMAGES_H
#define CSAMPLE_IMAGES_H
#include <vips/vips.h>
#include <stdint.h>

/* Sample photos for `photos demo`, drawn with libvips. */

/* Writes a new image (used by test fixtures and the demo): a smooth gradient of the given size. */
int cvips_write_test_image(const char *path, int width, int height, int orientation, int quality);

#endif
