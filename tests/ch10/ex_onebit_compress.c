/* Tests of exercise 10.1, onebit_compress: cases worked by hand, each with one best code; what
 * every best code satisfies, on random vectors; and error feedback losing nothing. That a code
 * is the best there is, on random vectors and others, is among the hidden tests. */
#include <math.h>

#include "ch10.h"
#include "ch10/onebit.h"
#include "helpers.h"
#include "rng.h"

/* One hand-worked case: g and error in, and the value each entry is sent as in the one best
 * code (the square errors of the best two splits are in the comment of each). Which of the
 * two values is hi and which lo is yours to choose. */
typedef struct Case {
    const char *what;
    size_t n;
    float g[16], error[16];
    float D[16];
} Case;

static void check_case(const Case *k)
{
    float error[16], M[16];
    uint8_t bits[3] = {0, 0, 0xab};
    float hi = NAN, lo = NAN;
    memcpy(error, k->error, sizeof error);
    for (size_t i = 0; i < k->n; i++)
        M[i] = k->g[i] + k->error[i];
    onebit_compress(k->g, error, k->n, bits, &hi, &lo);
    cr_assert(bits[2] == 0xab, "%s (n = %zu): a byte past the (n + 7) / 8 of the bits was written",
              k->what, k->n);
    double best = 0;
    for (size_t i = 0; i < k->n; i++)
        best += ((double)M[i] - k->D[i]) * ((double)M[i] - k->D[i]);
    for (size_t i = 0; i < k->n; i++) {
        float D = onebit_decoded(bits, hi, lo, i);
        cr_assert(D == k->D[i],
                  "%s (n = %zu): M[%zu] = %g is sent as %g (hi %g, lo %g), expected %g: the "
                  "best code leaves a squared error of %g, this one %g",
                  k->what, k->n, i, (double)M[i], (double)D, (double)hi, (double)lo,
                  (double)k->D[i], best, onebit_square_error(M, k->n, bits, hi, lo));
    }
    char why[240];
    cr_assert(!onebit_satisfies(M, k->n, bits, hi, lo, error, why, sizeof why), "%s (n = %zu): %s",
              k->what, k->n, why);
}

Test(ex_onebit_compress, hand_worked_cases)
{
    const Case cases[] = {
        /* {1, 2, 3} and {6}: 2; {1, 2} and {3, 6}: 5. */
        {"all positive", 4, {1, 2, 3, 6}, {0}, {2, 2, 2, 6}},
        /* Each its own value: 0. */
        {"all negative", 2, {-1, -3}, {0}, {-1, -3}},
        /* M = {-6, -1, 0, 1, 2}: {-6} and the rest, 5; split at zero, {-6, -1} and {0, 1, 2},
         * 14.5. */
        {"one far entry, with an error carried in",
         5,
         {-5, -1, 0.5f, 1, 2},
         {-1, 0, -0.5f, 0, 0},
         {-6, 0.5f, 0.5f, 0.5f, 0.5f}},
        /* One value, 0; the other is used by none, so 0 too. */
        {"zeros", 3, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
        /* M = {0, -2}: each its own value. */
        {"a gradient that its error cancels", 2, {1, -2}, {-1, 0}, {0, -2}},
        /* {9, 12, 12} and the rest: 45.5; the next best, 70.2; split at zero, 130.2. */
        {"11 entries, a partial last byte",
         11,
         {9, 12, 12, -2, -1, 2, -1, 4, -1, 4, 1},
         {0},
         {11, 11, 11, 0.75f, 0.75f, 0.75f, 0.75f, 0.75f, 0.75f, 0.75f, 0.75f}},
        /* {9, 9, 9, 9, 12, 12} and the rest: 76; the next best, 79.1; split at zero, 145.9. */
        {"16 entries, two whole bytes",
         16,
         {9, 12, -3, -1, 4, -2, 9, -1, -2, 1, -3, 9, 2, 9, 12, -5},
         {0},
         {10, 10, -1, -1, -1, -1, 10, -1, -1, -1, -1, 10, -1, 10, 10, -1}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        check_case(&cases[k]);
    /* n = 0: no byte written, both values 0. */
    uint8_t none = 0xab;
    float hi = NAN, lo = NAN, g = 1, e = 2;
    onebit_compress(&g, &e, 0, &none, &hi, &lo);
    cr_assert(none == 0xab && hi == 0 && lo == 0 && e == 2,
              "n = 0: wrote byte 0x%02x (it held 0xab), hi %g, lo %g, error %g: expected "
              "nothing written, hi = lo = 0",
              none, hi, lo, e);
}

/* On random vectors, what every best code satisfies (onebit_satisfies in ch10/onebit.h):
 * each value the mean of its entries, each entry nearer its own value, the error exactly
 * M[i] - D[i], the unused bits 0. */
Test(ex_onebit_compress, what_every_best_code_satisfies)
{
    const size_t sizes[] = {1, 7, 8, 9, 63, 64, 65, 1000, 4097};
    Rng r;
    rng_seed(&r, 10, 1);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int round = 0; round < 4; round++) {
            size_t n = sizes[s], nb = (n + 7) / 8;
            float *g = xcalloc(n, sizeof *g), *e = xcalloc(n, sizeof *e), *M = xcalloc(n, 4);
            uint8_t *bits = xcalloc(nb, 1); /* zeroed: a buffer of garbage is a hidden case */
            float hi = NAN, lo = NAN;
            onebit_random(&r, g, e, n);
            for (size_t i = 0; i < n; i++)
                M[i] = g[i] + e[i];
            onebit_compress(g, e, n, bits, &hi, &lo);
            char why[240];
            cr_assert(!onebit_satisfies(M, n, bits, hi, lo, e, why, sizeof why),
                      "random vector, n = %zu, round %d: %s", n, round, why);
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
        float hi = 0, lo = 0;
        onebit_compress(g, e, N, bits, &hi, &lo);
        for (size_t i = 0; i < N; i++) {
            double d = onebit_decoded(bits, hi, lo, i);
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
