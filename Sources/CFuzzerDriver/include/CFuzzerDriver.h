#ifndef CFUZZERDRIVER_H
#define CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/* libFuzzer's driver (compiler-rt, with -sanitize=fuzzer): runs the fuzzing loop with the command line's options and
   corpus folders, calling `callback` for each input. Declared here, defined only in fuzzing builds. */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
