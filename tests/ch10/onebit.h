/* The book's own 1-bit compressor and the data of the tests of chapter 10's exercises, public
 * and hidden. The compressor is written apart from the reference solution (signs first,
 * then the means, then the bytes packed from the top bit down), and stands in for
 * onebit_compress in 10.2's tests and in the autograder's jail (tests/jail/exercises.c), so
 * that 10.2 is graded on its own. No Criterion here: the jail's host includes this file. */
#ifndef DPS_TEST_ONEBIT_H
#define DPS_TEST_ONEBIT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Exercise 10.1's contract (exercises/ch10/ch10.h), computed another way. */
static inline void onebit_reference(const float *g, float *error, size_t n, uint8_t *bits,
                                    float *pos, float *neg)
{
    unsigned char *sign = malloc(n + 1);
    float *M = malloc((n + 1) * sizeof *M);
    if (!sign || !M) {
        fprintf(stderr, "onebit_reference: out of memory\n");
        abort();
    }
    for (size_t i = 0; i < n; i++) {
        M[i] = g[i] + error[i];
        sign[i] = !(M[i] < 0.0f); /* +0 and -0 both compare equal to 0: bit 1 */
    }
    double up = 0, down = 0;
    size_t ups = 0;
    for (size_t i = 0; i < n; i++) /* each side in the order of i */
        if (sign[i])
            up += (double)M[i], ups++;
    for (size_t i = 0; i < n; i++)
        if (!sign[i])
            down += (double)M[i];
    *pos = ups ? (float)(up / (double)ups) : 0.0f;
    *neg = n - ups ? (float)(down / (double)(n - ups)) : 0.0f;
    for (size_t byte = 0; byte < (n + 7) / 8; byte++) {
        unsigned v = 0;
        for (int k = 7; k >= 0; k--) {
            size_t i = byte * 8 + (size_t)k;
            v = v << 1 | (i < n && sign[i]);
        }
        bits[byte] = (uint8_t)v;
    }
    for (size_t i = 0; i < n; i++)
        error[i] = M[i] - (sign[i] ? *pos : *neg);
    free(sign);
    free(M);
}

/* What bit i of bits decodes to. */
static inline float onebit_decoded(const uint8_t *bits, float pos, float neg, size_t i)
{
    return bits[i / 8] >> (i % 8) & 1 ? pos : neg;
}

/* Rank q's gradient element i at step t: both signs, magnitudes from 1e-3 to 4, and a bias
 * that differs by rank, so that each rank's two means differ from the others'. */
static inline float onebit_value(int q, size_t i, int t)
{
    uint64_t x = (uint64_t)(q + 1) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull +
                 (uint64_t)(t + 1) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    x *= 0xD6E8FEB86659FD93ull;
    x ^= x >> 32;
    double u = (double)(x >> 40) / (double)(1 << 24); /* [0, 1) */
    double scale = (x & 3) == 0 ? 1e-3 : (x & 3) == 1 ? 0.1 : 1.0;
    return (float)((4.0 * u - 2.0 + 0.25 * (q % 3 - 1)) * scale);
}

#endif
