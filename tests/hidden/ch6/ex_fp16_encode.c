/* Hidden tests of exercise 6.2, fp16_encode: every half back from its float whatever the
 * noise, NaNs whatever their payload and the signed zeros, every float around the smallest
 * normal half, the floats below the smallest half, the top of the range, noise equal to
 * f * 65536, and a spread of every exponent (not in the students' handout). Each test makes
 * one call (the autograder's jail pays a round trip per call). */
#include <math.h>

#include "ch6.h"
#include "helpers.h"

/* The reference of the public tests: the spacing of halves around a = |x|, q = floor(a / s)
 * and F = (a / s - q) * 65536, all exact in double; the half is q + 1 spacings when noise < F,
 * else q, and infinity from 2^16 on. */
static double spacing(double a)
{
    return ldexp(1.0, (a < 0x1p-14 ? -14 : ilogb(a)) - 10);
}

static double fraction(float x) /* F = f * 65536 of a finite x */
{
    double a = fabs((double)x), s = spacing(a);
    return (a / s - floor(a / s)) * 65536;
}

static uint16_t reference(float x, uint16_t noise)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    if (isinf(x))
        return sign | 0x7c00;
    double a = fabs((double)x), s = spacing(a);
    int e = a < 0x1p-14 ? -14 : ilogb(a);
    double q = floor(a / s) + (noise < fraction(x));
    if (q * s >= 65536)
        return sign | 0x7c00;
    if (q >= 2048) {
        e++;
        q /= 2;
    }
    if (q < 1024)
        return sign | (uint16_t)q;
    return sign | (uint16_t)((e + 15) << 10) | (uint16_t)(q - 1024);
}

/* The value of half h, decoded here by its definition (exact in double, and in float). */
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

static bool is_nan_half(uint16_t h)
{
    return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

/* The cases of one test, gathered, then encoded in one call. */
typedef struct {
    float *x;
    uint16_t *noise, *h;
    size_t n, cap;
} Cases;

static void add(Cases *c, float x, uint16_t noise)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->x = realloc(c->x, c->cap * sizeof *c->x);
        c->noise = realloc(c->noise, c->cap * sizeof *c->noise);
        cr_assert(c->x && c->noise, "out of memory");
    }
    c->x[c->n] = x;
    c->noise[c->n++] = noise;
}

static void encode(Cases *c)
{
    c->h = xcalloc(c->n ? c->n : 1, sizeof *c->h);
    for (size_t i = 0; i < c->n; i++)
        c->h[i] = 0x5555;
    fp16_encode(c->x, c->noise, c->h, c->n);
}

/* Every case against the reference, bit for bit. */
static void check_all(Cases *c)
{
    for (size_t i = 0; i < c->n; i++) {
        uint16_t want = reference(c->x[i], c->noise[i]);
        cr_assert(c->h[i] == want,
                  "%a (%.9g, bits %08x) with noise %u (f * 65536 = %.9g): got %04x, expected "
                  "%04x",
                  (double)c->x[i], (double)c->x[i], bits_of(c->x[i]), c->noise[i],
                  fraction(c->x[i]), c->h[i], want);
    }
}

static void done(Cases *c)
{
    free(c->x);
    free(c->noise);
    free(c->h);
}

/* x with the noises that decide it: 0 and 65535, and when f * 65536 = F is above 0, the
 * largest noise below F (which rounds up) and the smallest at or above it (which does not),
 * where they are noises. */
static void add_deciding_noises(Cases *c, float x)
{
    add(c, x, 0);
    add(c, x, 65535);
    double F = fraction(x);
    if (F > 0) {
        add(c, x, (uint16_t)(ceil(F) - 1));
        if (ceil(F) <= 65535)
            add(c, x, (uint16_t)ceil(F));
    }
}

/* Every half, as a float, comes back as the same half with noise 0, 65535 and another; a
 * NaN half comes back a NaN. */
Test(hidden_fp16_encode, every_half_comes_back_for_any_noise)
{
    Cases c = {0};
    for (uint32_t k = 0; k < 3; k++)
        for (uint32_t i = 0; i < 1 << 16; i++) {
            uint32_t e = (i >> 10) & 31, m = i & 0x3ff;
            uint16_t noise = k == 0 ? 0 : k == 1 ? 65535 : (uint16_t)(i * 40503u + 12345u);
            if (e == 31) /* infinity or NaN: the same payload, at the top of the mantissa */
                add(&c, from_bits((i & 0x8000) << 16 | 0x7f800000u | m << 13), noise);
            else
                add(&c, (float)half_value((uint16_t)i), noise);
        }
    encode(&c);
    for (size_t j = 0; j < c.n; j++) {
        uint16_t i = (uint16_t)(j & 0xffff);
        if (isnan(c.x[j]))
            cr_assert(is_nan_half(c.h[j]),
                      "the NaN %08x (from half %04x) with noise %u became %04x, not a NaN",
                      bits_of(c.x[j]), i, c.noise[j], c.h[j]);
        else
            cr_assert(c.h[j] == i, "%a (%g), which is half %04x exactly, with noise %u: got %04x",
                      (double)c.x[j], (double)c.x[j], i, c.noise[j], c.h[j]);
    }
    done(&c);
}

