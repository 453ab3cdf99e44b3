/* Runs the CAVFormat shim's entry points — probe, metadata, poster frame, export (remux, re-encode, re-encode through
 * the RGBA frame filter) — over every movie named on the command line. scripts/check-c.sh builds it twice: with
 * AddressSanitizer and UndefinedBehaviorSanitizer (the shim's own code), and plain under valgrind's memcheck, which
 * also sees the writes of the uninstrumented system libraries into buffers the shim hands them (how a tight RGB24
 * buffer overrun by swscale's vector stores was found). Exits non-zero when an entry point fails on a movie that
 * should decode, or when a result is inconsistent (poster frame size against the probe). */
#include "cavformat_shims.h"
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The poster frame read through cav_poster_frame_reader: pread of the file, counting the bytes asked for. */
typedef struct { int fd; long long read; } file_reader;

static int read_range(void *opaque, int64_t offset, uint8_t *buf, int count) {
    file_reader *reader = opaque;
    ssize_t got = pread(reader->fd, buf, (size_t)count, (off_t)offset);
    if (got > 0) reader->read += got;
    return got < 0 ? -1 : (int)got;
}

static int touch_pixels(void *context, uint8_t *rgba, int width, int height, int stride, double seconds) {
    (void)seconds;
    long *sum = context;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width * 4; x++) { *sum += rgba[(size_t)y * stride + x]; rgba[(size_t)y * stride + x] ^= 1; }
    return 0;
}

static int check(const char *path, const char *scratch, int expect_ok) {
    cav_video_info info;
    int failures = 0;
    int err = cav_probe_file(path, &info);
    char text[4096];
    int n = cav_metadata(path, text, sizeof text);
    (void)n;
    uint8_t *pixels = NULL;
    int width = 0, height = 0;
    int poster = cav_poster_frame(path, 0.2, 100L * 1000 * 1000, &pixels, &width, &height);
    if (poster == 0) {
        long sum = 0;
        for (long i = 0; i < (long)width * height * 3; i++) sum += pixels[i];
        av_free(pixels);
        if (err == 0 && (width != info.width || height != info.height)) {
            fprintf(stderr, "%s: poster frame %dx%d, probe %dx%d\n", path, width, height, info.width, info.height);
            failures++;
        }
        printf("%s: poster %dx%d (sum %ld)\n", path, width, height, sum);
    } else if (expect_ok) {
        fprintf(stderr, "%s: no poster frame (%d)\n", path, poster);
        failures++;
    }
    /* The same frame read by ranges: the same size, its rotation the probe's, never more bytes than the file has. */
    file_reader reader = {open(path, O_RDONLY), 0};
    struct stat st;
    if (reader.fd >= 0 && fstat(reader.fd, &st) == 0) {
        int rotation = -1, rw = 0, rh = 0;
        uint8_t *ranged = NULL;
        int e = cav_poster_frame_reader(read_range, &reader, (int64_t)st.st_size, 0.2, 100L * 1000 * 1000, &ranged, &rw, &rh, &rotation);
        if (e == 0) {
            av_free(ranged);
            if (poster == 0 && (rw != width || rh != height || (err == 0 && rotation != info.rotation))) {
                fprintf(stderr, "%s: by ranges %dx%d rotation %d, by path %dx%d rotation %d\n", path, rw, rh, rotation, width, height, info.rotation);
                failures++;
            }
            printf("%s: poster by ranges %dx%d, %lld of %lld bytes read\n", path, rw, rh, reader.read, (long long)st.st_size);
        } else if (expect_ok && poster == 0) {
            fprintf(stderr, "%s: no poster frame by ranges (%d)\n", path, e);
            failures++;
        }
        close(reader.fd);
    }
    char out[4096];
    long sum = 0;
    struct { int codec; const char *format; int filtered; } exports[] = { { 0, "mov", 0 }, { 1, "mp4", 0 }, { 1, "mov", 1 } };
    for (unsigned i = 0; i < sizeof exports / sizeof exports[0]; i++) {
        snprintf(out, sizeof out, "%s/export-%u.%s", scratch, i, exports[i].format);
        /* The second export drops audio; the third writes its own display matrix (90°), as compositions do. */
        static const int32_t turned[9] = {0, 1 << 16, 0, -(1 << 16), 0, 0, 0, 0, 1 << 30};
        int e = cav_export_ex(path, out, exports[i].format, exports[i].codec, 256, 256, 30, 1, NULL, NULL,
                              exports[i].filtered ? touch_pixels : NULL, &sum, 0, 0.5, 1, i != 1, i == 2 ? turned : NULL);
        if (e != 0 && expect_ok && !(exports[i].codec == 0 && e == cav_not_supported_code())) {
            char message[256];
            cav_error_string(e, message, sizeof message);
            fprintf(stderr, "%s: export %u failed: %s\n", path, i, message);
            failures++;
        }
        unlink(out);
    }
    return failures;
}

int main(int argc, char **argv) {
    /* av_check SCRATCH [--damaged] MOVIE...: movies after --damaged may fail, but must fail cleanly. */
    if (argc < 2) { fprintf(stderr, "usage: av_check SCRATCH [MOVIE...] [--damaged MOVIE...]\n"); return 2; }
    cav_quiet();
    int failures = 0, expect_ok = 1, checked = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--damaged") == 0) { expect_ok = 0; continue; }
        failures += check(argv[i], argv[1], expect_ok);
        checked++;
    }
    printf("av_check: %d movies, %d failures\n", checked, failures);
    return failures ? 1 : 0;
}
