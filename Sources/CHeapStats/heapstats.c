#include "heapstats.h"
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
size_t heapstats_allocated_bytes(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
#else
size_t heapstats_allocated_bytes(void) { return 0; }
#endif
