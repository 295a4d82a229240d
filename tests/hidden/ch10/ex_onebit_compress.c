/* Hidden tests of exercise 10.1, onebit_compress, against the book's compressor: the bits
 * exactly, the two values within 4 units in the last place of their side's mean magnitude,
 * the error exactly what the exercise's own values leave of M; -0 and subnormals, values near
 * float's largest, bits over a buffer of garbage, a long vector, random vectors (not in the
 * students' handout). */
#include <math.h>

#include "ch10.h"
#include "onebit_reference.h"
#include "rng.h"
#include "helpers.h"

/* Whether the exercise's values (pos, neg) and error e agree with the reference's (pos_ref,
 * neg_ref) on M = g + error0 and the bits: each value within 4 units in the last place of its
 * side's mean magnitude, and e[i] exactly M[i] - D[i] with the exercise's own values. NULL, or
 * what is wrong, in why. */
static const char *onebit_agrees(const float *g, const float *error0, size_t n,
                                 const uint8_t *bits, float pos, float neg, float pos_ref,
                                 float neg_ref, const float *e, char *why, size_t len)
{
    double mag[2] = {0, 0}, cnt[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        float M = g[i] + error0[i];
        int b = M >= 0.0f;
        mag[b] += fabs((double)M), cnt[b] += 1;
    }
    const float got[2] = {neg, pos}, want[2] = {neg_ref, pos_ref};
    for (int b = 0; b < 2; b++) {
        double a = cnt[b] ? mag[b] / cnt[b] : 0, tol = 4 * ldexp(1.0, ilogb(a > 0 ? a : 1) - 23);
        if (!(fabs((double)got[b] - want[b]) <= (cnt[b] ? tol : 0)))
            return snprintf(why, len, "%s %.9g, expected %.9g (within %.3g, 4 units in the last "
                            "place of that side's mean magnitude)", b ? "pos" : "neg", got[b],
                            want[b], cnt[b] ? tol : 0),
                   why;
    }
    for (size_t i = 0; i < n; i++) {
        float M = g[i] + error0[i], D = bits[i / 8] >> (i % 8) & 1 ? pos : neg;
        if (memcmp(&e[i], &(float){M - D}, 4) != 0)
            return snprintf(why, len, "error[%zu] is %.9g, expected M - D = %.9g - %.9g = %.9g",
                            i, e[i], M, D, M - D),
                   why;
    }
    return NULL;
}

/* onebit_compress and the reference on g and error (n entries), the bits buffer first filled
 * with `fill`: the bits exactly, the values and the error as onebit_agrees says. */
static void against_reference(const char *what, const float *g, const float *error, size_t n,
                              uint8_t fill)
{
    size_t nb = (n + 7) / 8;
    float *e = xcalloc(n + 1, sizeof *e), *e_ref = xcalloc(n + 1, sizeof *e_ref);
    uint8_t *bits = xcalloc(nb + 1, 1), *bits_ref = xcalloc(nb + 1, 1);
    memcpy(e, error, n * sizeof *e);
    memcpy(e_ref, error, n * sizeof *e);
    memset(bits, fill, nb + 1);
    float pos = NAN, neg = NAN, pos_ref, neg_ref;
    onebit_compress(g, e, n, bits, &pos, &neg);
    onebit_reference(g, e_ref, n, bits_ref, &pos_ref, &neg_ref);
    for (size_t b = 0; b < nb; b++)
        cr_assert(bits[b] == bits_ref[b],
                  "%s (n = %zu, the buffer filled with 0x%02x before): "
                  "byte %zu of the bits is 0x%02x, expected 0x%02x",
                  what, n, fill, b, bits[b], bits_ref[b]);
    char why[240];
    cr_assert(!onebit_agrees(g, error, n, bits, pos, neg, pos_ref, neg_ref, e, why, sizeof why),
              "%s (n = %zu): %s", what, n, why);
    free(e), free(e_ref), free(bits), free(bits_ref);
}

Test(hidden_onebit_compress, negative_zero_and_subnormals)
{
    const float g[] = {-0.0f, 0x1p-149f, -0x1p-149f,        0x1.8p-130f, -0x1p-126f,
                       -0.0f, 0x1p-140f, -0x1.fffffcp-127f, 0.0f,        -0x1p-148f};
    const float e[] = {-0.0f, 0.0f,       0.0f, -0x1p-131f, 0x1p-127f,
                       0.0f,  -0x1p-140f, 0.0f, -0.0f,      0x1p-149f};
    size_t n = sizeof g / sizeof *g;
    against_reference("-0, +0 and subnormals", g, e, n, 0);
    /* -0 alone: M = -0, which is >= 0. */
    float z = -0.0f, ze = -0.0f, pos = NAN, neg = NAN;
    uint8_t bits = 0;
    onebit_compress(&z, &ze, 1, &bits, &pos, &neg);
    cr_assert(bits == 1 && pos == 0 && neg == 0,
              "M = -0: bit 0x%02x, pos %g, neg %g; -0 >= 0, "
              "so its bit is 1, pos 0 and neg 0 (none)",
              bits, pos, neg);
}

Test(hidden_onebit_compress, huge_values_means_in_double)
{
    const float g[] = {3e38f, 3e38f, -3e38f, 3e38f, -3e38f, -3.4e38f, 1.0f, -1.0f, 2e38f};
    const float e[] = {0, 0, 0, 0, 0, 0, 0, 0, 1e38f};
    size_t n = sizeof g / sizeof *g;
    against_reference("values near float's largest", g, e, n, 0);
    float err[9], pos, neg;
    uint8_t bits[2] = {0};
    memcpy(err, e, sizeof err);
    onebit_compress(g, err, n, bits, &pos, &neg);
    cr_assert(isfinite(pos) && isfinite(neg),
              "values of 3e38: pos %g and neg %g: sums of "
              "floats this large overflow in float; in double they do not",
              pos, neg);
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
    float *e_ref = xcalloc(n, sizeof *e_ref), *e0 = xcalloc(n, sizeof *e0);
    uint8_t *bits = xcalloc((n + 7) / 8, 1), *bits_ref = xcalloc((n + 7) / 8, 1);
    for (int t = 0; t < 3; t++) {
        for (size_t i = 0; i < n; i++)
            g[i] = onebit_value(3, i, t) * (t + 1);
        float pos = NAN, neg = NAN, pos_ref, neg_ref;
        memcpy(e0, e, n * sizeof *e);
        onebit_compress(g, e, n, bits, &pos, &neg);
        memcpy(e_ref, e0, n * sizeof *e);
        onebit_reference(g, e_ref, n, bits_ref, &pos_ref, &neg_ref);
        cr_assert(memcmp(bits, bits_ref, (n + 7) / 8) == 0,
                  "n = %zu, step %d: the bits differ from the reference's", n, t);
        char why[240];
        cr_assert(!onebit_agrees(g, e0, n, bits, pos, neg, pos_ref, neg_ref, e, why, sizeof why),
                  "n = %zu, step %d: %s", n, t, why);
    }
    free(e0);
    free(g), free(e), free(e_ref), free(bits), free(bits_ref);
}

Test(hidden_onebit_compress, the_reference_on_random_vectors)
{
    const size_t sizes[] = {1, 7, 8, 9, 63, 64, 65, 1000, 4097};
    Rng r;
    rng_seed(&r, 10, 1);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int round = 0; round < 4; round++) {
            size_t n = sizes[s];
            float *g = xcalloc(n, sizeof *g), *e = xcalloc(n, sizeof *e);
            onebit_random(&r, g, e, n);
            against_reference("random vector", g, e, n, 0);
            free(g), free(e);
        }
}
