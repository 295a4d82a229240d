/* Hidden tests of exercise 10.3, qsgd_quantize: every level against a reference written
 * here (not in the students' handout), the noise on either side of each boundary, and the
 * ends of float's range. */
#include <math.h>

#include "ch10.h"
#include "helpers.h"
#include "rng.h"

/* The reference: the level of entry i, the upper one below the probability's share of the
 * noise. */
static int8_t level_of(const float *v, size_t i, double norm, int s, uint32_t noise)
{
    if (norm == 0 || v[i] == 0)
        return 0;
    double a = fabs((double)v[i]) / norm * s, low = floor(a);
    int up = (double)noise < (a - low) * 4294967296.0;
    return (int8_t)((v[i] < 0 ? -1 : 1) * ((int)low + up));
}

static double norm_of(const float *v, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)v[i] * v[i];
    return sqrt(sum);
}

/* Quantize and compare every level and the scale with the reference; q past n untouched. */
static void compare(const char *what, const float *v, const uint32_t *z, size_t n, int s)
{
    static int8_t q[100001];
    memset(q, 0x5a, n + 1);
    float scale = NAN;
    qsgd_quantize(v, z, n, s, q, &scale);
    double norm = norm_of(v, n);
    cr_assert(scale == (float)norm, "%s: scale %.9g, the norm is %.9g", what, scale, norm);
    for (size_t i = 0; i < n; i++) {
        int8_t want = level_of(v, i, norm, s, z[i]);
        cr_assert(q[i] == want, "%s, s = %d: entry %zu (%.9g, noise %u) has level %d, expected "
                  "%d", what, s, i, v[i], z[i], q[i], want);
    }
    cr_assert(q[n] == 0x5a, "%s: wrote q[%zu], past the last of %zu entries", what, n, n);
}

/* Random vectors and random noise, every s from 1 to 127 in turn. */
Test(hidden_qsgd_quantize, every_level_against_the_reference)
{
    Rng g;
    rng_seed(&g, 101, 0);
    static float v[100000];
    static uint32_t z[100000];
    for (int s = 1; s <= 127; s++) {
        size_t n = s == 127 ? 100000 : 1 + (size_t)(s * 7) % 300;
        for (size_t i = 0; i < n; i++) {
            v[i] = rng_normal(&g) * (i % 3 ? 1.0f : 1e-4f);
            z[i] = (uint32_t)(rng_next(&g) >> 32);
        }
        compare("random", v, z, n, s);
    }
}

/* The noise at the boundary and one below: for two ones, a = s / sqrt(2), whose share of
 * 2^32 is not whole; and for the entries of random vectors. */
Test(hidden_qsgd_quantize, the_noise_on_either_side_of_the_boundary)
{
    Rng g;
    rng_seed(&g, 7, 0);
    float v[40];
    uint32_t z[40];
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 2 + (size_t)trial % 38;
        int s = 1 + trial % 127;
        for (size_t i = 0; i < n; i++)
            v[i] = trial < 20 ? 1.0f : rng_normal(&g);
        double norm = norm_of(v, n);
        for (int side = 0; side < 2; side++) {
            for (size_t i = 0; i < n; i++) {
                double a = fabs((double)v[i]) / norm * s, edge = (a - floor(a)) * 4294967296.0;
                double at = ceil(edge) - side; /* the first noise that rounds down, or the last up */
                z[i] = at < 0 ? 0 : at > 4294967295.0 ? UINT32_MAX : (uint32_t)at;
            }
            compare("at the boundary", v, z, n, s);
        }
    }
}

/* Squares beyond float's range (summed in double they are fine), subnormals, a lone entry
 * at the top level, s = 1, and signed zeros. */
Test(hidden_qsgd_quantize, the_ends_of_the_range)
{
    uint32_t z[4] = {0, 1u << 31, UINT32_MAX, 12345};
    float big[] = {3e38f, -2e38f, 1e38f, 0};
    for (int s = 1; s <= 127; s += 63)
        compare("near float's largest", big, z, 4, s);
    float tiny[] = {1e-45f, -3e-44f, 1e-40f, 0};
    compare("subnormals", tiny, z, 4, 5);
    float lone[] = {0, -7.5f, 0, 0};
    compare("one entry", lone, z, 4, 127);
    float zeros[] = {-0.0f, 0.0f, -0.0f, 0.0f};
    compare("signed zeros", zeros, z, 4, 9);
    compare("no entries", zeros, z, 0, 9);
}
