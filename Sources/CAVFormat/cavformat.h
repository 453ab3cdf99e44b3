#ifndef CAVFORMAT_H
#define CAVFORMAT_H
/* FFmpeg's libraries' headers, for CAVFormatShims (Swift imports CAVFormatShims, which includes them). */
#include <libavformat/avformat.h>
#endif
