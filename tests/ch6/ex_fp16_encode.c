/* Tests of exercise 6.2, fp16_encode: cases worked by hand, and what the results over every
 * noise must be (two neighbouring halves around x, averaging x). No test here computes a half
 * from a float: the comparison with a reference, on floats of every exponent, is among the
 * hidden tests. The compiler's own _Float16 would be the obvious reference, but gcc 11 and
 * clang 14 (Ubuntu 22.04's and Debian 12's) do not have it on x86-64 without AVX512-FP16, and
 * a test must compile wherever the exercise is graded (nor does any compiler round
 * stochastically). */
#include <math.h>

#include "ch6.h"
#include "helpers.h"

/* The value of half @p h (exact in double); infinity reads as 65536, the magnitude that
 * rounding up from 65504 reaches. */
static double half_value(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return h & 0x8000 ? -v : v;
}

static bool is_nan_half(uint16_t h)
{
    return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

/* Cases worked by hand: f * 65536 is given as F where it helps. */
Test(fp16_encode, hand_worked_cases)
{
    static const struct {
        float x;
        uint16_t noise, want;
    } c[] = {
        /* Halves come back exactly, whatever the noise. */
        {1.0f, 0, 0x3c00}, {1.0f, 65535, 0x3c00}, {-2.5f, 31337, 0xc100},
        {65504.0f, 0, 0x7bff}, {65504.0f, 65535, 0x7bff}, {0x1p-14f, 0, 0x0400},
        {0x1p-24f, 0, 0x0001}, {0x1.8p-20f, 65535, 0x0018}, {0x1.ff8p-15f, 0, 0x03ff},
        /* Zeros keep their sign; infinities stay infinities. */
        {0.0f, 0, 0x0000}, {0.0f, 65535, 0x0000}, {-0.0f, 0, 0x8000}, {-0.0f, 65535, 0x8000},
        {INFINITY, 0, 0x7c00}, {-INFINITY, 65535, 0xfc00},
        /* The float after 1: f = 2^-13, F = 8. Noise 0 rounds it up, as it does every value
         * that is not a half; 7 still does, 8 (= F) does not. */
        {0x1.000002p0f, 0, 0x3c01}, {0x1.000002p0f, 7, 0x3c01}, {0x1.000002p0f, 8, 0x3c00},
        {0x1.000002p0f, 65535, 0x3c00},
        /* Halfway between 1 and the next half: F = 32768. */
        {0x1.002p0f, 32767, 0x3c01}, {0x1.002p0f, 32768, 0x3c00},
        /* The float just below the next half: F = 65528, the largest F of a normal half:
         * noise 65535 rounds up only when F > 65535, which takes more dropped bits. */
        {0x1.003ffep0f, 65527, 0x3c01}, {0x1.003ffep0f, 65528, 0x3c00},
        {0x1.003ffep0f, 65535, 0x3c00},
        /* 0.1f = 1638.40002 spacings of 2^-14: F = 26216. */
        {0.1f, 0, 0x2e67}, {0.1f, 26215, 0x2e67}, {0.1f, 26216, 0x2e66}, {-0.1f, 65535, 0xae66},
        /* Rounding up carries into the next binade: 2047.5 spacings of 2^-10 below 2. */
        {0x1.ffep0f, 0, 0x4000}, {0x1.ffep0f, 40000, 0x3fff},
        /* ... and from the largest subnormal into the smallest normal half. */
        {0x1.ffcp-15f, 32767, 0x0400}, {0x1.ffcp-15f, 32768, 0x03ff},
        /* ... and from 65504 into infinity: 65519 is 65504 + 15/32 of a spacing of 32,
         * F = 30720; 65536 and above are infinity whatever the noise. */
        {65519.0f, 0, 0x7c00}, {65519.0f, 30719, 0x7c00}, {65519.0f, 30720, 0x7bff},
        {-65519.0f, 65535, 0xfbff}, {65536.0f, 65535, 0x7c00}, {-1e9f, 65535, 0xfc00},
        /* Subnormals: 2^-17 - 2^-41 has 17 bits dropped, F = 65535.5: even noise 65535
         * rounds it up. */
        {0x1.fffffep-18f, 65535, 0x0080}, {0x1.fffffep-18f, 0, 0x0080},
        {0x1.fffffcp-18f, 65535, 0x007f},
        /* Below the smallest half, 2^-24: 2^-25 is half of it (F = 32768); 1e-8 is
         * 0.1677722 of it (F = 10995.1). A negative value rounded down is -0. */
        {0x1p-25f, 32767, 0x0001}, {0x1p-25f, 32768, 0x0000}, {1e-8f, 0, 0x0001},
        {1e-8f, 10995, 0x0001}, {1e-8f, 10996, 0x0000}, {-1e-8f, 0, 0x8001},
        {-1e-8f, 65535, 0x8000},
        /* The smallest float, 2^-149: only noise 0 rounds it up. */
        {0x1p-149f, 0, 0x0001}, {0x1p-149f, 1, 0x0000}, {-0x1p-149f, 1, 0x8000},
    };
    size_t n = sizeof c / sizeof c[0];
    float x[sizeof c / sizeof c[0]];
    uint16_t noise[sizeof c / sizeof c[0]], h[sizeof c / sizeof c[0]];
    for (size_t i = 0; i < n; i++)
        x[i] = c[i].x, noise[i] = c[i].noise, h[i] = 0x5555;
    fp16_encode(x, noise, h, n);
    for (size_t i = 0; i < n; i++)
        cr_assert(h[i] == c[i].want, "%a (%.9g) with noise %u: %04x, expected %04x",
                  (double)x[i], (double)x[i], noise[i], h[i], c[i].want);
    float nan = NAN;
    uint16_t zero = 0, got = 0;
    fp16_encode(&nan, &zero, &got, 1);
    cr_assert(is_nan_half(got), "NaN became %04x, which is not a NaN", got);
}

/* Over all 65536 noises, every result is one of two neighbouring halves around x (half bit
 * patterns h and h + 1 of x's sign, the second infinity above 65504, one half when x is one,
 * and only the upper one when f * 65536 > 65535), and their mean is x to within 1/65536 of
 * their distance: the count of noises below
 * f * 65536 is ceil(f * 65536), so x rounds up with probability f, to 16 bits. Nothing here
 * works out a half from x: the two are the exercise's own results. */
Test(fp16_encode, unbiased_over_every_noise)
{
    static const float xs[] = {
        1.0f,         0x1.000002p0f, 0x1.001p0f,     0.1f,          -0.1f,        1.0f / 3,
        -2.0f / 3,    3.14159265f,   0x1.003ffep0f,  1000.3f,       -4097.7f,     12345.678f,
        65500.5f,     -65503.9f,     65519.0f,       0x1.fffffep14f, 0x1p-14f, 0x1.0004p-14f,
        0x1.ffcp-15f, 0x1.234568p-17f, 0x1.fffffep-18f, -0x1.5p-20f, 3e-7f,     1e-7f,
        6e-8f,        -5e-8f,        0x1.8p-25f,     1e-8f,         -1e-9f,       1e-10f,
        0x1.abcdefp-30f, 1e-12f,     -7e-13f,        0x1p-40f,      1e-30f,       0x1p-149f,
    };
    size_t n = 1 << 16, nx = sizeof xs / sizeof xs[0];
    float *x = xcalloc(n, sizeof *x);
    uint16_t *noise = xcalloc(n, sizeof *noise), *h = xcalloc(n, sizeof *h);
    for (size_t i = 0; i < n; i++)
        noise[i] = (uint16_t)i;
    for (size_t k = 0; k < nx; k++) {
        uint16_t sign = signbit(xs[k]) ? 0x8000 : 0, lo = 0x7fff, hi = 0;
        for (size_t i = 0; i < n; i++)
            x[i] = xs[k];
        fp16_encode(x, noise, h, n);
        for (size_t i = 0; i < n; i++) {
            cr_assert((h[i] & 0x8000) == sign && (h[i] & 0x7fff) <= 0x7c00,
                      "%a (%.9g) with noise %zu: %04x, not a half of its sign (nor infinity)",
                      (double)xs[k], (double)xs[k], i, h[i]);
            uint16_t m = h[i] & 0x7fff;
            lo = m < lo ? m : lo, hi = m > hi ? m : hi;
        }
        double a = fabs((double)xs[k]), vlo = half_value(lo), vhi = half_value(hi);
        if (lo == hi && vlo > a && lo > 0) /* f * 65536 > 65535: every noise rounds it up */
            vlo = half_value(--lo);
        cr_assert(hi - lo <= 1 && vlo <= a && a <= vhi && (lo == hi) == (vlo == a),
                  "%a (%.9g): over every noise the results range over halves %04x to %04x "
                  "(%a to %a); expected the one half it is, or the two neighbouring halves "
                  "around it", (double)xs[k], (double)xs[k], sign | lo, sign | hi, vlo, vhi);
        if (lo == hi)
            continue;
        double ups = 0; /* the count of results rounded up: the mean is vlo + ups/65536 (vhi - vlo) */
        for (size_t i = 0; i < n; i++)
            ups += (h[i] & 0x7fff) == hi;
        /* a = vlo + F / 65536 (vhi - vlo), F exact in double (the distance is a power of 2) */
        double F = (a - vlo) / (vhi - vlo) * 65536;
        cr_assert(ups - 1 < F && F < ups + 1,
                  "%a (%.9g): over all 65536 noises the results average %.9g of their distance "
                  "(%a) from it, rounding up %.0f times; the mean must be within 1/65536 of it, "
                  "rounding up ceil(f * 65536) = %.0f times",
                  (double)xs[k], (double)xs[k], (ups - F) / 65536, vhi - vlo, ups, ceil(F));
    }
    free(x);
    free(noise);
    free(h);
}
