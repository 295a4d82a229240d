/* One libFuzzer program per target of targets.h: compiled with -DFUZZ_TARGET=fuzz_idx, ...
 * by `make fuzz`. */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return FUZZ_TARGET(data, size);
}
