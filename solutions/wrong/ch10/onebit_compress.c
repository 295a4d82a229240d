/* Wrong on purpose: each bit is set or cleared in place (bits[i / 8] |= or &= its mask), as
 * if the buffer came zeroed; the unused high bits of a partial last byte keep whatever the
 * buffer held. Every bit that counts, both means and the error are right, so the public
 * tests, whose buffers start zeroed, pass.
 * Fails: hidden_onebit_compress::one_to_seventeen_entries_over_garbage
 */
/* Otherwise a copy of the reference solution of exercise 10.1. */
#include "ch10.h"

void onebit_compress(const float *g, float *error, size_t n, uint8_t *bits, float *pos,
                     float *neg)
{
    double sum[2] = {0, 0};
    size_t count[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        float m = g[i] + error[i];
        int b = m >= 0.0f;
        sum[b] += m;
        count[b]++;
    }
    float mean[2];
    for (int b = 0; b < 2; b++)
        mean[b] = count[b] ? (float)(sum[b] / (double)count[b]) : 0.0f;
    *neg = mean[0], *pos = mean[1];
    for (size_t i = 0; i < n; i++) {
        float m = g[i] + error[i];
        int b = m >= 0.0f;
        uint8_t mask = (uint8_t)(1u << (i % 8));
        if (b)
            bits[i / 8] |= mask;
        else
            bits[i / 8] &= (uint8_t)~mask;
        error[i] = m - mean[b];
    }
}
