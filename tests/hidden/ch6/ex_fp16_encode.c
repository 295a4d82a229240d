/* Hidden tests of exercise 6.2, fp16_encode: every half back from its float, the ties
 * between every two neighbouring halves, NaNs whatever their payload, and the ends of the
 * range at every float exponent (not in the students' handout). */
#include <math.h>

#include "ch6.h"
#include "helpers.h"

/* The value of half h, decoded here by its definition (exact in double, and in float);
 * 0x7c00 (infinity) reads as 65536, the next power of two after the largest half, which is
 * where the halfway point to infinity is measured from. */
static double half_value(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return h & 0x8000 ? -v : v;
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint16_t encode(float x)
{
    uint16_t h = 0x5555;
    fp16_encode(&x, &h, 1);
    return h;
}

/* Every half, as a float, comes back as the same half; a NaN half comes back a NaN. */
Test(hidden_fp16_encode, every_half_comes_back_unchanged)
{
    size_t n = 1 << 16;
    float *x = xcalloc(n, sizeof *x);
    uint16_t *h = xcalloc(n, sizeof *h);
    for (size_t i = 0; i < n; i++) {
        uint16_t e = (i >> 10) & 31, m = i & 0x3ff;
        if (e == 31) /* infinity or NaN: the same payload, at the top of a float's mantissa */
            x[i] = from_bits((uint32_t)(i & 0x8000) << 16 | 0x7f800000u | (uint32_t)m << 13);
        else
            x[i] = (float)half_value((uint16_t)i);
    }
    fp16_encode(x, h, n);
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]))
            cr_assert((h[i] & 0x7c00) == 0x7c00 && (h[i] & 0x3ff),
                      "the NaN %08x (from half %04zx) became %04x, not a NaN", bits_of(x[i]), i,
                      h[i]);
        else
            cr_assert(h[i] == i, "%a (%g), which is half %04zx exactly: got %04x", (double)x[i],
                      (double)x[i], i, h[i]);
    }
    free(x);
    free(h);
}

/* Between every two neighbouring halves a and a + 1 (both signs, from 0 and 1 up to 65504
 * and infinity): the exact midpoint goes to the one whose last bit is 0, the float just
 * below it to a, the float just above it to a + 1. */
Test(hidden_fp16_encode, ties_between_every_two_neighbours_go_to_even)
{
    /* All the cases in one call (the autograder's jail pays a round trip per call): for
     * each pair, its midpoint, the float below it and the float above it. */
    size_t pairs = 2 * 0x7c00, k = 0;
    float *x = xcalloc(3 * pairs, sizeof *x);
    uint16_t *h = xcalloc(3 * pairs, sizeof *h);
    for (unsigned sign = 0; sign <= 0x8000; sign += 0x8000)
        for (unsigned a = 0; a < 0x7c00; a++, k += 3) {
            uint16_t lo = (uint16_t)(sign | a), hi = (uint16_t)(sign | (a + 1));
            float mid = (float)((half_value(lo) + half_value(hi)) / 2);
            x[k] = mid;
            x[k + 1] = nextafterf(mid, 0);
            x[k + 2] = nextafterf(mid, sign ? -INFINITY : INFINITY);
        }
    fp16_encode(x, h, 3 * pairs);
    k = 0;
    for (unsigned sign = 0; sign <= 0x8000; sign += 0x8000)
        for (unsigned a = 0; a < 0x7c00; a++, k += 3) {
            uint16_t lo = (uint16_t)(sign | a), hi = (uint16_t)(sign | (a + 1));
            float mid = x[k], below = x[k + 1], above = x[k + 2];
            uint16_t even = a & 1 ? hi : lo;
            cr_assert(h[k] == even, "%a (%.9g), halfway between halves %04x and %04x: got %04x, "
                      "expected %04x (ties to even)", (double)mid, (double)mid, lo, hi, h[k], even);
            cr_assert(h[k + 1] == lo, "%a (%.9g), just nearer to half %04x than to %04x: got %04x, "
                      "expected %04x", (double)below, (double)below, lo, hi, h[k + 1], lo);
            cr_assert(h[k + 2] == hi, "%a (%.9g), just nearer to half %04x than to %04x: got %04x, "
                      "expected %04x", (double)above, (double)above, hi, lo, h[k + 2], hi);
        }
    free(x);
    free(h);
}

/* A NaN stays a NaN whatever bits of its payload are set, including the ones only in the
 * low 13 bits that a half drops; the infinities stay infinities. */
Test(hidden_fp16_encode, nans_with_any_payload_stay_nans)
{
    const uint32_t payload[] = {0x000001, 0x000100, 0x001fff, 0x001000, 0x002000, 0x003fff,
                                0x012345, 0x200000, 0x400000, 0x400001, 0x7fe000, 0x7fffff};
    for (uint32_t sign = 0; sign <= 1; sign++) {
        for (size_t j = 0; j < sizeof payload / sizeof payload[0]; j++) {
            uint32_t u = sign << 31 | 0x7f800000u | payload[j];
            uint16_t h = encode(from_bits(u));
            cr_assert((h & 0x7c00) == 0x7c00 && (h & 0x3ff),
                      "the NaN %08x (payload %06x) became %04x, which is not a NaN (exponent "
                      "all ones and a mantissa other than 0)", u, payload[j], h);
        }
        uint16_t inf = encode(sign ? -INFINITY : INFINITY), want = sign ? 0xfc00 : 0x7c00;
        cr_assert(inf == want, "%cinfinity became %04x, expected %04x", sign ? '-' : '+', inf,
                  want);
    }
}

/* At every float exponent from 2^16 up to the largest float, infinity of the same sign;
 * from 65520 (halfway between 65504 and 2^16, ties to even) up, too, and 65504 below it;
 * at every float exponent below 2^-25 (float subnormals included), a zero of the same sign;
 * 2^-25 itself to zero (a tie), anything above it in its binade to the smallest subnormal. */
Test(hidden_fp16_encode, the_ends_of_the_range_at_every_exponent)
{
    const uint32_t mantissas[] = {0,        1,        0x1000,   0x2000,  0x400000,
                                  0x7fe000, 0x7fefff, 0x7ff000, 0x7fffff};
    const size_t nm = sizeof mantissas / sizeof mantissas[0];
    for (uint32_t sign = 0; sign <= 1; sign++) {
        uint16_t s = (uint16_t)(sign << 15);
        for (uint32_t exp = 0; exp <= 254; exp++)
            for (size_t j = 0; j < nm; j++) {
                uint32_t u = sign << 31 | exp << 23 | mantissas[j];
                int e = (int)exp - 127; /* the float's exponent (subnormals: below -126) */
                uint16_t want;
                if (e >= 16 || (e == 15 && mantissas[j] >= 0x7ff000))
                    want = s | 0x7c00;
                else if (e == 15 && mantissas[j] >= 0x7fe000)
                    want = s | 0x7bff;
                else if (e < -25 || (e == -25 && mantissas[j] == 0))
                    want = s;
                else if (e == -25)
                    want = s | 1;
                else
                    continue;
                uint16_t got = encode(from_bits(u));
                cr_assert(got == want, "%a (%g, bits %08x): got %04x, expected %04x",
                          (double)from_bits(u), (double)from_bits(u), u, got, want);
            }
    }
}
