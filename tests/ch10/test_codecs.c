/* Chapter 10: the device's codec kernels. The 16-bit encoders against references that round
 * by arithmetic in double (not by bits, as the encoders do); decoding of every 16-bit
 * pattern; the bad-entry count; Gram-Schmidt against the definition of orthonormal columns;
 * top-k against a sort. */
#include <math.h>

#include "helpers.h"
#include "mlp_kernels.h"
#include "report.h"
#include "rng.h"

/* The number of the format with @p frac fraction bits, exponents down to @p emin (its
 * smallest normal binade) and largest finite value below 2^@p emax_excl, nearest to @p f, ties
 * to even, as a double: |f| / spacing is exact in double, and rint() rounds it. */
static double nearest(double f, int frac, int emin, int emax_excl)
{
    double a = fabs(f);
    if (a == 0 || isinf(f) || isnan(f))
        return f;
    int e = a < ldexp(1.0, emin) ? emin : ilogb(a);
    double spacing = ldexp(1.0, e - frac), q = rint(a / spacing) * spacing;
    double top = ldexp(1.0, emax_excl); /* the first value past the largest finite */
    if (q >= top)
        q = INFINITY;
    return signbit(f) ? -q : q;
}

/* Half: 10 fraction bits, normal from 2^-14, finite below 2^16. */
static double half_ref(float f) { return nearest(f, 10, -14, 16); }
/* bfloat16: 7 fraction bits, normal from 2^-126, finite below 2^128. */
static double bf16_ref(float f) { return nearest(f, 7, -126, 128); }

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A spread of floats over every exponent, both signs, and the halfway points near 1. */
static float spread(size_t i)
{
    if (i % 2)
        return from_bits((uint32_t)(i * 65521u * 1009u) ^ (uint32_t)(i << 16));
    return from_bits(0x3f800000u + (uint32_t)(i / 2 % 4096) * 0x1000u + (uint32_t)(i % 3) - 1);
}

static void expect_same(double got, double want, float x, const char *fmt)
{
    if (isnan(want))
        cr_assert(isnan(got), "%s of NaN: %g", fmt, got);
    else
        cr_assert(got == want && signbit(got) == signbit(want), "%s of %a: %a, expected %a", fmt,
                  (double)x, got, want);
}

Test(codecs, half_rounds_to_nearest_even_like_arithmetic)
{
    float edges[] = {0.0f, -0.0f, 1.0f, 65504.0f, 65519.99f, 65520.0f, -65520.0f, 1e9f, INFINITY,
                     -INFINITY, NAN, 0x1p-14f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-26f, 0x3p-25f,
                     0x1.004p0f, 0x1.006p0f, 0x1.002p0f, 0x1.ffep-15f, 0x1.ffcp-15f, 1e-8f,
                     0x1p-149f, 3.14159265f};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
        expect_same(float_from_half(half_from_float(edges[i])), half_ref(edges[i]), edges[i],
                    "half");
    for (size_t i = 0; i < (1u << 18); i++) {
        float x = spread(i);
        expect_same(float_from_half(half_from_float(x)), half_ref(x), x, "half");
    }
}

Test(codecs, bf16_rounds_to_nearest_even_like_arithmetic)
{
    float edges[] = {0.0f, -0.0f, 1.0f, 0x1.01p0f, 0x1.03p0f, 0x1.018p0f, 0x1.fffffep127f,
                     0x1.fep127f, -0x1.ffp127f, INFINITY, NAN, 0x1p-126f, 0x1p-149f, 0x1.01p-130f,
                     1e-40f};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
        expect_same(float_from_bf16(bf16_from_float(edges[i])), bf16_ref(edges[i]), edges[i],
                    "bf16");
    for (size_t i = 0; i < (1u << 18); i++) {
        float x = spread(i);
        expect_same(float_from_bf16(bf16_from_float(x)), bf16_ref(x), x, "bf16");
    }
}

/* Every 16-bit pattern decodes to what its fields say, and encodes back to itself. */
Test(codecs, every_sixteen_bit_pattern_decodes_exactly_and_encodes_back)
{
    for (uint32_t h = 0; h < 65536; h++) {
        int e = (int)(h >> 10 & 31), m = (int)(h & 1023);
        double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                    : ldexp(1024 + m, e - 25);
        v = (h & 0x8000) ? -v : v;
        float f = float_from_half((uint16_t)h);
        expect_same(f, v, 0, "the half's float");
        if (!isnan(v))
            cr_assert(half_from_float(f) == h, "half %04x came back as %04x", h,
                      half_from_float(f));
        float g = float_from_bf16((uint16_t)h);
        uint32_t u;
        memcpy(&u, &g, sizeof u);
        cr_assert(u == h << 16, "bf16 %04x decoded to %08x", h, u);
        if (!isnan(g))
            cr_assert(bf16_from_float(g) == h, "bf16 %04x came back as %04x", h,
                      bf16_from_float(g));
    }
}

