/**
 * @file rng.c
 * @brief xoshiro256** seeded by SplitMix64.
 */
#line 515 "chapters/A1-support.nw"
#include "rng.h"

#include <math.h>

#line 540 "chapters/A1-support.nw"
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#line 562 "chapters/A1-support.nw"
void rng_seed(Rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t s = stream;
    uint64_t x = seed ^ splitmix64(&s);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

#line 586 "chapters/A1-support.nw"
static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(Rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}
#line 639 "chapters/A1-support.nw"
uint32_t rng_below(Rng *r, uint32_t n)
{
    uint64_t m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

#line 678 "chapters/A1-support.nw"
float rng_uniform(Rng *r)
{
    return (float)(rng_next(r) >> 40) * 0x1.0p-24f;
}

float rng_normal(Rng *r)
{
    double u1 = ((double)(rng_next(r) >> 11) + 1.0) * 0x1.0p-53; /* (0, 1] */
    double u2 = (double)(rng_next(r) >> 11) * 0x1.0p-53;         /* [0, 1) */
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

#line 706 "chapters/A1-support.nw"
void rng_shuffle(Rng *r, int32_t *a, long n)
{
    for (long i = n - 1; i > 0; i--) {
        long j = (long)rng_below(r, (uint32_t)(i + 1));
        int32_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
