/* raw_check: drives Sources/CRaw/raw.c over RAW files for scripts/check-c.sh (AddressSanitizer + UBSan, valgrind):
 * opens each, develops it in every mode (AHD and draft, full and half size) with a preview read between, and closes it; the
 * files after --damaged may be refused, but not corrupt memory. Exit status 1 when a good file fails. */
#include "CRaw/include/craw.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(const char *path, int damaged) {
    craw_info info;
    char error[256] = "";
    craw_file *file = craw_open(path, NULL, 0, &info, error, sizeof error);
    if (!file) {
        if (!damaged) fprintf(stderr, "FAIL %s: %s\n", path, error);
        return damaged ? 0 : 1;
    }
    if (craw_as_shot_temperature(file) < 0) puts("");
    /* One opened file, developed in every mode and previewed between them (each use reopens what the last left). */
    int failed = 0;
    for (int mode = 0; mode < 4; mode++) {
        int width = 0, height = 0;
        unsigned short *pixels = craw_develop(file, mode & 1, mode >> 1, &width, &height, error, sizeof error);
        if (pixels) {
            unsigned long sum = 0; /* touch every value: an undersized buffer shows */
            for (size_t i = 0; i < (size_t)width * height * 3; i++) sum += pixels[i];
            if (sum == 0xFFFFFFFFFFFFFFFFul) puts("");
            craw_free(pixels);
        } else if (!damaged) {
            fprintf(stderr, "FAIL %s (mode %d): %s\n", path, mode, error);
            failed = 1;
        }
        size_t size = 0;
        unsigned char *preview = craw_preview_jpeg(file, &size);
        craw_free(preview);
    }
    craw_close(file);
    return failed;
}

int main(int argc, char **argv) {
    int damaged = 0, failures = 0, files = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--damaged")) { damaged = 1; continue; }
        failures += check(argv[i], damaged);
        files++;
    }
    printf("raw_check: %d files, %d failures (LibRaw %s, %d cameras)\n", files, failures, craw_version(), craw_camera_count());
    return failures ? 1 : 0;
}
