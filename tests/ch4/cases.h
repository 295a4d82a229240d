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

/* The collectives of chapters 4 and 5 that work in place on count floats with a scratch:
 * reduce-scatters and all-reduces. */
typedef int (*InPlace)(Comm *c, float *buf, size_t count, float *scratch, char *err);

/* One call of @p fn on @p c's rank: host[i] = value(rank, i) for count floats, uploaded
 * into buf (which has room for `room` floats and its guard), with a fresh guarded scratch
 * of scratch_n floats; then both guards, and the result downloaded into host. Returns 0,
 * -1 with fn's error, or 1 when fn wrote past the end of buf or scratch. */
static inline int in_place_call(Comm *c, InPlace fn, float (*value)(int rank, size_t i),
                                float *host, float *buf, size_t room, size_t count,
                                size_t scratch_n, char *err)
{
    for (size_t i = 0; i < count; i++)
        host[i] = value(c->rank, i);
    c->dev->upload(buf, host, count * sizeof(float));
    float *scratch = guarded(c->dev, scratch_n);
    if (fn(c, buf, count, scratch, err))
        return -1;
    if (!guard_ok(c->dev, scratch, scratch_n) || !guard_ok(c->dev, buf, room))
        return 1;
    c->dev->release(scratch);
    c->dev->download(host, buf, count * sizeof(float));
    return 0;
}

/* Bit mask of ranks. */
static inline unsigned long long bit(int q) { return 1ull << q; }

#endif
