/* Helpers for the tests of the collective exercises (chapters 4 and 5): test data, device
 * buffers with a guard after their end, and a watched communicator per rank. */
#ifndef DPS_TEST_CASES_H
#define DPS_TEST_CASES_H

#include <math.h>

#include "../ch2/ranks.h"

/* The test's data: an integer that depends on rank and position, exact in float. */
static inline float case_value(int rank, size_t i)
{
    return (float)((long)((i * 31 + (size_t)rank * 17 + (i >> 7) * 5) % 211) - 105 + 3 * rank);
}

/* The direct sum of case_value over n ranks. */
static inline float case_sum(int n, size_t i)
{
    double s = 0;
    for (int q = 0; q < n; q++)
        s += case_value(q, i);
    return (float)s;
}

/* Chunk k of count over n, computed here without the library. */
static inline size_t case_start(size_t count, int n, int k)
{
    return (size_t)((unsigned __int128)count * (unsigned)k / (unsigned)n);
}

#define GUARD 12345.0f

/* A device buffer of n floats followed by one guard float. */
static inline float *guarded(const Device *dev, size_t n)
{
    float *b = dev->alloc((n + 1) * sizeof(float));
    dev->upload(b + n, &(float){GUARD}, sizeof(float));
    return b;
}

/* Whether the guard after n floats is still intact. */
static inline int guard_ok(const Device *dev, const float *b, size_t n)
{
    float g;
    dev->download(&g, b + n, sizeof g);
    return g == GUARD;
}

/* Bit mask of ranks. */
static inline unsigned long long bit(int q) { return 1ull << q; }

#endif
