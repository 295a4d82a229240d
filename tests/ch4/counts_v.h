/* The harness of the tests of exercises 4.1 and 5.1 (ring_reduce_scatter_v,
 * ring_all_gather_v), public and hidden: one call of the collective in a rank, on counts[q]
 * floats for rank q laid back to back, in a guarded buffer (and a guarded scratch of the
 * largest chunk), through a watched communicator; then the guards, the elements, the ring
 * (only the two neighbours) and the bytes sent. */
#ifndef DPS_TEST_COUNTS_V_H
#define DPS_TEST_COUNTS_V_H

#include <math.h>

#include "cases.h"

typedef int (*ReduceScatterV)(Comm *c, float *buf, const size_t *counts, float *scratch,
                              char *err);
typedef int (*AllGatherV)(Comm *c, float *buf, const size_t *counts, char *err);

/* One call as a rank sees it. */
typedef struct VCall {
    int rank, size, call; /* call: the how-manieth on these ranks, from 0 */
    size_t start[9];      /* chunk q is [start[q], start[q + 1]) */
    size_t total, most;   /* all the floats, and the largest chunk's */
    Watched w;
    Comm *c;     /* watched in w */
    float *host; /* total floats, and one more */
    float *buf, *scratch;
} VCall;

/* Call `call` over @p counts on @p inner's rank: the layout, a watched communicator and the
 * host buffer. */
static inline void v_open(VCall *v, Comm *inner, const size_t *counts, int call)
{
    *v = (VCall){.rank = inner->rank, .size = inner->size, .call = call};
    if (v->size >= (int)(sizeof v->start / sizeof v->start[0]))
        fatal("counts_v.h holds 8 ranks, not %d", v->size); /* a rank: the launcher names it */
    for (int q = 0; q < v->size; q++) {
        v->start[q] = v->total;
        v->total += counts[q];
        v->most = counts[q] > v->most ? counts[q] : v->most;
    }
    v->start[v->size] = v->total;
    v->c = watch(&v->w, inner, 0);
    v->host = xcalloc(v->total + 1, sizeof *v->host);
}

static inline void v_close(VCall *v)
{
    v->c->dev->release(v->buf);
    if (v->scratch)
        v->c->dev->release(v->scratch);
    free(v->host);
}

/* Only the two neighbours in the ring: the next rank sent to, the previous received from.
 * name_call: the message begins with the call. */
static inline int v_ring_only(const VCall *v, int name_call, char *err)
{
    int next = (v->rank + 1) % v->size, prev = (v->rank + v->size - 1) % v->size;
    if (v->size == 1 || (v->w.to == bit(next) && v->w.from == bit(prev)))
        return 0;
    if (name_call)
        return error_set(err,
                         "call %d: rank %d talked to ranks other than its neighbours "
                         "(sent to mask %llx, received from %llx)",
                         v->call + 1, v->rank, v->w.to, v->w.from);
    return error_set(err,
                     "rank %d talked to ranks other than its neighbours in the ring "
                     "(sent to mask %llx, received from %llx)",
                     v->rank, v->w.to, v->w.from);
}

/* Call `call` (from 0) of @p fn on @p inner's rank over @p counts, on case_value data
 * shifted by 7 elements a call; the rank's chunk must hold the sums and every chunk but its
 * own must have been sent once. detailed: the messages name the call and the sizes. */
static inline int v_reduce_scatter(Comm *inner, ReduceScatterV fn, const size_t *counts,
                                   int call, int detailed, char *err)
{
    VCall v;
    v_open(&v, inner, counts, call);
    int rank = v.rank, size = v.size;
    size_t mine = v.start[rank], end = v.start[rank + 1], shift = 7 * (size_t)call;
    for (size_t i = 0; i < v.total; i++)
        v.host[i] = case_value(rank, i + shift);
    const Device *dev = v.c->dev;
    v.buf = guarded(dev, v.total);
    v.scratch = guarded(dev, v.most);
    dev->upload(v.buf, v.host, v.total * sizeof(float));
    if (fn(v.c, v.buf, counts, v.scratch, err))
        return -1;
    if (!guard_ok(dev, v.buf, v.total) || !guard_ok(dev, v.scratch, v.most))
        return detailed
                   ? error_set(err,
                               "call %d: rank %d wrote past the end of buf (%zu "
                               "floats) or scratch (%zu floats)",
                               call + 1, rank, v.total, v.most)
                   : error_set(err, "rank %d wrote past the end of buf or scratch", rank);
    dev->download(v.host, v.buf, v.total * sizeof(float));
    for (size_t i = mine; i < end; i++) {
        float want = case_sum(size, i + shift);
        if (v.host[i] == want)
            continue;
        if (detailed)
            return error_set(err,
                             "call %d: rank %d owns elements [%zu, %zu): element %zu is "
                             "%g, expected %g",
                             call + 1, rank, mine, end, i, v.host[i], want);
        return error_set(err, "rank %d: element %zu is %g, expected %g", rank, i, v.host[i],
                         want);
    }
    if (v_ring_only(&v, detailed, err))
        return -1;
    size_t bytes = (v.total - counts[rank]) * sizeof(float);
    if (v.w.bytes != bytes)
        return detailed ? error_set(err,
                                    "call %d: rank %d sent %zu bytes, expected %zu: every "
                                    "chunk but its own, once",
                                    call + 1, rank, v.w.bytes, bytes)
                        : error_set(err,
                                    "rank %d sent %zu bytes, expected %zu: every chunk but "
                                    "its own",
                                    rank, v.w.bytes, bytes);
    v_close(&v);
    return 0;
}

