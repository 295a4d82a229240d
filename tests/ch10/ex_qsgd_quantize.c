/* Tests of exercise 10.3, qsgd_quantize: cases worked by hand, the levels a quantizer may
 * choose, and the average over a sweep of the noise, which must be the value. The levels
 * compared one by one with a reference are among the hidden tests. */
#include <math.h>

#include "ch10.h"
#include "helpers.h"
#include "rng.h"

enum { SWEEP = 4096 };

/* One call on a case worked by hand, all of whose entries take the same noise. */
static void expect(const char *what, const float *v, size_t n, int s, uint32_t noise,
                   const int8_t *want, float want_scale)
{
    uint32_t z[8];
    int8_t q[9];
    for (size_t i = 0; i < n; i++)
        z[i] = noise;
    memset(q, 0x55, sizeof q);
    float scale = NAN;
    qsgd_quantize(v, z, n, s, q, &scale);
    cr_assert(scale == want_scale, "%s: scale %.9g, expected %.9g", what, scale, want_scale);
    for (size_t i = 0; i < n; i++)
        cr_assert(q[i] == want[i], "%s, noise %u: level %d at %zu, expected %d", what, noise,
                  q[i], i, want[i]);
    cr_assert(q[n] == 0x55, "%s: wrote q[%zu], past the last of %zu entries", what, n, n);
}

Test(ex_qsgd_quantize, hand_worked_cases)
{
    /* A vector whose levels are whole: no noise moves them. */
    float exact[] = {3, -4};
    expect("3, -4 with 5 levels", exact, 2, 5, 0, (int8_t[]){3, -4}, 5);
    expect("3, -4 with 5 levels", exact, 2, 5, UINT32_MAX, (int8_t[]){3, -4}, 5);
    float one[] = {-2};
    expect("-2 with 3 levels", one, 1, 3, 12345, (int8_t[]){-3}, 2);
    /* Four ones, norm 2, one level: a = 1/2 for each, the upper level (1) half the time,
     * for noise below 2^31. */
    float half[] = {1, 1, -1, 1};
    expect("halves", half, 4, 1, 0, (int8_t[]){1, 1, -1, 1}, 2);
    expect("halves", half, 4, 1, 0x7fffffffu, (int8_t[]){1, 1, -1, 1}, 2);
    expect("halves", half, 4, 1, 0x80000000u, (int8_t[]){0, 0, 0, 0}, 2);
    /* Zeros: the norm is 0 and so is every level. */
    float zero[] = {0, -0.0f, 0};
    expect("zeros", zero, 3, 4, 0, (int8_t[]){0, 0, 0}, 0);
    expect("nothing", zero, 0, 4, 0, (int8_t[]){0}, 0);
}

/* A random vector of n entries, with some zeros and a spread of sizes. */
static void random_vector(Rng *g, float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t k = rng_below(g, 10);
        v[i] = k == 0 ? 0.0f : (float)(rng_normal(g) * (k < 5 ? 1.0 : 1e-3));
    }
}

/* For random vectors and levels: the scale is the norm, and each level has v's sign and one
 * of the two whole numbers nearest a. */
Test(ex_qsgd_quantize, levels_are_the_nearest_two_with_the_sign)
{
    Rng g;
    rng_seed(&g, 31, 0);
    const int levels[] = {1, 2, 7, 127};
    for (int trial = 0; trial < 400; trial++) {
        size_t n = 1 + trial % 60;
        int s = levels[trial % 4];
        float v[60], scale = NAN;
        uint32_t z[60];
        int8_t q[60];
        random_vector(&g, v, n);
        for (size_t i = 0; i < n; i++)
            z[i] = (uint32_t)(rng_next(&g) >> 32);
        qsgd_quantize(v, z, n, s, q, &scale);
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += (double)v[i] * v[i];
        double norm = sqrt(sum);
        cr_assert(scale == (float)norm, "%zu entries: scale %.9g, the norm is %.9g", n, scale,
                  norm);
        for (size_t i = 0; i < n; i++) {
            double a = norm == 0 ? 0 : fabs((double)v[i]) / norm * s;
            int mag = q[i] < 0 ? -q[i] : q[i];
            cr_assert(mag == (int)floor(a) || mag == (int)floor(a) + 1,
                      "s = %d: entry %zu (%g, a = %.6f) has level %d", s, i, v[i], a, q[i]);
            cr_assert(q[i] == 0 || (q[i] < 0) == (v[i] < 0),
                      "s = %d: entry %zu is %g but its level is %d", s, i, v[i], q[i]);
        }
    }
}

/* The whole range of the noise, in SWEEP even steps: the decoded values' mean is each
 * entry's value to within one step of a level's share (norm / s / SWEEP). */
Test(ex_qsgd_quantize, right_on_average_over_the_noise)
{
    Rng g;
    rng_seed(&g, 47, 0);
    const int levels[] = {1, 3, 16, 127};
    for (int trial = 0; trial < 12; trial++) {
        enum { N = 24 };
        float v[N], scale = NAN;
        uint32_t z[N];
        int8_t q[N];
        double mean[N] = {0};
        int s = levels[trial % 4];
        random_vector(&g, v, N);
        for (int k = 0; k < SWEEP; k++) {
            for (int i = 0; i < N; i++)
                z[i] = (uint32_t)k << 20;
            qsgd_quantize(v, z, N, s, q, &scale);
            for (int i = 0; i < N; i++)
                mean[i] += (double)scale * q[i] / s / SWEEP;
        }
        for (int i = 0; i < N; i++)
            cr_assert(fabs(mean[i] - v[i]) <= 1.001 * scale / s / SWEEP + 1e-12,
                      "s = %d: entry %d is %.9g, its levels average %.9g over the noise", s, i,
                      v[i], mean[i]);
    }
}