/* The device's kernels: encode, decode (written and added), and the count of bad entries. */
Test(codecs, the_device_encodes_decodes_adds_and_counts_bad_entries)
{
    const Device *dev = device_cpu();
    enum { N = 1000 };
    float x[N], y[N], base[N];
    uint16_t h[N];
    for (int i = 0; i < N; i++)
        x[i] = spread((size_t)i * 7 + 1) * 1e-30f, base[i] = (float)i;
    for (int t = DTYPE_FP32; t <= DTYPE_FP16; t++) {
        float wire32[N];
        void *wire = t == DTYPE_FP32 ? (void *)wire32 : (void *)h;
        dev->encode(N, (Dtype)t, x, wire);
        memcpy(y, base, sizeof y);
        dev->decode(N, (Dtype)t, wire, y, true);
        for (int i = 0; i < N; i++) {
            double want = t == DTYPE_FP32   ? x[i]
                          : t == DTYPE_BF16 ? bf16_ref(x[i])
                                            : half_ref(x[i]);
            if (!isfinite(want) || !isfinite(x[i]))
                continue;
            cr_assert(y[i] == (float)(base[i] + (float)want), "type %d, %d: %a + %a gave %a", t,
                      i, (double)base[i], want, (double)y[i]);
        }
        dev->decode(N, (Dtype)t, wire, y, false);
        for (int i = 0; i < N; i++)
            if (isfinite(x[i]))
                expect_same(y[i], t == DTYPE_FP32 ? x[i] : t == DTYPE_BF16 ? bf16_ref(x[i])
                                                                           : half_ref(x[i]),
                            x[i], "decode");
    }
    float bad[6] = {1, INFINITY, 2, NAN, -INFINITY, 3};
    cr_assert(dev->count_nonfinite(6, bad) == 3 && dev->count_nonfinite(1, bad) == 0);
}

Test(codecs, gram_schmidt_makes_orthonormal_columns_spanning_the_same_space)
{
    const Device *dev = device_cpu();
    enum { ROWS = 200, COLS = 4 };
    float a[ROWS * COLS], q[ROWS * COLS];
    Rng r;
    rng_seed(&r, 5, 1);
    for (int i = 0; i < ROWS * COLS; i++)
        a[i] = rng_normal(&r);
    memcpy(q, a, sizeof q);
    dev->orthonormalize(ROWS, COLS, q);
    for (int j = 0; j < COLS; j++)
        for (int k = 0; k < COLS; k++) {
            double dot = 0;
            for (int i = 0; i < ROWS; i++)
                dot += (double)q[i * COLS + j] * q[i * COLS + k];
            cr_assert(fabs(dot - (j == k)) < 1e-5, "columns %d and %d: dot %g", j, k, dot);
        }
    /* Column j of a lies in the span of q's first j + 1 columns: its remainder is 0. */
    for (int j = 0; j < COLS; j++) {
        double rest[ROWS], len = 0;
        for (int i = 0; i < ROWS; i++)
            rest[i] = a[i * COLS + j];
        for (int k = 0; k <= j; k++) {
            double dot = 0;
            for (int i = 0; i < ROWS; i++)
                dot += rest[i] * q[i * COLS + k];
            for (int i = 0; i < ROWS; i++)
                rest[i] -= dot * q[i * COLS + k];
        }
        for (int i = 0; i < ROWS; i++)
            len += rest[i] * rest[i];
        cr_assert(sqrt(len) < 1e-4, "column %d leaves a remainder of %g", j, sqrt(len));
    }
    float zero[3 * 2] = {0}; /* a zero column stays zero, not NaN */
    dev->orthonormalize(3, 2, zero);
    for (int i = 0; i < 6; i++)
        cr_assert(zero[i] == 0, "a zero column became %g", (double)zero[i]);
}

