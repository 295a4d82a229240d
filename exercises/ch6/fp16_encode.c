/* Exercise 6.2: fp16 gradient compression. */
#include "ch6.h"

void fp16_encode(const float *x, uint16_t *h, size_t n)
{
    /* Take the float's bits apart (memcpy into a uint32_t): sign, exponent, mantissa.
     * Re-bias the exponent from 127 to 15 and round the mantissa from 23 to 10 bits. */
    (void)x;
    for (size_t i = 0; i < n; i++)
        h[i] = 0;
}
