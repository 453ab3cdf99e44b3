#include "cbench.h"
#include <math.h>
#include <string.h>

static /* ---- Benchmark baseline (photos-bench coreimage): a photo edit written directly against libvips, the same maths
   as the Core Image chain it is compared with — decode, linear light (scRGB), optional downscale, straighten
   (rotate about the centre, scaled to fill), crop to the central `keep` fraction, exposure, saturation / brightness /
   contrast, a radial vignette, back to 8-bit sRGB, JPEG. Returns 0, or -1 with the vips error. ---- */
VipsImage *cbench_clamp01(VipsObject *scope, VipsImage *in) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 6);
    if (vips_relational_const1(in, &t[0], VIPS_OPERATION_RELATIONAL_MORE, 1.0, NULL) ||
        vips_black(&t[1], in->Xsize, in->Ysize, "bands", in->Bands, NULL) || vips_linear1(t[1], &t[2], 0.0, 1.0, NULL) ||
        vips_ifthenelse(t[0], t[2], in, &t[3], NULL) ||
        vips_relational_const1(t[3], &t[4], VIPS_OPERATION_RELATIONAL_LESS, 0.0, NULL) ||
        vips_ifthenelse(t[4], t[1], t[3], &t[5], NULL)) return NULL;
    return t[5];
}

int cbench_edit_chain(const char *in_path, const char *out_path, int shrink, double scale, double angle, double keep,
                                    double ev, double saturation, double brightness, double contrast, double vignette, int quality) {
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 24);
    int result = -1;
    VipsImage *x = NULL;
    if (shrink > 1) t[0] = vips_image_new_from_file(in_path, "access", VIPS_ACCESS_RANDOM, "shrink", shrink, NULL);
    else t[0] = vips_image_new_from_file(in_path, "access", VIPS_ACCESS_RANDOM, NULL);
    if (!t[0]) goto done;
    if (vips_colourspace(t[0], &t[1], VIPS_INTERPRETATION_scRGB, NULL)) goto done;
    x = t[1];
    if (scale != 1) {
        if (vips_affine(x, &t[2], scale, 0, 0, scale, "interpolate", vips_interpolate_bilinear_static(), NULL)) goto done;
        x = t[2];
    }
    {
        double w = x->Xsize, h = x->Ysize, c = cos(angle), s = sin(angle);
        double k = fmax((w * fabs(c) + h * fabs(s)) / w, (w * fabs(s) + h * fabs(c)) / h);
        /* y down: a counter-clockwise turn in y-up coordinates. */
        double a = k * c, b = k * s, cc = -k * s, d = k * c;
        double cx = w / 2, cy = h / 2;
        double odx = cx - (a * cx + b * cy) + 0.5 * (a + b - 1), ody = cy - (cc * cx + d * cy) + 0.5 * (cc + d - 1);
        VipsArrayInt *area = vips_array_int_newv(4, 0, 0, (int)w, (int)h);
        int failed = vips_affine(x, &t[3], a, b, cc, d, "interpolate", vips_interpolate_bilinear_static(), "oarea", area,
                                 "odx", odx, "ody", ody, "extend", VIPS_EXTEND_COPY, NULL);
        vips_area_unref(VIPS_AREA(area));
        if (failed) goto done;
        x = t[3];
    }
    {
        int cw = (int)(x->Xsize * keep), ch = (int)(x->Ysize * keep);
        if (vips_crop(x, &t[4], (x->Xsize - cw) / 2, (x->Ysize - ch) / 2, cw, ch, NULL)) goto done;
        x = t[4];
    }
    if (vips_linear1(x, &t[5], pow(2, ev), 0, NULL)) goto done;
    {
        double l[3] = { 0.2125, 0.7154, 0.0721 }, m[9];
        for (int r = 0; r < 3; r++) for (int col = 0; col < 3; col++) m[r * 3 + col] = (1 - saturation) * l[col] + (r == col ? saturation : 0);
        t[6] = vips_image_new_matrix_from_array(3, 3, m, 9);
        if (!t[6] || vips_recomb(t[5], &t[7], t[6], NULL)) goto done;
        double offset = (brightness - 0.5) * contrast + 0.5;
        if (vips_linear1(t[7], &t[8], contrast, offset, NULL)) goto done;
        x = t[8];
    }
    {
        double w = x->Xsize, h = x->Ysize, outer = hypot(w, h) / 2;
        if (vips_xyz(&t[9], x->Xsize, x->Ysize, NULL)) goto done;
        double a2[2] = { 1, -1 }, b2[2] = { 0.5 - w / 2, h / 2 - 0.5 };
        if (vips_linear(t[9], &t[10], a2, b2, 2, NULL)) goto done;
        if (vips_multiply(t[10], t[10], &t[11], NULL)) goto done;
        VipsImage *sq0 = NULL, *sq1 = NULL;
        if (vips_extract_band(t[11], &sq0, 0, NULL) || vips_extract_band(t[11], &sq1, 1, NULL)) goto done;
        int failed = vips_add(sq0, sq1, &t[13], NULL);
        g_object_unref(sq0); g_object_unref(sq1);
        if (failed || vips_math2_const1(t[13], &t[14], VIPS_OPERATION_MATH2_POW, 0.5, NULL)) goto done;
        if (vips_linear1(t[14], &t[15], 1 / outer, 0, NULL)) goto done;
        VipsImage *tt = cbench_clamp01(scope, t[15]);
        if (!tt) goto done;
        /* smoothstep: t²(3 − 2t); factor 1 − intensity·smoothstep */
        if (vips_multiply(tt, tt, &t[16], NULL) || vips_linear1(tt, &t[17], -2, 3, NULL) || vips_multiply(t[16], t[17], &t[18], NULL) ||
            vips_linear1(t[18], &t[19], -vignette, 1, NULL) || vips_multiply(x, t[19], &t[20], NULL)) goto done;
        x = t[20];
    }
    if (vips_colourspace(x, &t[21], VIPS_INTERPRETATION_sRGB, NULL)) goto done;
    result = vips_jpegsave(t[21], out_path, "Q", quality, NULL) ? -1 : 0;
