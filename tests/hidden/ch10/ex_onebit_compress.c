/* Hidden tests of exercise 10.1, onebit_compress, against the book's compressor: the squared
 * error within a millionth of the best code's (and the rounding of the two values to float),
 * what every best code satisfies, and the bytes; three clusters of entries, where a search
 * that stops at the first split no entry wants to leave does not find the best; -0 and
 * subnormals, values near float's largest, bits over a buffer of garbage, a long vector,
 * random vectors (not in the students' handout). */
#include <math.h>

#include "ch10.h"
#include "onebit_reference.h"
#include "rng.h"
#include "helpers.h"

/* onebit_compress and the reference on g and error (n entries), the bits buffer first filled
 * with `fill`: what every best code satisfies, no byte past the (n + 7) / 8 written, and a
 * squared error no more than the reference's and a millionth, and the rounding of two
 * floats. */
static void against_reference(const char *what, const float *g, const float *error, size_t n,
                              uint8_t fill)
{
    size_t nb = (n + 7) / 8;
    float *e = xcalloc(n + 1, sizeof *e), *e_ref = xcalloc(n + 1, sizeof *e_ref);
    float *M = xcalloc(n + 1, sizeof *M);
    uint8_t *bits = xcalloc(nb + 1, 1), *bits_ref = xcalloc(nb + 1, 1);
    memcpy(e, error, n * sizeof *e);
    memcpy(e_ref, error, n * sizeof *e);
    for (size_t i = 0; i < n; i++)
        M[i] = g[i] + error[i];
    memset(bits, fill, nb + 1);
    float hi = NAN, lo = NAN, hi_ref, lo_ref;
    onebit_compress(g, e, n, bits, &hi, &lo);
    onebit_reference(g, e_ref, n, bits_ref, &hi_ref, &lo_ref);
    cr_assert(bits[nb] == fill, "%s (n = %zu): a byte past the (n + 7) / 8 of the bits was written",
              what, n);
    char why[240];
    cr_assert(!onebit_satisfies(M, n, bits, hi, lo, e, why, sizeof why), "%s (n = %zu): %s", what,
              n, why);
    double mine = onebit_square_error(M, n, bits, hi, lo);
    double best = onebit_square_error(M, n, bits_ref, hi_ref, lo_ref);
    double allowed = best * (1 + 1e-6) + onebit_rounding(M, n);
    cr_assert(mine <= allowed,
              "%s (n = %zu, the buffer filled with 0x%02x before): the code leaves a squared "
              "error of %.9g (hi %.9g, lo %.9g); the best leaves %.9g (hi %.9g, lo %.9g)",
              what, n, fill, mine, (double)hi, (double)lo, best, (double)hi_ref, (double)lo_ref);
    free(e), free(e_ref), free(M), free(bits), free(bits_ref);
}

/* Three clusters of entries, interleaved, where a search that stops at the first split no
 * entry wants to leave (Lloyd's iteration) does not find the best. 49 entries at -19, 29 at -6
 * and 32 at 13: the best code pairs the two lower clusters (a squared error of 3,079); the
 * split at the mean, {-19} against {-6, 13}, is such a stop and leaves 5,492. The same moved up
 * by 10 make the split at zero that stop. 20 at -26, 29 at -6 and 60 at 13: the best pairs
 * the upper two (4,735); the widest gap, {-26, -6} against {13}, is a stop at 7,058. */