/* One call of @p fn on @p inner's rank over @p counts, the rank's chunk holding case_value
 * and every other NaN: every chunk must arrive, through the ring only; with @p bytes, every
 * chunk but the next rank's sent once. detailed: the messages name the sizes. */
static inline int v_all_gather(Comm *inner, AllGatherV fn, const size_t *counts,
                               int detailed, int bytes, char *err)
{
    VCall v;
    v_open(&v, inner, counts, 0);
    int rank = v.rank, size = v.size;
    for (size_t i = 0; i < v.total; i++)
        v.host[i] = i >= v.start[rank] && i < v.start[rank + 1] ? case_value(rank, i) : NAN;
    const Device *dev = v.c->dev;
    v.buf = guarded(dev, v.total);
    dev->upload(v.buf, v.host, v.total * sizeof(float));
    if (fn(v.c, v.buf, counts, err))
        return -1;
    if (!guard_ok(dev, v.buf, v.total))
        return detailed ? error_set(err, "rank %d wrote past the end of buf (%zu floats)",
                                    rank, v.total)
                        : error_set(err, "rank %d wrote past the end of buf", rank);
    dev->download(v.host, v.buf, v.total * sizeof(float));
    for (int q = 0; q < size; q++)
        for (size_t i = v.start[q]; i < v.start[q + 1]; i++) {
            if (v.host[i] == case_value(q, i))
                continue;
            if (detailed)
                return error_set(err,
                                 "rank %d: element %zu (chunk %d, which starts at %zu) is "
                                 "%g, expected %g",
                                 rank, i, q, v.start[q], v.host[i], case_value(q, i));
            return error_set(err, "rank %d: element %zu (chunk %d) is %g, expected %g",
                             rank, i, q, v.host[i], case_value(q, i));
        }
    if (v_ring_only(&v, 0, err))
        return -1;
    size_t expect = (v.total - counts[(rank + 1) % size]) * sizeof(float);
    if (bytes && size > 1 && v.w.bytes != expect)
        return error_set(err,
                         "rank %d sent %zu bytes, expected %zu: every chunk once, except "
                         "the next rank's own",
                         rank, v.w.bytes, expect);
    v_close(&v);
    return 0;
}

/* In a rank: the communicator of the test's world, one call over @p counts, checked as
 * v_reduce_scatter says (public wording); the communicator closed. */
static inline int v_reduce_scatter_rank(int rank, ReduceScatterV fn, const size_t *counts,
                                        char *err)
{
    Comm *inner = rank_comm(rank, err);
    if (!inner || v_reduce_scatter(inner, fn, counts, 0, 0, err))
        return -1;
    inner->close(inner);
    return 0;
}

/* The same with v_all_gather. */
static inline int v_all_gather_rank(int rank, AllGatherV fn, const size_t *counts,
                                    int detailed, int bytes, char *err)
{
    Comm *inner = rank_comm(rank, err);
    if (!inner || v_all_gather(inner, fn, counts, detailed, bytes, err))
        return -1;
    inner->close(inner);
    return 0;
}

/* A public test's case: N ranks and their counts. */
typedef struct VCase {
    int n;
    size_t counts[8];
} VCase;

/* The public tests' launch of fn on k's ranks: waits of 30 s, 60 s in all; a failure names
 * the counts. */
static inline void v_run(const VCase *k, RankMain fn)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(k->n, 0, 30, fn, (void *)k, 60, err) == 0,
              "N = %d, counts %zu %zu %zu %zu %zu: %s", k->n, k->counts[0], k->counts[1],
              k->counts[2], k->counts[3], k->counts[4], err);
}

#endif
