/* openphotokit-heif-check: reads HEIF files the way OpenPhotoKit's media pipeline and libvips' HEIF loader read them,
 * in a process of its own, so that libheif's assertions and crashes on damaged files end this helper and never the
 * process that holds a photo library (libheif 1.19 aborts in BitstreamRange on some malformed box structures).
 *
 * Protocol (one helper serves many files): standard input carries paths, each ended by a NUL byte (any byte but NUL
 * can be in a path); for each, one line is written to standard output: "ok WIDTH HEIGHT" or "bad MESSAGE" (libheif's
 * error). A crash shows as the end of the output. The helper reads what the library reads before decoding — the box
 * structure, every top-level image's handle, colour profiles, metadata blocks, depth and thumbnail items, and decodes
 * the thumbnails — where libheif's parser asserts. Decoding the primary image too (--decode) costs a full decode. */
#define _GNU_SOURCE
#include <libheif/heif.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_handle(struct heif_image_handle *handle, int decode, struct heif_error *error) {
    (void)heif_image_handle_get_width(handle);
    (void)heif_image_handle_get_height(handle);
    (void)heif_image_handle_has_alpha_channel(handle);
    (void)heif_image_handle_get_luma_bits_per_pixel(handle);
    size_t profile_size = heif_image_handle_get_raw_color_profile_size(handle);
    if (profile_size > 0 && profile_size < (64u << 20)) {
        void *profile = malloc(profile_size);
        if (profile) { *error = heif_image_handle_get_raw_color_profile(handle, profile); free(profile); if (error->code) return -1; }
    }
    struct heif_color_profile_nclx *nclx = NULL;
    if (heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok) heif_nclx_color_profile_free(nclx);
    int metadata_count = heif_image_handle_get_number_of_metadata_blocks(handle, NULL);
    if (metadata_count > 0 && metadata_count < 1024) {
        heif_item_id ids[1024];
        heif_image_handle_get_list_of_metadata_block_IDs(handle, NULL, ids, metadata_count);
        for (int i = 0; i < metadata_count; i++) {
            size_t size = heif_image_handle_get_metadata_size(handle, ids[i]);
            (void)heif_image_handle_get_metadata_type(handle, ids[i]);
            if (size == 0 || size > (64u << 20)) continue;
            void *bytes = malloc(size);
            if (!bytes) continue;
            *error = heif_image_handle_get_metadata(handle, ids[i], bytes);
            free(bytes);
            if (error->code) return -1;
        }
    }
    (void)heif_image_handle_get_number_of_depth_images(handle);
    int thumbnails = heif_image_handle_get_number_of_thumbnails(handle);
    if (thumbnails > 0 && thumbnails < 64) {
        heif_item_id ids[64];
        heif_image_handle_get_list_of_thumbnail_IDs(handle, ids, thumbnails);
        for (int i = 0; i < thumbnails; i++) {
            struct heif_image_handle *thumbnail = NULL;
            *error = heif_image_handle_get_thumbnail(handle, ids[i], &thumbnail);
            if (error->code) return -1;
            int status = check_handle(thumbnail, 1, error);
            heif_image_handle_release(thumbnail);
            if (status) return status;
        }
    }
    if (decode) {
        struct heif_image *image = NULL;
        *error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL);
        if (error->code) return -1;
        heif_image_release(image);
    }
    return 0;
}

static void check(const char *path, int decode_primary) {
    struct heif_context *context = heif_context_alloc();
    struct heif_image_handle *primary = NULL;
    struct heif_error error = heif_context_read_from_file(context, path, NULL);
    int width = 0, height = 0;
    if (!error.code) error = heif_context_get_primary_image_handle(context, &primary);
    if (!error.code) {
        width = heif_image_handle_get_width(primary);
        height = heif_image_handle_get_height(primary);
        if (check_handle(primary, decode_primary, &error) == 0) {
            int count = heif_context_get_number_of_top_level_images(context);
            heif_item_id ids[256];
            if (count > 0 && count <= 256) {
                heif_context_get_list_of_top_level_image_IDs(context, ids, count);
                for (int i = 0; i < count && !error.code; i++) {
                    struct heif_image_handle *handle = NULL;
                    error = heif_context_get_image_handle(context, ids[i], &handle);
                    if (!error.code) { check_handle(handle, 0, &error); heif_image_handle_release(handle); }
                }
            }
        }
    }
    if (error.code) {
        char message[512];
        snprintf(message, sizeof message, "%s", error.message ? error.message : "unreadable");
        for (char *c = message; *c; c++) if (*c == '\n' || *c == '\r') *c = ' ';
        printf("bad %s\n", message);
    } else {
        printf("ok %d %d\n", width, height);
    }
    if (primary) heif_image_handle_release(primary);
    heif_context_free(context);
    fflush(stdout);
}

int main(int argc, char **argv) {
    int decode = argc > 1 && strcmp(argv[1], "--decode") == 0;
    /* A damaged file may declare enormous allocations: bound them here, where failing is harmless. */
    struct rlimit memory = { 4UL << 30, 4UL << 30 };
    setrlimit(RLIMIT_AS, &memory);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    /* The host closing its end (or dying) ends the loop below: no orphan is left. */
    heif_init(NULL);
    char *path = NULL;
    size_t capacity = 0;
    ssize_t n;
    while ((n = getdelim(&path, &capacity, '\0', stdin)) > 0) {
        if (path[n - 1] != '\0') break; /* a path without its end: the host went away mid-write */
        if (n == 1) continue;
        check(path, decode);
    }
    free(path);
    heif_deinit();
    return 0;
}