static int by_magnitude(const void *a, const void *b)
{
    const IndexValue *x = a, *y = b;
    float mx = fabsf(x->value), my = fabsf(y->value);
    if (mx != my)
        return mx < my ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Top-k against a sort by magnitude (ties: the lower index first), on vectors with many
 * ties, zeros and both signs, for k from 1 to n. */
Test(codecs, top_k_takes_the_largest_magnitudes_and_the_lowest_indices_among_ties)
{
    const Device *dev = device_cpu();
    enum { N = 300 };
    float x[N];
    IndexValue got[N], sorted[N];
    Rng r;
    rng_seed(&r, 9, 2);
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < N; i++)
            x[i] = round % 2 ? (float)((int)rng_below(&r, 9) - 4)  /* many ties */
                             : rng_normal(&r) * ldexpf(1, (int)rng_below(&r, 40) - 20);
        for (int i = 0; i < N; i++)
            sorted[i] = (IndexValue){(uint32_t)i, x[i]};
        qsort(sorted, N, sizeof *sorted, by_magnitude);
        for (size_t k = 1; k <= N; k += 1 + k / 4) {
            dev->top_k(N, x, k, got);
            IndexValue want[N];
            memcpy(want, sorted, k * sizeof *want);
            for (size_t a = 1; a < k; a++) /* the CPU writes them in index order */
                cr_assert(got[a - 1].index < got[a].index, "k %zu: not in index order", k);
            for (size_t a = 0; a < k; a++) {
                size_t b = 0;
                while (b < k && want[b].index != got[a].index)
                    b++;
                cr_assert(b < k, "round %d, k %zu: index %u (|%g|) is not among the largest",
                          round, k, got[a].index, (double)got[a].value);
                cr_assert(got[a].value == x[got[a].index], "the value of %u", got[a].index);
            }
        }
    }
}

Test(codecs, scatter_add_adds_a_scaled_sparse_vector)
{
    float y[5] = {1, 2, 3, 4, 5};
    IndexValue v[2] = {{4, 2.0f}, {1, -1.0f}};
    device_cpu()->scatter_add(2, v, 0.5f, y);
    cr_assert(y[0] == 1 && y[1] == 1.5f && y[2] == 3 && y[3] == 4 && y[4] == 6);
}

/* Chapter 10's census against the encoder itself: an entry is lost when half_from_float
 * makes a nonzero float 0, subnormal when it makes its exponent bits 0 and its fraction not;
 * the same for the float times 2^16. The boundaries of rounding to nearest even are in the
 * sample, with their neighbours. */
Test(codecs, the_census_counts_what_the_half_encoder_does)
{
    enum { N = 1 << 16 };
    static float g[N];
    const float edges[] = {0x1p-25f, 0x1p-14f - 0x1p-25f, 0x1p-41f, 0x1p-30f - 0x1p-41f,
                           0x1p-24f, 0x1p-14f, 0.0f, -0.0f, INFINITY, NAN};
    size_t n = 0;
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
        g[n++] = edges[i];
        g[n++] = -nextafterf(edges[i], 0);
        g[n++] = nextafterf(edges[i], INFINITY);
    }
    Rng r;
    rng_seed(&r, 7, 0);
    while (n < N) /* magnitudes from 2^-45 to 2^3, where the two censuses differ */
        g[n++] = (rng_uniform(&r) - 0.5f) * ldexpf(1.0f, -45 + (int)(rng_uniform(&r) * 48));
    size_t zero = 0, lost[2] = {0, 0}, sub[2] = {0, 0};
    float absmax = 0;
    for (size_t i = 0; i < N; i++) {
        if (!isnan(g[i]))
            absmax = fmaxf(absmax, fabsf(g[i]));
        zero += g[i] == 0;
        for (int k = 0; k < 2 && g[i] != 0; k++) {
            uint16_t h = half_from_float(k ? g[i] * 65536.0f : g[i]);
            lost[k] += (h & 0x7fff) == 0;
            sub[k] += (h & 0x7c00) == 0 && (h & 0x3ff) != 0;
        }
    }
    HalfCensus c;
    half_census(g, N, &c);
    cr_assert(c.measured && c.absmax == absmax, "absmax %g, expected %g", c.absmax, absmax);
    cr_assert(c.already_zero == (double)zero / N, "zero %g, expected %g", c.already_zero,
              (double)zero / N);
    for (int k = 0; k < 2; k++)
        cr_assert(c.lost[k] == (double)lost[k] / N && c.subnormal[k] == (double)sub[k] / N,
                  "scale %d: lost %g subnormal %g, the encoder says %g and %g", k ? 65536 : 1,
                  c.lost[k], c.subnormal[k], (double)lost[k] / N, (double)sub[k] / N);
    cr_assert(lost[0] > 0 && sub[0] > 0 && lost[1] > 0 && sub[1] > 0 && lost[1] < lost[0]);
}
