/* The data of the tests of chapter 10's exercises, public and hidden, what a bit decodes to,
 * and what any best code of 10.1 satisfies. The book's own compressor, which the hidden tests compare 10.1 with and which stands in
 * for onebit_compress when 10.2 is graded, is tests/hidden/ch10/onebit_reference.h: no public
 * test computes an answer. */
#ifndef DPS_TEST_ONEBIT_H
#define DPS_TEST_ONEBIT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* What bit i of bits decodes to. */
static inline float onebit_decoded(const uint8_t *bits, float hi, float lo, size_t i)
{
    return bits[i / 8] >> (i % 8) & 1 ? hi : lo;
}

/* The squared error a code leaves of M[0..n): the sum of (M[i] - D[i])^2, in double. */
static inline double onebit_square_error(const float *M, size_t n, const uint8_t *bits, float hi,
                                         float lo)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)M[i] - onebit_decoded(bits, hi, lo, i);
        s += d * d;
    }
    return s;
}

/* What rounding the two values to float may add to the squared error of M[0..n): four units
 * in the last place of M's largest magnitude (or float's least), squared, an entry. */
static inline double onebit_rounding(const float *M, size_t n)
{
    double top = 0;
    for (size_t i = 0; i < n; i++)
        top = fmax(top, fabs((double)M[i]));
    double ulp = fmax(ldexp(top, -23), 0x1p-149);
    return 16 * ulp * ulp * (double)n;
}

/* What every best code of M[0..n) satisfies, whatever the order of its sums, checked on one
 * code (bits, hi, lo) and the error e it left: the unused high bits 0, e[i] exactly M[i] - D[i]
 * in float, a value no bit uses 0, each value the mean of the entries it stands for (their M
 * less it adds up to 0, to the rounding of a float), and each entry no farther from its own
 * value than from the other. These hold at the best code, and elsewhere too: that the code is
 * the best is among the hidden tests. NULL, or what is wrong, in why. */
static inline const char *onebit_satisfies(const float *M, size_t n, const uint8_t *bits,
                                           float hi, float lo, const float *e, char *why,
                                           size_t len)
{
    for (size_t i = n; i < (n + 7) / 8 * 8; i++)
        if (bits[i / 8] >> (i % 8) & 1)
            return snprintf(why, len, "bit %zu, past the n, is 1 (the unused bits are 0)", i), why;
    double off[2] = {0, 0}, mag[2] = {0, 0};
    size_t count[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        int b = bits[i / 8] >> (i % 8) & 1;
        float D = b ? hi : lo, want = M[i] - D;
        if (memcmp(&e[i], &want, sizeof want) != 0)
            return snprintf(why, len, "error[%zu] is %.9g, expected M - D = %.9g - %.9g = %.9g",
                            i, (double)e[i], (double)M[i], (double)D, (double)want),
                   why;
        off[b] += (double)M[i] - D, mag[b] += fabs((double)M[i]), count[b]++;
    }
    const float value[2] = {lo, hi};
    for (int b = 0; b < 2; b++) {
        const char *name = b ? "hi" : "lo";
        if (!count[b] && value[b] != 0)
            return snprintf(why, len, "no bit is %d, so %s is used by none and must be 0, not "
                            "%.9g", b, name, (double)value[b]), why;
        double tol = 1e-6 * mag[b] + 0x1p-149 * (double)count[b];
        if (count[b] && !(fabs(off[b]) <= tol))
            return snprintf(why, len, "%s = %.9g is not the mean of the %zu entries whose bit is "
                            "%d: their M less it adds up to %.9g, not 0", name, (double)value[b],
                            count[b], b, off[b]), why;
    }
    if (count[0] && count[1]) {
        double slack = 2 * fmax(ldexp(fmax(fabs((double)hi), fabs((double)lo)), -23), 0x1p-149);
        for (size_t i = 0; i < n; i++) {
            int b = bits[i / 8] >> (i % 8) & 1;
            double own = fabs((double)M[i] - value[b]), other = fabs((double)M[i] - value[!b]);
            if (!(own <= other + slack))
                return snprintf(why, len, "M[%zu] = %.9g is sent as %s = %.9g, though %s = %.9g "
                                "is nearer: sent as that, it would leave less error", i,
                                (double)M[i], b ? "hi" : "lo", (double)value[b],
                                b ? "lo" : "hi", (double)value[!b]), why;
        }
    }
    return NULL;
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
