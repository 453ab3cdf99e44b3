#include "csample_images.h"

int cvips_write_test_image(const char *path, int width, int height, int orientation, int quality) {
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
