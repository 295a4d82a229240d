/* Tests of exercise 10.1, onebit_compress: cases worked by hand, what the outputs must
 * satisfy on random vectors, and error feedback losing nothing. The comparison with the book's
 * compressor, bit for bit, is among the hidden tests. */
#include <math.h>

#include "ch10.h"
#include "ch10/onebit.h"
#include "helpers.h"
#include "rng.h"

/* One hand-worked case: g and error in, the bits, means and error expected out. */
typedef struct Case {
    const char *what;
    size_t n;
    float g[16], error[16];
    uint8_t bits[2];
    float pos, neg;
} Case;

static void check_case(const Case *k)
{
    float error[16], M[16];
    uint8_t bits[3] = {0, 0, 0xab};
    float pos = NAN, neg = NAN;
    memcpy(error, k->error, sizeof error);
    for (size_t i = 0; i < k->n; i++)
        M[i] = k->g[i] + k->error[i];
    onebit_compress(k->g, error, k->n, bits, &pos, &neg);
    for (size_t b = 0; b < (k->n + 7) / 8; b++)
        cr_assert(bits[b] == k->bits[b],
                  "%s (n = %zu): byte %zu of the bits is 0x%02x, "
                  "expected 0x%02x",
                  k->what, k->n, b, bits[b], k->bits[b]);
    cr_assert(bits[2] == 0xab,
              "%s (n = %zu): a byte past the (n + 7) / 8 of the bits was "
              "written",
              k->what, k->n);
    cr_assert(pos == k->pos && neg == k->neg,
              "%s (n = %zu): pos %.9g and neg %.9g, expected %.9g and %.9g",
              k->what, k->n, pos, neg, k->pos, k->neg);
    for (size_t i = 0; i < k->n; i++) {
        float want = M[i] - (k->bits[i / 8] >> (i % 8) & 1 ? k->pos : k->neg);
        cr_assert(error[i] == want, "%s (n = %zu): error[%zu] is %g, expected %g (M = %g)",
                  k->what, k->n, i, error[i], want, M[i]);
    }
}

