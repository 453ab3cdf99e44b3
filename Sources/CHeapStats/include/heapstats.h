#ifndef CHEAPSTATS_H
#define CHEAPSTATS_H
#include <stddef.h>
/* Bytes currently allocated by malloc (glibc's mallinfo2: in-use arena bytes plus mmapped blocks). */
size_t heapstats_allocated_bytes(void);
#endif
