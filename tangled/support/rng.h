/**
 * @file rng.h
 * @brief A small, portable, seedable random number generator (xoshiro256**).
 */
#ifndef DPS_RNG_H
#define DPS_RNG_H

#include <stdint.h>

/** Generator state; seed it with rng_seed() before use. */
typedef struct Rng {
    uint64_t s[4]; /**< xoshiro256** state, never all zero */
} Rng;

/** Seed @p r from a seed and a stream number; different streams are independent. */
void rng_seed(Rng *r, uint64_t seed, uint64_t stream);
/** The next 64 random bits. */
uint64_t rng_next(Rng *r);
/** A uniform integer in [0, n), without modulo bias; n > 0. */
uint32_t rng_below(Rng *r, uint32_t n);
/** A uniform float in [0, 1) with 24 random bits. */
float rng_uniform(Rng *r);
/** A standard normal variate (Box-Muller, computed in double). */
float rng_normal(Rng *r);
/** Shuffle @p a[0..n) uniformly (Fisher-Yates). */
void rng_shuffle(Rng *r, int32_t *a, long n);

#endif
