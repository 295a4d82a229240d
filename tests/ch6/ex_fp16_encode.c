/* Tests of exercise 6.2, fp16_encode: against a reference that rounds by arithmetic, not by
 * bits. The compiler's own _Float16 would be the obvious reference, but gcc 11 and clang 14
 * (Ubuntu 22.04's and Debian 12's) do not have it on x86-64 without AVX512-FP16, and a test
 * must compile wherever the exercise is graded. */
#include <math.h>

#include "ch6.h"
#include "helpers.h"

/* The half nearest to a finite or infinite float @p f, ties to even, computed in double:
 * a half's spacing in the binade of |f| is 2^(e - 10) (2^-24 below 2^-14, the subnormals),
 * so |f| / spacing is exact in double, and rint() (round to nearest, ties to even, the
 * default mode) rounds it; the count of spacings then reads off as the half's bits. A
 * result at or past 2^16 (65520 and up round there) is infinity. */
static uint16_t reference(float f)
{
    if (isnan(f))
        return 0x7e00; /* any NaN will do: check() accepts every NaN for a NaN */
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    double a = fabs((double)f);
    if (isinf(f) || a >= 65520.0)
        return sign | 0x7c00;
    int e = a < 0x1p-14 ? -14 : ilogb(a);      /* the binade's exponent (subnormals: -14) */
    double spacing = ldexp(1.0, e - 10);        /* the distance between neighbouring halves */
    double q = rint(a / spacing);               /* 0..2048 spacings, ties to even */
    if (q >= 2048) {                            /* rounded up into the next binade */
        e++;
        q /= 2;
    }
    if (a < 0x1p-14 && q < 1024)                /* a subnormal, or zero: exponent field 0 */
        return sign | (uint16_t)q;
    return sign | (uint16_t)((e + 15) << 10) | (uint16_t)(q - 1024);
}

static void check(const float *x, size_t n)
{
    uint16_t *h = xcalloc(n, sizeof *h);
    fp16_encode(x, h, n);
    for (size_t i = 0; i < n; i++) {
        uint16_t want = reference(x[i]);
        if (isnan(x[i]))
            cr_assert((h[i] & 0x7c00) == 0x7c00 && (h[i] & 0x3ff), "NaN became %04x", h[i]);
        else
            cr_assert(h[i] == want, "%a (%g): %04x, expected %04x", (double)x[i], (double)x[i],
                      h[i], want);
    }
    free(h);
}

Test(fp16_encode, special_values_and_boundaries)
{
    float x[] = {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 65519.99f, 65520.0f, -65520.0f, 1e9f,
                 INFINITY, -INFINITY, NAN, 0x1p-14f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f,
                 0x1p-26f, 0x3p-25f, 0x1.004p0f, 0x1.006p0f, 0x1.002p0f, 0x1.ffep-15f,
                 0x1.ffcp-15f, 1e-8f, -1e-30f, 0x1.0p-149f, 3.14159265f, 0.1f};
    check(x, sizeof x / sizeof x[0]);
}

Test(fp16_encode, a_spread_of_every_exponent)
{
    size_t n = 1 << 16;
    float *x = xcalloc(n, sizeof *x);
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)(i * 65521u * 1009u) ^ (uint32_t)(i << 16);
        memcpy(&x[i], &u, sizeof u);
    }
    check(x, n);
    for (size_t i = 0; i < n; i++) { /* every half-way point and its neighbours near 1 */
        uint32_t u = 0x3f800000u + (uint32_t)i * 0x100u + (i % 3 == 0 ? 0x1000u : 0);
        u += (uint32_t)(i % 3) - 1;
        memcpy(&x[i], &u, sizeof u);
    }
    check(x, n);
    free(x);
}
