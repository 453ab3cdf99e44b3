#include "cvips_shims.h"

VipsOperation *cvips_operation_new(const char *name) { return vips_operation_new(name); }

int cvips_has_argument(VipsOperation *op, const char *name) {
    GParamSpec *pspec; VipsArgumentClass *argument_class; VipsArgumentInstance *argument_instance;
    return vips_object_get_argument(VIPS_OBJECT(op), name, &pspec, &argument_class, &argument_instance) == 0;
}

void cvips_set_image(VipsOperation *op, const char *name, VipsImage *value) { g_object_set(op, name, value, NULL); }

void cvips_set_int(VipsOperation *op, const char *name, int value) { g_object_set(op, name, value, NULL); }

void cvips_set_double(VipsOperation *op, const char *name, double value) { g_object_set(op, name, value, NULL); }

void cvips_set_bool(VipsOperation *op, const char *name, int value) { g_object_set(op, name, (gboolean)(value != 0), NULL); }

void cvips_set_string(VipsOperation *op, const char *name, const char *value) { g_object_set(op, name, value, NULL); }

int cvips_set_enum(VipsOperation *op, const char *name, const char *nick) {
    return vips_object_set_argument_from_string(VIPS_OBJECT(op), name, nick) == 0 ? 0 : -1;
}

void cvips_set_doubles(VipsOperation *op, const char *name, const double *values, int n) {
    VipsArrayDouble *array = vips_array_double_new(values, n);
    g_object_set(op, name, array, NULL);
    vips_area_unref(VIPS_AREA(array));
}

void cvips_set_ints(VipsOperation *op, const char *name, const int *values, int n) {
    VipsArrayInt *array = vips_array_int_new(values, n);
    g_object_set(op, name, array, NULL);
    vips_area_unref(VIPS_AREA(array));
}

void cvips_set_images(VipsOperation *op, const char *name, VipsImage **values, int n) {
    VipsArrayImage *array = vips_array_image_new(values, n);
    g_object_set(op, name, array, NULL);
    vips_area_unref(VIPS_AREA(array));
}

void cvips_set_blob(VipsOperation *op, const char *name, const void *data, size_t length) {
    VipsBlob *blob = vips_blob_copy(data, length);
    g_object_set(op, name, blob, NULL);
    vips_area_unref(VIPS_AREA(blob));
}

int cvips_set_interpolate(VipsOperation *op, const char *name, const char *nick) {
    VipsInterpolate *interpolate = vips_interpolate_new(nick);
    if (!interpolate) return -1;
    g_object_set(op, name, interpolate, NULL);
    g_object_unref(interpolate);
    return 0;
}

int cvips_operation_build(VipsOperation **op) {
    if (vips_cache_operation_buildp(op)) {
        vips_object_unref_outputs(VIPS_OBJECT(*op));
        g_object_unref(*op);
        *op = NULL;
        return -1;
    }
    return 0;
}

VipsImage *cvips_get_image(VipsOperation *op, const char *name) {
    VipsImage *out = NULL;
    g_object_get(op, name, &out, NULL);
    return out;
}

double cvips_get_double(VipsOperation *op, const char *name) {
    double out = 0;
    g_object_get(op, name, &out, NULL);
    return out;
}

void *cvips_get_blob(VipsOperation *op, const char *name, size_t *length) {
    VipsBlob *blob = NULL;
    *length = 0;
    g_object_get(op, name, &blob, NULL);
    if (!blob) return NULL;
    size_t size = 0;
    const void *data = vips_blob_get(blob, &size);
    void *copy = g_malloc(size > 0 ? size : 1);
    if (size > 0) memcpy(copy, data, size);
    *length = size;
    vips_area_unref(VIPS_AREA(blob));
    return copy;
}

void cvips_operation_release(VipsOperation *op) {
    vips_object_unref_outputs(VIPS_OBJECT(op));
    g_object_unref(op);
}

void cvips_operation_discard(VipsOperation *op) { g_object_unref(op); }