done:
    g_object_unref(scope);
    return result;
}

int cbench_cube(const char *in_path, const char *out_path, const float *laid, int n, int quality) {
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 24);
    int result = -1;
    if (!(t[0] = vips_image_new_from_file(in_path, "access", VIPS_ACCESS_SEQUENTIAL, NULL))) goto done;
    if (vips_colourspace(t[0], &t[1], VIPS_INTERPRETATION_scRGB, NULL)) goto done;
    if (!(t[2] = vips_image_new_from_memory_copy(laid, (size_t)n * n * n * 3 * sizeof(float), n * n, n, 3, VIPS_FORMAT_FLOAT))) goto done;
    VipsImage *unit = cbench_clamp01(scope, t[1]);
    if (!unit) goto done;
    if (vips_linear1(unit, &t[3], n - 1, 0, NULL)) goto done;
    if (vips_extract_band(t[3], &t[4], 0, NULL) || vips_extract_band(t[3], &t[5], 1, NULL) || vips_extract_band(t[3], &t[6], 2, NULL)) goto done;
    if (vips_floor(t[6], &t[7], NULL)) goto done;
    /* b0 ≤ n − 2 */
    if (vips_relational_const1(t[7], &t[8], VIPS_OPERATION_RELATIONAL_MORE, n - 2, NULL) || vips_black(&t[9], t[7]->Xsize, t[7]->Ysize, NULL) ||
        vips_linear1(t[9], &t[10], 0, n - 2, NULL) || vips_ifthenelse(t[8], t[10], t[7], &t[11], NULL)) goto done;
    if (vips_subtract(t[6], t[11], &t[12], NULL)) goto done;
    if (vips_linear1(t[11], &t[13], n, 0, NULL) || vips_add(t[4], t[13], &t[14], NULL) || vips_linear1(t[14], &t[15], 1, n, NULL)) goto done;
    VipsImage *i0[2] = { t[14], t[5] }, *i1[2] = { t[15], t[5] };
    if (vips_bandjoin(i0, &t[16], 2, NULL) || vips_bandjoin(i1, &t[17], 2, NULL)) goto done;
    if (vips_mapim(t[2], &t[18], t[16], "interpolate", vips_interpolate_bilinear_static(), NULL) ||
        vips_mapim(t[2], &t[19], t[17], "interpolate", vips_interpolate_bilinear_static(), NULL)) goto done;
    if (vips_subtract(t[19], t[18], &t[20], NULL) || vips_multiply(t[20], t[12], &t[21], NULL) || vips_add(t[18], t[21], &t[22], NULL)) goto done;
    {
        VipsImage *tagged = NULL;
        if (vips_copy(t[22], &tagged, "interpretation", VIPS_INTERPRETATION_scRGB, NULL)) goto done;
        int failed = vips_colourspace(tagged, &t[23], VIPS_INTERPRETATION_sRGB, NULL);
        g_object_unref(tagged);
        if (failed) goto done;
    }
    result = vips_jpegsave(t[23], out_path, "Q", quality, NULL) ? -1 : 0;