Test(hidden_onebit_compress, three_clusters_where_a_local_search_stops_short)
{
    const struct {
        const char *what;
        float at[3];
        size_t count[3];
    } cases[] = {
        {"clusters at -19, -6 and 13", {-19, -6, 13}, {49, 29, 32}},
        {"clusters at -9, 4 and 23", {-9, 4, 23}, {49, 29, 32}},
        {"clusters at -26, -6 and 13", {-26, -6, 13}, {20, 29, 60}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        size_t n = cases[c].count[0] + cases[c].count[1] + cases[c].count[2], j = 0;
        float *g = xcalloc(n, sizeof *g), *e = xcalloc(n, sizeof *e);
        for (int k = 0; k < 3; k++) /* entry j of the list goes to 37 j mod n (n is prime */
            for (size_t m = 0; m < cases[c].count[k]; m++, j++) /* to 37: 110 and 109) */
                g[j * 37 % n] = cases[c].at[k];
        against_reference(cases[c].what, g, e, n, 0);
        free(g), free(e);
    }
}

Test(hidden_onebit_compress, negative_zero_and_subnormals)
{
    const float g[] = {-0.0f, 0x1p-149f, -0x1p-149f,        0x1.8p-130f, -0x1p-126f,
                       -0.0f, 0x1p-140f, -0x1.fffffcp-127f, 0.0f,        -0x1p-148f};
    const float e[] = {-0.0f, 0.0f,       0.0f, -0x1p-131f, 0x1p-127f,
                       0.0f,  -0x1p-140f, 0.0f, -0.0f,      0x1p-149f};
    size_t n = sizeof g / sizeof *g;
    against_reference("-0, +0 and subnormals", g, e, n, 0);
    /* -0 alone: one value, 0; the other unused, 0. */
    float z = -0.0f, ze = -0.0f, hi = NAN, lo = NAN;
    uint8_t bits = 0xfe;
    onebit_compress(&z, &ze, 1, &bits, &hi, &lo);
    cr_assert((bits == 1 || bits == 0) && hi == 0 && lo == 0,
              "M = -0 alone: bits 0x%02x, hi %g, lo %g; expected one value 0, the other unused "
              "and so 0, and the high bits 0", bits, hi, lo);
}

Test(hidden_onebit_compress, huge_values_means_in_double)
{
    const float g[] = {3e38f, 3e38f, -3e38f, 3e38f, -3e38f, -3.4e38f, 1.0f, -1.0f, 2e38f};
    const float e[] = {0, 0, 0, 0, 0, 0, 0, 0, 1e38f};
    size_t n = sizeof g / sizeof *g;
    float err[9], hi, lo;
    uint8_t bits[2] = {0};
    memcpy(err, e, sizeof err);
    onebit_compress(g, err, n, bits, &hi, &lo);
    cr_assert(isfinite(hi) && isfinite(lo),
              "values of 3e38: hi %g and lo %g: sums of "
              "floats this large overflow in float; in double they do not",
              hi, lo);
    against_reference("values near float's largest", g, e, n, 0);
}

Test(hidden_onebit_compress, one_to_seventeen_entries_over_garbage)
{
    float g[17], e[17];
    for (size_t i = 0; i < 17; i++) {
        g[i] = onebit_value(1, i, 3);
        e[i] = i % 3 ? onebit_value(2, i, 4) * 0.5f : 0.0f;
    }
    const uint8_t fills[] = {0xff, 0xa5, 0x5a, 0x80};
    for (size_t f = 0; f < sizeof fills; f++)
        for (size_t n = 1; n <= 17; n++)
            against_reference("a buffer that held garbage", g, e, n, fills[f]);
}

Test(hidden_onebit_compress, a_million_entries_and_their_error_carried)
{
    size_t n = (1u << 20) + 3;
    float *g = xcalloc(n, sizeof *g), *e = xcalloc(n, sizeof *e);
    for (int t = 0; t < 3; t++) {
        for (size_t i = 0; i < n; i++)
            g[i] = onebit_value(3, i, t) * (t + 1) + (t == 2 ? 0.75f : 0.0f);
        against_reference("a million entries", g, e, n, 0x33);
        /* The next step carries this one's error: the reference's, so each step is judged on
         * the same input. */
        uint8_t *bits = xcalloc((n + 7) / 8, 1);
        float hi, lo;
        onebit_reference(g, e, n, bits, &hi, &lo);
        free(bits);
    }
    free(g), free(e);
}

Test(hidden_onebit_compress, the_best_code_on_random_vectors)
{
    const size_t sizes[] = {1, 2, 3, 7, 8, 9, 63, 64, 65, 1000, 4097};
    Rng r;
    rng_seed(&r, 10, 2);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int round = 0; round < 6; round++) {
            size_t n = sizes[s];
            float *g = xcalloc(n, sizeof *g), *e = xcalloc(n, sizeof *e);
            onebit_random(&r, g, e, n);
            if (round >= 4) /* skewed: most entries on one side of zero */
                for (size_t i = 0; i < n; i++)
                    g[i] = round == 4 ? fabsf(g[i]) + 0.5f : g[i] * g[i] * g[i] - 0.25f;
            against_reference("random vector", g, e, n, 0);
            free(g), free(e);
        }
}
