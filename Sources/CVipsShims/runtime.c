#include "cvips_shims.h"
#include <pthread.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int status = -1;

static void start(void) {
    if (VIPS_INIT("OpenPhotoKit") != 0) return;
    cheif_initialize();
    vips_cache_set_max(0);
    status = 0;
}

int cvips_start(void) {
    pthread_once(&once, start);
    return status;
}