/* A NaN stays a NaN whatever bits of its payload are set, including the ones only in the
 * low 13 bits that a half drops; the infinities stay infinities; a zero keeps its sign for
 * every noise, and so does a negative value too small to round up: it becomes -0. */
Test(hidden_fp16_encode, nans_with_any_payload_and_the_signed_zeros)
{
    const uint32_t payload[] = {0x000001, 0x000100, 0x001fff, 0x001000, 0x002000, 0x003fff,
                                0x012345, 0x200000, 0x400000, 0x400001, 0x7fe000, 0x7fffff};
    const size_t np = sizeof payload / sizeof payload[0];
    Cases c = {0};
    for (uint32_t sign = 0; sign <= 1; sign++)
        for (uint32_t noise = 0; noise <= 65535; noise += 65535) {
            for (size_t j = 0; j < np; j++)
                add(&c, from_bits(sign << 31 | 0x7f800000u | payload[j]), (uint16_t)noise);
            add(&c, sign ? -INFINITY : INFINITY, (uint16_t)noise);
        }
    size_t nans_end = c.n;
    for (uint32_t noise = 0; noise <= 65535; noise += 4369) { /* 0, 4369, ..., 65535 */
        add(&c, 0.0f, (uint16_t)noise);
        add(&c, -0.0f, (uint16_t)noise);
    }
    /* Negative values below 2^-24 whose f * 65536 is at most 65535, at every float exponent
     * (float subnormals included), with the noises that round them down: -0. */
    for (uint32_t exp = 0; exp <= 102; exp++)
        for (uint32_t man = 1; man < 0x800000u; man = man * 5 + 0x1234) {
            float x = from_bits(1u << 31 | exp << 23 | man);
            double F = fraction(x);
            if (F <= 65535)
                add(&c, x, (uint16_t)ceil(F));
            add(&c, x, 65535);
        }
    encode(&c);
    for (size_t i = 0; i < c.n; i++) {
        uint32_t u = bits_of(c.x[i]);
        if (isnan(c.x[i]))
            cr_assert(is_nan_half(c.h[i]),
                      "the NaN %08x (payload %06x) with noise %u became %04x, which is not a NaN "
                      "(exponent all ones and a mantissa other than 0)",
                      u, u & 0x7fffffu, c.noise[i], c.h[i]);
        else if (i < nans_end)
            cr_assert(c.h[i] == (signbit(c.x[i]) ? 0xfc00 : 0x7c00),
                      "%cinfinity with noise %u became %04x", signbit(c.x[i]) ? '-' : '+',
                      c.noise[i], c.h[i]);
        else
            cr_assert(c.h[i] == (signbit(c.x[i]) ? 0x8000 : 0),
                      "%a (bits %08x) with noise %u (f * 65536 = %.9g): got %04x, expected %04x "
                      "(a zero of its sign)",
                      (double)c.x[i], u, c.noise[i], fraction(c.x[i]), c.h[i],
                      signbit(c.x[i]) ? 0x8000 : 0);
    }
    done(&c);
}

/* Every float within 8192 of 2^-14 (as bits, both signs), the smallest normal half: below
 * it a subnormal half, whose last place is 2^-24 and drops 14 bits of the float; above it 13
 * bits; rounding up from the largest subnormal reaches 2^-14. */
Test(hidden_fp16_encode, every_float_around_the_smallest_normal_half)
{
    Cases c = {0};
    for (uint32_t sign = 0; sign <= 1; sign++)
        for (uint32_t u = 0x38800000u - 8192; u < 0x38800000u + 8192; u++)
            add_deciding_noises(&c, from_bits(sign << 31 | u));
    encode(&c);
    check_all(&c);
    done(&c);
}

/* Below 2^-24, the smallest half, at every float exponent (float subnormals included):
 * noise 0 rounds any value other than 0 up to 2^-24, however small; a value rounds up to
 * 2^-24 exactly when noise < f * 65536 = x * 2^40, else to 0, with its sign. */
