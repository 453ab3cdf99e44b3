/* Runs CVipsShims' entry points — headers, thumbnails, upright loads, pixels, encoding, HEIF thumbnails, tiles and
 * depth images — over every image named on the command line and over images it writes itself (JPEG, PNG, HEIF grid,
 * every EXIF orientation). scripts/check-c.sh builds it with AddressSanitizer and UndefinedBehaviorSanitizer. Exits
 * non-zero when an entry point fails on an image that should decode, when a result is inconsistent (a pixel buffer
 * of the wrong length, a thumbnail larger than asked), or when a damaged input is not refused cleanly. */
#include "cvips_shims.h"
#include "csample_images.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define FAIL(...) do { fprintf(stderr, "FAIL %s: ", path); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } while (0)

/* Pixels of an image: the buffer length must be width × height × bands. */
static int pixels_ok(const char *path, VipsImage *image, const char *what) {
    size_t length = 0;
    int width = 0, height = 0, bands = 0;
    void *pixels = cvips_srgb_pixels(image, &length, &width, &height, &bands);
    if (!pixels) { FAIL("%s: no pixels (%s)", what, vips_error_buffer()); vips_error_clear(); return 0; }
    int ok = length == (size_t)width * height * bands && width > 0 && height > 0 && bands >= 1 && bands <= 4;
    if (!ok) FAIL("%s: %zu bytes for %dx%dx%d", what, length, width, height, bands);
    long sum = 0;
    for (size_t i = 0; i < length; i++) sum += ((unsigned char *)pixels)[i];
    (void)sum;
    cvips_free(pixels);
    return ok;
}

static void check(const char *path, const char *scratch, int expect_ok) {
    int decoded = 0;
    VipsImage *header = cvips_header_from_file(path);
    if (header) {
        (void)cvips_orientation(header);
        (void)cvips_loader(header);
        (void)cvips_n_pages(header);
        size_t length = 0;
        (void)cvips_blob(header, "exif-data", &length);
        (void)cvips_blob(header, "icc-profile-data", &length);
        cvips_unref(header);
    }
    VipsImage *thumbnail = cvips_thumbnail_exact(path, 48, 32, 1);
    if (thumbnail) {
        if (thumbnail->Xsize > 48 || thumbnail->Ysize > 32) FAIL("thumbnail %dx%d for 48x32", thumbnail->Xsize, thumbnail->Ysize);
        decoded += pixels_ok(path, thumbnail, "thumbnail");
        cvips_unref(thumbnail);
    }
    VipsImage *upright = cvips_load_upright(path);
    if (upright) {
        VipsImage *crop = cvips_crop(upright, 0, 0, upright->Xsize > 3 ? 3 : upright->Xsize, upright->Ysize > 2 ? 2 : upright->Ysize);
        if (crop) { decoded += pixels_ok(path, crop, "crop"); cvips_unref(crop); }
        VipsImage *resized = cvips_resize_exact(upright, 17, 9);
        if (resized) {
            if (resized->Xsize != 17 || resized->Ysize != 9) FAIL("resize gave %dx%d for 17x9", resized->Xsize, resized->Ysize);
            void *buffer = NULL;
            size_t length = 0;
            if (cvips_jpegsave_buffer(resized, &buffer, &length, 80) == 0) {
                VipsImage *again = cvips_header_from_buffer(buffer, length);
                if (!again || again->Xsize != 17) FAIL("re-read JPEG");
                if (again) cvips_unref(again);
                cvips_free(buffer);
            } else {
                FAIL("jpegsave_buffer: %s", vips_error_buffer());
            }
            cvips_unref(resized);
        }
        cvips_unref(upright);
    }
    char target[4096];
    snprintf(target, sizeof target, "%s/upright.png", scratch);
    if (cvips_write_upright(path, target) == 0) decoded++;
    VipsImage *heif = NULL;
    int status = cheif_thumbnail(path, 8, 8, &heif);
    if (status == 0 && heif) { decoded += pixels_ok(path, heif, "HEIF thumbnail"); cvips_unref(heif); }
    (void)cheif_depth_image_count(path);
    int transforms[8] = {0}, count = 8;
    VipsImage *tiled = cheif_tiled_image(path, transforms, &count);
    if (tiled) {
        VipsImage *region = cvips_crop(tiled, 0, 0, tiled->Xsize > 70 ? 70 : tiled->Xsize, tiled->Ysize > 40 ? 40 : tiled->Ysize);
        if (region) { decoded += pixels_ok(path, region, "HEIF tiles"); cvips_unref(region); }
        cvips_unref(tiled);
    }
    vips_error_clear();
    if (expect_ok && decoded == 0) FAIL("nothing decoded");
    if (!expect_ok && decoded > 0) fprintf(stderr, "note %s: a damaged input decoded in part (%d)\n", path, decoded);
}

int main(int argc, char **argv) {
    if (argc < 2 || cvips_start() != 0) { fprintf(stderr, "usage: vips_check SCRATCH [IMAGE...] [--damaged FILE...]\n"); return 2; }
    const char *scratch = argv[1];
    const char *path = "generated";
    int checked = 0;
    /* Images written here: every EXIF orientation, odd sizes, PNG, and a HEIF grid of partial tiles. */
    for (int orientation = 1; orientation <= 8; orientation++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/orientation-%d.jpg", scratch, orientation);
        if (cvips_write_test_image(file, 33 + orientation, 17, orientation, 85) != 0) { FAIL("write %s", file); continue; }
        check(file, scratch, 1);
        checked++;
    }
    char png[4096];
    snprintf(png, sizeof png, "%s/odd.png", scratch);
    if (cvips_write_test_image(png, 1, 65, 1, 0) == 0) { check(png, scratch, 1); checked++; } else FAIL("write %s", png);
    int width = 130, height = 75;
    uint8_t *pixels = malloc((size_t)width * height * 3);
    for (int i = 0; i < width * height * 3; i++) pixels[i] = (uint8_t)(i * 7);
    void *grid = NULL;
    size_t grid_length = 0;
    const char *message = NULL;
    if (cheif_encode_grid(pixels, width, height, 64, 80, &grid, &grid_length, &message) == 0) {
        char file[4096];
        snprintf(file, sizeof file, "%s/grid.heic", scratch);
        FILE *out = fopen(file, "wb");
        fwrite(grid, 1, grid_length, out);
        fclose(out);
        g_free(grid);
        check(file, scratch, 1);
        checked++;
    } else {
        fprintf(stderr, "note: no HEIF encoder here (%s): the grid is not checked\n", message ? message : "?");
    }
    free(pixels);
    int damaged = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--damaged") == 0) { damaged = 1; continue; }
        check(argv[i], scratch, !damaged);
        checked++;
    }
    printf("vips_check: %d images, %d failures\n", checked, failures);
    return failures ? 1 : 0;
}
