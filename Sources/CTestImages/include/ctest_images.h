#ifndef CTEST_IMAGES_H
#define CTEST_IMAGES_H
#include <vips/vips.h>
#include <stdint.h>

/* Test images with known pixels, for the tests. */

/* A test image whose *displayed* top-left corner is red, top-right green, bottom-left blue (the rest grey),
   stored so that EXIF orientation `orientation` displays it that way. width x height is the displayed size. */
int cvips_write_marker_image(const char *path, int width, int height, int orientation);

#endif
