/* The data of the tests of chapter 10's exercises, public and hidden, and what a bit decodes
 * to. The book's own compressor, which the hidden tests compare 10.1 with and which stands in
 * for onebit_compress when 10.2 is graded, is tests/hidden/ch10/onebit_reference.h: no public
 * test computes an answer. */
#ifndef DPS_TEST_ONEBIT_H
#define DPS_TEST_ONEBIT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rng.h"

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

/* g and error of n entries at random: both signs, magnitudes over several binades. */
static inline void onebit_random(Rng *r, float *g, float *error, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        g[i] = (rng_uniform(r) * 2 - 1) * (rng_below(r, 4) ? 1.0f : 1e-3f);
        error[i] = rng_below(r, 3) ? rng_normal(r) * 0.5f : 0.0f;
    }
}

#endif
