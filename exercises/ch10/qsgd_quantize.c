/* Exercise 10.3: QSGD's quantizer (2 stars, 20 points). Read the end of chapter 10.
 * Replace the body below; `make test` runs your tests once this file has changed. */
#include "ch10.h"

void qsgd_quantize(const float *v, const uint32_t *noise, size_t n, int s, int8_t *q,
                   float *scale)
{
    /* TODO: the norm, then each entry's level, drawn with its noise: right on average, and
     * varying as little as it can. */
    (void)v;
    (void)noise;
    (void)s;
    for (size_t i = 0; i < n; i++)
        q[i] = 0;
    *scale = -1;
}