Test(ex_onebit_compress, hand_worked_cases)
{
    const Case cases[] = {
        {"all positive", 4, {1, 2, 3, 6}, {0}, {0x0f}, 3, 0},
        {"all negative", 2, {-1, -3}, {0}, {0x00}, 0, -2},
        {"mixed, with an error carried in",
         5,
         {1, -1, 0.5f, -2, 4},
         {0.5f, 0, 0, 0, 0},
         {0x15},
         2,
         -1.5f},
        {"zeros (bit 1)", 3, {0, 0, 0}, {0, 0, 0}, {0x07}, 0, 0},
        {"a gradient that its error cancels", 2, {1, -2}, {-1, 0}, {0x01}, 0, -2},
        {"11 entries, a partial last byte",
         11,
         {3, -1, 3, -1, 3, -1, 3, -1, 5, -5, 1},
         {0},
         {0x55, 0x05},
         3,
         -1.8f},
        {"16 entries, two whole bytes",
         16,
         {-1, -1, -1, -1, -1, -1, -1, 7, 2, 2, 2, 2, 2, 2, 2, -8},
         {0},
         {0x80, 0x7f},
         2.625f,
         -1.875f},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        check_case(&cases[k]);
    /* n = 0: no byte written, both means 0. */
    uint8_t none = 0xab;
    float pos = NAN, neg = NAN, g = 1, e = 2;
    onebit_compress(&g, &e, 0, &none, &pos, &neg);
    cr_assert(none == 0xab && pos == 0 && neg == 0 && e == 2,
              "n = 0: wrote byte 0x%02x (it held 0xab), pos %g, neg %g, error %g: expected "
              "nothing written, pos = neg = 0",
              none, pos, neg, e);
}

/* On random vectors, what the outputs must satisfy, whatever the order of the sums: bit i is
 * the sign of M[i] = g[i] + error[i] (1 for +0 and -0), the unused high bits are 0, error[i]
 * becomes M[i] less what bit i decodes to, exactly, and each mean is the mean: the new errors
 * of each side add up to 0, to the rounding of a sum of floats. The comparison with the book's
 * compressor, bit for bit, is among the hidden tests. */
Test(ex_onebit_compress, what_the_bits_means_and_errors_must_satisfy)
{
    const size_t sizes[] = {1, 7, 8, 9, 63, 64, 65, 1000, 4097};
    Rng r;
    rng_seed(&r, 10, 1);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int round = 0; round < 4; round++) {
            size_t n = sizes[s], nb = (n + 7) / 8;
            float *g = xcalloc(n, sizeof *g), *e = xcalloc(n, sizeof *e), *M = xcalloc(n, 4);
            uint8_t *bits = xcalloc(nb, 1); /* zeroed: a buffer of garbage is a hidden case */
            float pos = NAN, neg = NAN;
            onebit_random(&r, g, e, n);
            for (size_t i = 0; i < n; i++)
                M[i] = g[i] + e[i];
            onebit_compress(g, e, n, bits, &pos, &neg);
            double side[2] = {0, 0}, size[2] = {0, 0};
            for (size_t i = 0; i < nb * 8; i++) {
                int bit = bits[i / 8] >> (i % 8) & 1;
                if (i >= n) {
                    cr_assert(!bit, "n = %zu: bit %zu, past the n, is 1 (the unused bits are 0)",
                              n, i);
                    continue;
                }
                cr_assert(bit == !(M[i] < 0.0f), "n = %zu, round %d: bit %zu is %d for M = %.9g",
                          n, round, i, bit, (double)M[i]);
                float D = bit ? pos : neg, want = M[i] - D;
                cr_assert(memcmp(&e[i], &want, 4) == 0,
                          "n = %zu, round %d: error[%zu] is %.9g, expected M - D = %.9g - %.9g "
                          "= %.9g", n, round, i, (double)e[i], (double)M[i], (double)D,
                          (double)want);
                side[bit] += e[i], size[bit] += fabs((double)M[i]);
            }
            for (int b = 0; b <= 1; b++)
                cr_assert(fabs(side[b]) <= 1e-6 * size[b] + 1e-30,
                          "n = %zu, round %d: the new errors of the %s bits add up to %.9g, "
                          "not 0: %s (%.9g) is not the mean of their M", n, round,
                          b ? "1" : "0", side[b], b ? "pos" : "neg", (double)(b ? pos : neg));
            free(g), free(e), free(M), free(bits);
        }
}

/* Error feedback loses nothing: after T steps, for every i, the decoded values sent plus the
 * error still held equal the gradients given, to float's rounding. */
Test(ex_onebit_compress, nothing_lost_over_fifty_steps)
{
    enum { N = 1001, T = 50 };
    float *g = xcalloc(N, sizeof *g), *e = xcalloc(N, sizeof *e);
    double *given = xcalloc(N, sizeof *given), *sent = xcalloc(N, sizeof *sent);
    double *scale = xcalloc(N, sizeof *scale);
    uint8_t bits[(N + 7) / 8] = {0};
    for (int t = 0; t < T; t++) {
        for (size_t i = 0; i < N; i++)
            g[i] = onebit_value(0, i, t);
        float pos = 0, neg = 0;
        onebit_compress(g, e, N, bits, &pos, &neg);
        for (size_t i = 0; i < N; i++) {
            double d = onebit_decoded(bits, pos, neg, i);
            given[i] += g[i], sent[i] += d;
            scale[i] += fabs(g[i]) + fabs(d);
        }
    }
    for (size_t i = 0; i < N; i++)
        cr_assert(fabs(sent[i] + e[i] - given[i]) <= 1e-4 * scale[i],
                  "element %zu after %d steps: decoded %.9g plus the error %.9g is %.9g; the "
                  "gradients given add up to %.9g",
                  i, T, sent[i], (double)e[i], sent[i] + e[i], given[i]);
    free(g), free(e), free(given), free(sent), free(scale);
}
