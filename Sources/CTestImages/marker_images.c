#include "ctest_images.h"

int cvips_write_marker_image(const char *path, int width, int height, int orientation) {
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