done:
    g_object_unref(scope);
    return result;
}

int cbench_chrome(const char *in_path, const char *out_path, int quality) {
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 8);
    int result = -1;
    if (!(t[0] = vips_image_new_from_file(in_path, "access", VIPS_ACCESS_SEQUENTIAL, NULL))) goto done;
    if (vips_colourspace(t[0], &t[1], VIPS_INTERPRETATION_scRGB, NULL)) goto done;
    double l[3] = { 0.2125, 0.7154, 0.0721 }, m[9], s = 1.25;
    for (int r = 0; r < 3; r++) for (int c = 0; c < 3; c++) m[r * 3 + c] = (1 - s) * l[c] + (r == c ? s : 0);
    if (!(t[2] = vips_image_new_matrix_from_array(3, 3, m, 9)) || vips_recomb(t[1], &t[3], t[2], NULL)) goto done;
    if (vips_colourspace(t[3], &t[4], VIPS_INTERPRETATION_sRGB, NULL)) goto done;
    if (vips_linear1(t[4], &t[5], 1.1, 255 * (0.5 - 0.55), "uchar", TRUE, NULL)) goto done;
    result = vips_jpegsave(t[5], out_path, "Q", quality, NULL) ? -1 : 0;
done:
    g_object_unref(scope);
    return result;
}

int cbench_thumbnail_to_memory(const char *path, int size) {
    VipsImage *out = NULL;
    if (vips_thumbnail(path, &out, size, "height", size, "size", VIPS_SIZE_DOWN, NULL)) return -1;
    size_t length = 0;
    void *memory = vips_image_write_to_memory(out, &length);
    g_object_unref(out);
    if (!memory) return -1;
    g_free(memory);
    return 0;
}

int cbench_crop_exposure_saturation(const char *in_path, const char *out_path, double x, double y, double w, double h,
                                                  double ev, double saturation, int quality) {
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 8);
    int result = -1;
    if (!(t[0] = vips_image_new_from_file(in_path, "access", VIPS_ACCESS_SEQUENTIAL, NULL))) goto done;
    {
        int left = (int)(x * t[0]->Xsize + 0.5), top = (int)(y * t[0]->Ysize + 0.5);
        int width = (int)(w * t[0]->Xsize + 0.5), height = (int)(h * t[0]->Ysize + 0.5);
        if (vips_crop(t[0], &t[1], left, top, width, height, NULL)) goto done;
    }
    if (vips_colourspace(t[1], &t[2], VIPS_INTERPRETATION_scRGB, NULL)) goto done;
    if (vips_linear1(t[2], &t[3], pow(2, ev), 0, NULL)) goto done;
    {
        double l[3] = { 0.2125, 0.7154, 0.0721 }, m[9];
        for (int r = 0; r < 3; r++) for (int c = 0; c < 3; c++) m[r * 3 + c] = (1 - saturation) * l[c] + (r == c ? saturation : 0);
        if (!(t[4] = vips_image_new_matrix_from_array(3, 3, m, 9)) || vips_recomb(t[3], &t[5], t[4], NULL)) goto done;
    }
    if (vips_colourspace(t[5], &t[6], VIPS_INTERPRETATION_sRGB, NULL)) goto done;
    result = vips_jpegsave(t[6], out_path, "Q", quality, NULL) ? -1 : 0;
done:
    g_object_unref(scope);
    return result;
}
