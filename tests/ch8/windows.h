/* Helpers for the tests of chapter 8's exercises: a rank's communicator on the CPU, watched,
 * with a buffer from its window; the data; a short random delay. */
#ifndef DPS_TEST_WINDOWS_H
#define DPS_TEST_WINDOWS_H

#include <time.h>

#include "../ch2/ranks.h"
#include "rng.h"

/* Seconds a rank waits for a peer before it gives up: a protocol that deadlocks fails in
 * this time instead of hanging. */
#define WAIT_S 3.0

/* Rank r's element i of call k: an integer, exact in float, that changes from call to call. */
static inline float win_value(int r, size_t i, int k)
{
    return (float)((long)((i * 13 + (size_t)r * 29 + (size_t)k * 7) % 97) - 48 + r);
}

/* Rank r's element i: a float whose sums depend on the order they are added in. */
static inline float win_rough(int r, size_t i)
{
    uint64_t x = (uint64_t)(r + 1) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    return (float)((double)(x >> 40) / (1 << 22) - 2.0) * (r % 2 ? 1e-3f : 1.0f);
}

/* In a rank: the CPU communicator of the test's world, watched in *w. */
static inline Comm *win_comm(int rank, Watched *w, char *err)
{
    Comm *inner = comm_shm_open(test_world, rank, device_cpu(), err);
    return inner ? watch(w, inner, 0) : NULL;
}

/* Sleep up to max_us microseconds, at random. */
static inline void win_delay(Rng *g, int max_us)
{
    struct timespec ts = {0, (long)rng_below(g, (uint64_t)max_us + 1) * 1000};
    nanosleep(&ts, NULL);
}

#endif
