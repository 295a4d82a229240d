/* The sweep of the tests of exercise 10.3, public and hidden: qsgd_quantize called once for
 * each of `steps` even steps of the noise, every entry's noise at the middle of the step, and
 * each entry's decoded value norm * q[i] / s summed over the sweep into its mean and its
 * variance (a threshold on the noise, at any place, gives a mean and a variance within a step
 * of the noise's true ones). Every call is checked on the way: the scale (float)norm, every
 * level in [-s, s], nothing written past q[n - 1]. What the mean and the variance must be is
 * each test's to say. */
#ifndef DPS_TEST_QSGD_H
#define DPS_TEST_QSGD_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch10.h"

/* The norm of v, as the header computes it. */
static inline double qsgd_norm(const float *v, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)v[i] * v[i];
    return sqrt(sum);
}

/* The sweep (steps a power of two, at most 2^20) into mean[0..n) and var[0..n). NULL, or what
 * is wrong, in why. */
static inline const char *qsgd_sweep(const float *v, size_t n, int s, unsigned steps,
                                     double *mean, double *var, char *why, size_t len)
{
    double norm = qsgd_norm(v, n), *sq = xcalloc(n + 1, sizeof *sq);
    uint32_t *z = xcalloc(n + 1, sizeof *z);
    int8_t *q = xcalloc(n + 1, sizeof *q);
    const char *bad = NULL;
    for (size_t i = 0; i < n; i++)
        mean[i] = 0;
    for (unsigned k = 0; k < steps && !bad; k++) {
        uint32_t noise = (uint32_t)(((uint64_t)(2 * k + 1) << 32) / (2 * (uint64_t)steps));
        for (size_t i = 0; i < n; i++)
            z[i] = noise;
        memset(q, 0x5a, n + 1);
        float scale = NAN;
        qsgd_quantize(v, z, n, s, q, &scale);
        if (memcmp(&scale, &(float){(float)norm}, sizeof scale) != 0)
            bad = (snprintf(why, len, "s = %d, %zu entries: scale %.9g, the norm is %.9g", s, n,
                            (double)scale, norm), why);
        else if (q[n] != 0x5a)
            bad = (snprintf(why, len, "s = %d: wrote q[%zu], past the last of %zu entries", s,
                            n, n), why);
        for (size_t i = 0; i < n && !bad; i++) {
            if (q[i] < -s || q[i] > s)
                bad = (snprintf(why, len, "s = %d, noise %u: entry %zu (%.9g) has level %d, "
                                "outside [-s, s]", s, noise, i, (double)v[i], q[i]), why);
            double d = norm * q[i] / s;
            mean[i] += d / steps, sq[i] += d * d / steps;
        }
    }
    for (size_t i = 0; i < n; i++)
        var[i] = fmax(0, sq[i] - mean[i] * mean[i]);
    free(sq), free(z), free(q);
    return bad;
}

/* Whether a mean is the value v to within a step of the noise: a level's width (norm / s) over
 * the sweep's steps. */
static inline int qsgd_mean_near(double mean, float v, double width, unsigned steps)
{
    return fabs(mean - v) <= 1.001 * width / steps + 1e-300;
}

#endif
