/* Exercise 6.2, a solution: float to IEEE 754 half, rounded stochastically by 16 bits of
 * noise. */
#include <string.h>

#include "ch6.h"

static uint16_t one(float f, uint16_t noise)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t exp = (u >> 23) & 0xffu, man = u & 0x7fffffu;
    if (exp == 0xff) /* infinity, or NaN (kept quiet) */
        return sign | 0x7c00u | (man ? 0x200u : 0);
    /* |f| = m * 2^(exp - 150), m the significand with its implicit 1; a float subnormal
     * (exp 0) has no implicit 1 and the scale of exp 1. */
    uint64_t m = exp ? man | 0x800000u : man;
    int e = (exp ? (int)exp : 1) - 127 + 15; /* the half's biased exponent */
    if (e >= 31)
        return sign | 0x7c00u;
    /* The bits of m below the half's last place: 13 for a normal half, more for a
     * subnormal one (whose last place is 2^-24 whatever the exponent). */
    int shift = e >= 1 ? 13 : 14 - e;
    uint64_t keep, up;
    if (shift <= 40) {
        keep = m >> shift;
        uint64_t rest = m & ((UINT64_C(1) << shift) - 1);
        /* f = rest / 2^shift; noise < f * 65536 <=> noise * 2^shift < rest * 2^16, both
         * exact in 64 bits (16 + 40 and 24 + 16 bits at most). */
        up = ((uint64_t)noise << shift) < (rest << 16);
    } else { /* m < 2^24, so f * 65536 < 1: only noise 0 is below it, unless m is 0 */
        keep = 0;
        up = m != 0 && noise == 0;
    }
    keep += up; /* may carry into the exponent, and from 65504 into infinity: rounding up */
    if (e <= 0) /* a subnormal half; 1024 is 2^-14, the smallest normal one */
        return sign | (uint16_t)keep;
    /* keep (1024 to 2048) holds the implicit 1, which adds 1 to the exponent field. */
    return sign | (uint16_t)(((uint32_t)(e - 1) << 10) + keep);
}

void fp16_encode(const float *x, const uint16_t *noise, uint16_t *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h[i] = one(x[i], noise[i]);
}
