#ifndef CVIPS_H
#define CVIPS_H
/* libvips' own headers, for the C targets that wrap it (CVipsShims and the sample, test and benchmark images);
   Swift imports CVipsShims, which includes them. */
#include <vips/vips.h>
#endif
