/* Wrong on purpose: a NaN keeps only the top 10 bits of its payload (man >> 13), so a NaN
 * whose payload lies in the low 13 bits becomes infinity.
 * Fails: hidden_fp16_encode::nans_with_any_payload_stay_nans
 */
/* Exercise 6.2, a solution: float to IEEE 754 half, round to nearest even. */
#include <string.h>

#include "ch6.h"

static uint16_t one(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t exp = (u >> 23) & 0xffu, man = u & 0x7fffffu;
    if (exp == 0xff) /* infinity, or NaN: keep the top 10 bits of the payload */
        return sign | 0x7c00u | (uint16_t)(man >> 13);
    int e = (int)exp - 127 + 15; /* the half's biased exponent */
    if (e >= 31)
        return sign | 0x7c00u;
    uint32_t m;
    int shift;
    if (e <= 0) { /* a half subnormal (or zero): the implicit 1 becomes explicit */
        if (e < -10)
            return sign;
        m = man | 0x800000u;
        shift = 14 - e;
    } else {
        m = man;
        shift = 13;
    }
    uint32_t keep = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (keep & 1)))
        keep++; /* may carry into the exponent, which is what rounding up should do */
    if (e <= 0)
        return sign | (uint16_t)keep;
    return sign | (uint16_t)(((uint32_t)e << 10) + keep);
}

void fp16_encode(const float *x, uint16_t *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h[i] = one(x[i]);
}
