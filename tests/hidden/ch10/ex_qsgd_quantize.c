/* Hidden tests of exercise 10.3, qsgd_quantize (not in the students' handout): over sweeps of
 * the noise (ch10/qsgd.h), each entry's decoded values average its value and vary no more
 * than the least any unbiased choice of its level allows, to within a step of the noise: the
 * two levels nearest a = s |v| / norm, the upper with probability a - floor(a), vary by
 * (norm / s)^2 p (1 - p), and any other unbiased choice by more. For every s, at the ends of
 * float's range, and on a long vector. */
#include <math.h>

#include "ch10.h"
#include "ch10/qsgd.h"
#include "helpers.h"
#include "rng.h"

/* The sweep of v, and each entry's mean and variance against the least. */
static void least(const char *what, const float *v, size_t n, int s, unsigned steps)
{
    double *mean = xcalloc(n + 1, sizeof *mean), *var = xcalloc(n + 1, sizeof *var);
    char why[240];
    cr_assert(!qsgd_sweep(v, n, s, steps, mean, var, why, sizeof why), "%s: %s", what, why);
    double norm = qsgd_norm(v, n), width = norm / s;
    for (size_t i = 0; i < n; i++) {
        cr_assert(qsgd_mean_near(mean[i], v[i], width, steps),
                  "%s, s = %d: entry %zu is %.9g, its decoded values average %.9g over the "
                  "noise", what, s, i, (double)v[i], mean[i]);
        double a = norm == 0 ? 0 : fabs((double)v[i]) / norm * s, p = a - floor(a);
        double least = width * width * p * (1 - p), slack = width * width * 1.001 / steps;
        cr_assert(var[i] <= least + slack,
                  "%s, s = %d: entry %zu (%.9g, %.6f levels) varies by %.9g over the noise; "
                  "an unbiased choice can vary by as little as %.9g", what, s, i, (double)v[i],
                  a, var[i], least);
    }
    free(mean), free(var);
}

/* Random vectors, every s from 1 to 127 in turn. */
Test(hidden_qsgd_quantize, the_least_variance_for_every_s)
{
    Rng g;
    rng_seed(&g, 101, 0);
    float v[300];
    for (int s = 1; s <= 127; s++) {
        size_t n = 1 + (size_t)(s * 7) % 300;
        for (size_t i = 0; i < n; i++)
            v[i] = rng_normal(&g) * (i % 3 ? 1.0f : 1e-4f);
        least("random", v, n, s, 64);
    }
}

/* Squares beyond float's range (summed in double they are fine), subnormals, a lone entry at
 * the top level, s = 1, and signed zeros. */
Test(hidden_qsgd_quantize, the_ends_of_the_range)
{
    float big[] = {3e38f, -2e38f, 1e38f, 0};
    for (int s = 1; s <= 127; s += 63)
        least("near float's largest", big, 4, s, 256);
    float tiny[] = {1e-45f, -3e-44f, 1e-40f, 0};
    least("subnormals", tiny, 4, 5, 256);
    float lone[] = {0, -7.5f, 0, 0};
    least("one entry", lone, 4, 127, 256);
    float zeros[] = {-0.0f, 0.0f, -0.0f, 0.0f};
    least("signed zeros", zeros, 4, 9, 256);
    least("no entries", zeros, 0, 9, 256);
}

/* 100,000 entries at 127 levels, over a coarser sweep. */
Test(hidden_qsgd_quantize, a_long_vector)
{
    Rng g;
    rng_seed(&g, 7, 0);
    size_t n = 100000;
    float *v = xcalloc(n, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = rng_normal(&g) * (i % 3 ? 1.0f : 1e-4f);
    least("100,000 entries", v, n, 127, 16);
    free(v);
}