Test(hidden_fp16_encode, values_below_the_smallest_half)
{
    const uint32_t mantissas[] = {0,        1,        0x1000,   0x2000,  0x123457,
                                  0x400000, 0x7fe000, 0x7fefff, 0x7fffff};
    Cases c = {0};
    for (uint32_t sign = 0; sign <= 1; sign++)
        for (uint32_t exp = 0; exp <= 102; exp++)
            for (size_t j = 0; j < sizeof mantissas / sizeof mantissas[0]; j++)
                if (exp || mantissas[j])
                    add_deciding_noises(&c, from_bits(sign << 31 | exp << 23 | mantissas[j]));
    encode(&c);
    for (size_t i = 0; i < c.n; i++) {
        double F = ldexp(fabs((double)c.x[i]), 40);
        uint16_t want = (uint16_t)((signbit(c.x[i]) ? 0x8000 : 0) | (c.noise[i] < F));
        cr_assert(c.h[i] == want,
                  "%a (%g, bits %08x) with noise %u: got %04x, expected %04x (f * 65536 = x * "
                  "2^40 = %.9g: rounded up to 2^-24 when the noise is below it, else to 0)",
                  (double)c.x[i], (double)c.x[i], bits_of(c.x[i]), c.noise[i], c.h[i], want, F);
    }
    done(&c);
}

/* Every float from 65472 to 2^16 (both signs): up to 65504 rounded between two halves 32
 * apart, above it between 65504 and 2^16, which is infinity; from 2^16 on, at every float
 * exponent, infinity whatever the noise. */
Test(hidden_fp16_encode, the_top_of_the_range)
{
    const uint32_t mantissas[] = {0, 1, 0x1000, 0x400000, 0x7fe000, 0x7fffff};
    Cases c = {0};
    for (uint32_t sign = 0; sign <= 1; sign++) {
        for (uint32_t u = bits_of(65472.0f); u < bits_of(65536.0f); u++)
            add_deciding_noises(&c, from_bits(sign << 31 | u));
        for (uint32_t exp = 143; exp <= 254; exp++)
            for (size_t j = 0; j < sizeof mantissas / sizeof mantissas[0]; j++)
                add_deciding_noises(&c, from_bits(sign << 31 | exp << 23 | mantissas[j]));
    }
    encode(&c);
    check_all(&c);
    done(&c);
}

/* When f * 65536 = F is a whole number (always, for a normal half: 13 bits dropped), noise
 * F must round down and F - 1 up: the comparison is noise < F, not <=. Floats spread from
 * 2^-24 to 65504 (the top of the range has its own test), at every exponent. */
Test(hidden_fp16_encode, noise_equal_to_the_fraction_does_not_round_up)
{
    Cases c = {0};
    for (uint32_t i = 0; c.n < 2 * 40000; i++) {
        uint32_t exp = 103 + i % 39, man = (i * 2654435761u) >> 9;
        if (i % 7 == 0)
            man &= ~0x3fffu; /* subnormal halves too, whose F is whole only then */
        float x = from_bits((i & 1) << 31 | exp << 23 | man);
        double F = fraction(x);
        if (F == 0 || F != floor(F) || fabs((double)x) > 65504)
            continue;
        add(&c, x, (uint16_t)F);
        add(&c, x, (uint16_t)(F - 1));
    }
    encode(&c);
    for (size_t i = 0; i < c.n; i++) {
        double a = fabs((double)c.x[i]), s = spacing(a), lo = floor(a / s) * s;
        double want = c.noise[i] == fraction(c.x[i]) ? lo : lo + s;
        cr_assert(fabs(half_value(c.h[i])) == want && (c.h[i] >> 15) == (bits_of(c.x[i]) >> 31),
                  "%a (%.9g) with noise %u, f * 65536 = %.9g: got %04x (%.9g), expected %.9g "
                  "with its sign (%s)",
                  (double)c.x[i], (double)c.x[i], c.noise[i], fraction(c.x[i]), c.h[i],
                  half_value(c.h[i]), want,
                  want == lo ? "noise = f * 65536 rounds down" : "noise < f * 65536 rounds up");
    }
    done(&c);
}

/* Floats of every exponent and sign (NaNs among them: any NaN back), with pseudo-random
 * noise, then with noise 0 and 65535, the two ends, against the reference bit for bit. */
Test(hidden_fp16_encode, a_spread_of_every_exponent)
{
    for (int ends = 0; ends <= 1; ends++) {
        Cases c = {0};
        for (size_t i = 0; i < (size_t)1 << 16; i++) {
            uint32_t u = (uint32_t)(i * 65521u * 1009u) ^ (uint32_t)(i << 16);
            add(&c, from_bits(u), ends ? (i % 2 ? 65535 : 0) : (uint16_t)((i * 40503u) >> 3 ^ i * 7919u));
        }
        encode(&c);
        for (size_t i = 0; i < c.n; i++)
            if (isnan(c.x[i])) {
                cr_assert(is_nan_half(c.h[i]), "a NaN (bits %08x) became %04x", bits_of(c.x[i]),
                          c.h[i]);
                c.x[i] = 0, c.noise[i] = 0, c.h[i] = 0; /* checked: 0 encodes as 0 */
            }
        check_all(&c);
        done(&c);
    }
}
