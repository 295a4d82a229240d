/* Exercise 10.1, reference solution. */
#include "ch10.h"

void onebit_compress(const float *g, float *error, size_t n, uint8_t *bits, float *pos,
                     float *neg)
{
    /* The sums and counts of each side, in double, in the order of i. */
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
    /* Each byte written whole: the high bits of a last, partial byte stay 0. */
    for (size_t at = 0; at < n; at += 8) {
        uint8_t byte = 0;
        for (size_t i = at; i < n && i < at + 8; i++) {
            float m = g[i] + error[i];
            int b = m >= 0.0f;
            byte |= (uint8_t)(b << (i - at));
            error[i] = m - mean[b];
        }
        bits[at / 8] = byte;
    }
}
