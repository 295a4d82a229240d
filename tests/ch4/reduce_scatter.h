/* The harness of the tests of exercises 4.2 and 4.3 (ring_reduce_scatter_bidir,
 * direct_reduce_scatter), public and hidden: in each rank, the reduce-scatter called on a
 * list of counts one after the other, on case_value data in a guarded buffer, with a fresh
 * guarded scratch of chunk_max(count, N) floats each time; after each call, both guards,
 * the rank's chunk against case_sum, and what the rank sent (the test's own check). */
#ifndef DPS_TEST_REDUCE_SCATTER_H
#define DPS_TEST_REDUCE_SCATTER_H

#include "cases.h"
#include "collectives.h"

/* One call as a rank saw it: N ranks, count elements, the rank's chunk [lo, hi), the floats
 * of its scratch, and what it sent and received. */
typedef struct RsCall {
    int rank, size;
    size_t count, lo, hi, most;
    const Watched *w;
    int detailed;    /* the messages name N, the scratch's size and the chunk (RsSweep) */
    const void *arg; /* the sweep's */
} RsCall;

/* What a rank sent in one call: 0, or -1 with a message. */
typedef int (*RsTraffic)(const RsCall *k, char *err);

typedef struct RsSweep {
    InPlace fn;           /* a reduce-scatter */
    int n;                /* how many of counts[] to run, one call after the other */
    const size_t *counts; /* the element counts */
    RsTraffic traffic;
    int detailed; /* 1: messages that begin "N = ..., count elements" and name the sizes */
    const void *arg; /* for traffic */
} RsSweep;

/* The bytes of every chunk but the rank's own, sent once. */
static inline int rs_sent_once(const RsCall *k, char *err)
{
    size_t want = (k->count - (k->hi - k->lo)) * sizeof(float);
    if (k->w->bytes == want)
        return 0;
    if (k->detailed)
        return error_set(err, "N = %d, %zu elements: rank %d sent %zu bytes, expected %zu",
                         k->size, k->count, k->rank, k->w->bytes, want);
    return error_set(err, "%zu elements: rank %d sent %zu bytes, expected %zu", k->count,
                     k->rank, k->w->bytes, want);
}

/* Rank @p rank's side of the sweep @p s, on the communicator of the test's world. */
static inline int rs_sweep(int rank, int size, const RsSweep *s, char *err)
{
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    size_t largest = 1;
    for (int j = 0; j < s->n; j++)
        largest = s->counts[j] > largest ? s->counts[j] : largest;
    float *host = xcalloc(largest + 1, sizeof *host);
    float *buf = guarded(inner->dev, largest);
    for (int j = 0; j < s->n; j++) {
        size_t count = s->counts[j], most = chunk_max(count, size);
        size_t lo = case_start(count, size, rank), hi = case_start(count, size, rank + 1);
        Watched w;
        Comm *c = watch(&w, inner, 0);
        int rc = in_place_call(c, s->fn, case_value, host, buf, largest, count, most, err);
        if (rc < 0)
            return -1;
        if (rc)
            return s->detailed
                       ? error_set(err,
                                   "N = %d, %zu elements: rank %d wrote past the "
                                   "end of scratch (%zu floats) or buf",
                                   size, count, rank, most)
                       : error_set(err, "rank %d wrote past the end of scratch or buf",
                                   rank);
        for (size_t i = lo; i < hi; i++) {
            if (host[i] == case_sum(size, i))
                continue;
            if (s->detailed)
                return error_set(err,
                                 "N = %d, %zu elements: rank %d owns [%zu, %zu) and has "
                                 "%g at %zu, expected %g",
                                 size, count, rank, lo, hi, host[i], i, case_sum(size, i));
            return error_set(err, "%zu elements: rank %d has %g at %zu, expected %g", count,
                             rank, host[i], i, case_sum(size, i));
        }
        RsCall k = {rank, size, count, lo, hi, most, &w, s->detailed, s->arg};
        if (s->traffic(&k, err))
            return -1;
    }
    free(host);
    inner->close(inner);
    return 0;
}

#endif
