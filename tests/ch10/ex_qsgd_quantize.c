/* Tests of exercise 10.3, qsgd_quantize: cases worked by hand, the scale on random vectors,
 * and sweeps of the noise (ch10/qsgd.h), over which each entry's decoded values must average
 * its value and vary by at most a quarter of a level's width squared. That they vary no more
 * than the least an unbiased choice allows is among the hidden tests. */
#include <math.h>

#include "ch10.h"
#include "ch10/qsgd.h"
#include "helpers.h"
#include "rng.h"

enum { SWEEP = 256 };

/* A case worked by hand: over the sweep, every entry's mean is its value and its variance at
 * most var_at_most (0: no noise may move its level). */
static void expect(const char *what, const float *v, size_t n, int s, double var_at_most)
{
    double mean[8], var[8];
    char why[240];
    cr_assert(!qsgd_sweep(v, n, s, SWEEP, mean, var, why, sizeof why), "%s: %s", what, why);
    for (size_t i = 0; i < n; i++) {
        cr_assert(qsgd_mean_near(mean[i], v[i], qsgd_norm(v, n) / s, SWEEP),
                  "%s, s = %d: entry %zu is %.9g, its decoded values average %.9g over the "
                  "noise", what, s, i, (double)v[i], mean[i]);
        cr_assert(var[i] <= var_at_most * (1 + 1e-9),
                  "%s, s = %d: entry %zu (%.9g) varies by %.9g over the noise, expected at "
                  "most %.9g", what, s, i, (double)v[i], var[i], var_at_most);
    }
}

Test(ex_qsgd_quantize, hand_worked_cases)
{
    /* Levels that are whole: norm 5, 3 and -4 with 5 levels; any other choice would vary. */
    expect("3, -4 with 5 levels", (float[]){3, -4}, 2, 5, 0);
    expect("-2 with 3 levels", (float[]){-2}, 1, 3, 0);
    /* Four ones, norm 2, one level: each decodes to 0 or +-2 and must average +-1; a level
     * is 2 wide, so the variance is at most a quarter of 4. */
    expect("halves", (float[]){1, 1, -1, 1}, 4, 1, 1);
    /* Zeros: the norm is 0 and so is every level. */
    expect("zeros", (float[]){0, -0.0f, 0}, 3, 4, 0);
    expect("nothing", (float[]){0}, 0, 4, 0);
}

/* A random vector of n entries, with some zeros and a spread of sizes. */
static void random_vector(Rng *g, float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t k = rng_below(g, 10);
        v[i] = k == 0 ? 0.0f : (float)(rng_normal(g) * (k < 5 ? 1.0 : 1e-3));
    }
}

/* For random vectors, levels and noise: the scale is the norm, every level in [-s, s]. */
Test(ex_qsgd_quantize, the_scale_and_the_range_of_the_levels)
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
        double norm = qsgd_norm(v, n);
        cr_assert(scale == (float)norm, "%zu entries: scale %.9g, the norm is %.9g", n, scale,
                  norm);
        for (size_t i = 0; i < n; i++)
            cr_assert(q[i] >= -s && q[i] <= s, "s = %d: entry %zu (%g) has level %d", s, i,
                      v[i], q[i]);
    }
}

/* The whole range of the noise, in SWEEP even steps: each entry's decoded values average its
 * value to within a step and vary by at most a quarter of a level's width squared. */
Test(ex_qsgd_quantize, right_on_average_over_the_noise)
{
    Rng g;
    rng_seed(&g, 47, 0);
    const int levels[] = {1, 3, 16, 127};
    for (int trial = 0; trial < 12; trial++) {
        enum { N = 24 };
        float v[N];
        double mean[N], var[N];
        int s = levels[trial % 4];
        random_vector(&g, v, N);
        char why[240];
        cr_assert(!qsgd_sweep(v, N, s, SWEEP, mean, var, why, sizeof why), "%s", why);
        double width = qsgd_norm(v, N) / s;
        for (int i = 0; i < N; i++) {
            cr_assert(qsgd_mean_near(mean[i], v[i], width, SWEEP),
                      "s = %d: entry %d is %.9g, its decoded values average %.9g over the "
                      "noise", s, i, (double)v[i], mean[i]);
            cr_assert(var[i] <= width * width * (0.25 + 1.001 / SWEEP),
                      "s = %d: entry %d (%.9g) varies by %.9g over the noise, more than a "
                      "quarter of a level's width squared, %.9g", s, i, (double)v[i], var[i],
                      width * width / 4);
        }
    }
}
