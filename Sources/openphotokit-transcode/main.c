/* openphotokit-transcode: encodes a movie's web rendering — H.264 (and AAC where asked) in MPEG-4, index first — in a
   process of its own, which OpenPhotoKit starts in its kernel sandbox: libavformat and libavcodec read bytes that came
   from anyone, and a crash, a hang or an exploit of theirs must not reach the process that holds the library.

   openphotokit-transcode INPUT OUTPUT LONG SHORT AAC
     INPUT   the movie (read-only)
     OUTPUT  the file to write (must not exist)
     LONG, SHORT  the box the video fits in (never enlarged)
     AAC     1: the sound re-encoded as AAC whatever its codec; 0: copied where MPEG-4 holds it

   Writes "progress F" lines (F from 0 to 1) to standard output as it goes, and "error MESSAGE" before it exits 1; 0 is
   success. Its address space is limited (RLIMIT_AS, 8 GiB: an allocation bomb fails here), and it dies with its parent. */
#include "cavformat_shims.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

/* AddressSanitizer reserves terabytes of address space for its shadow: no address-space limit under it (check-c.sh). */
#if defined(__SANITIZE_ADDRESS__)
#define OPK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OPK_ASAN 1
#endif
#endif

static int report(void *context, double fraction) {
    double *told = context;
    if (fraction - *told >= 0.01 || fraction >= 1) {
        *told = fraction;
        printf("progress %.4f\n", fraction);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s INPUT OUTPUT LONG SHORT AAC\n", argv[0]);
        return 2;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#ifndef OPK_ASAN
    struct rlimit memory = { 8UL << 30, 8UL << 30 };
    setrlimit(RLIMIT_AS, &memory);
#endif
    cav_quiet();
    cav_export_prefer_throughput();
    int max_long = atoi(argv[3]), max_short = atoi(argv[4]), aac = atoi(argv[5]);
    if (max_long <= 0 || max_short <= 0 || max_long > 8192 || max_short > 8192) {
        printf("error the box is from 1 to 8192 pixels a side\n");
        return 1;
    }
    double told = -1;
    int err = cav_export_ex(argv[1], argv[2], "mp4", 1, max_long, max_short, 20, 1, report, &told, NULL, NULL, 0, 0, 1.0,
                            aac ? 2 : 1, NULL);
    if (err != 0) {
        char message[256];
        cav_error_string(err, message, sizeof message);
        printf("error %s\n", err == cav_not_supported_code() ? "a stream's codec cannot go into MPEG-4" : message);
        fflush(stdout);
        remove(argv[2]);
        return 1;
    }
    return 0;
}
