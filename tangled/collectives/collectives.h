/**
 * @file collectives.h
 * @brief Collectives over the comm interface: the ring's share-reduce (reduce-scatter,
 * chapter 4), share-only (all-gather) and all-reduce (chapter 5).
 */
#ifndef DPS_COLLECTIVES_H
#define DPS_COLLECTIVES_H

#include <stddef.h>
#include <stdint.h>

#include "comm.h"
#include "model.h"

/** First element of chunk @p k when @p count elements are split among @p size ranks. */
static inline size_t chunk_start(size_t count, int size, int k)
{
    size_t q = count / (size_t)size, m = count % (size_t)size;
    return (size_t)k * q + (size_t)k * m / (size_t)size;
}

/** Elements of the largest chunk: the scratch a reduce-scatter needs. */
static inline size_t chunk_max(size_t count, int size)
{
    return (count + (size_t)size - 1) / (size_t)size;
}

/**
 * Share-reduce (reduce-scatter) in place: afterwards, elements
 * [chunk_start(count, N, r), chunk_start(count, N, r + 1)) of @p buf on rank r hold their
 * sum over all ranks of @p c; the rest of @p buf holds partial sums. @p buf holds @p count
 * floats and @p scratch chunk_max(count, N), both on @p c's device. Every rank must call it
 * with the same @p count. Returns 0, or -1 with the comm's error in @p err.
 */
int ring_reduce_scatter(Comm *c, float *buf, size_t count, float *scratch, char *err);
/** The test value of element @p i on rank @p rank: a small integer, exact in float. */
float collective_value(int rank, size_t i);
/** The sum of collective_value over ranks 0..size-1 at @p i, computed directly. */
double collective_sum(int size, size_t i);
/**
 * Share-only (all-gather) in place: rank r's chunk r of @p buf (@p count elements of
 * @p elem bytes, on @p c's device) is copied into the same place on every rank.
 * Returns 0, or -1 with the comm's error in @p err.
 */
int ring_all_gather(Comm *c, void *buf, size_t count, size_t elem, char *err);
/**
 * The ring all-reduce in place: share-reduce, multiply the owned chunk by @p scale
 * (1 for the sum, 1/N for the mean), share-only. Afterwards every rank holds the same
 * bits. @p scratch holds chunk_max(count, N) floats. Returns 0, or -1 with @p err.
 */
int ring_all_reduce(Comm *c, float *buf, size_t count, float *scratch, float scale, char *err);
/**
 * Divide @p n floats at @p p, a part of a sum over the ranks of @p c, by their number:
 * the sum becomes the mean. Nothing to do on one rank.
 */
void sum_to_mean(Comm *c, float *p, size_t n);
/**
 * Share-reduce of the window [lo, hi) of a vector of @p count floats (chapter 7):
 * @p win holds the window's hi - lo floats; afterwards rank r's chunk of the vector,
 * clipped to the window, holds its sum over all ranks, added in the order of
 * ring_reduce_scatter(). @p scratch holds the largest clipped chunk.
 * Returns 0, or -1 with @p err.
 */
int ring_reduce_scatter_window(Comm *c, float *win, size_t count, size_t lo, size_t hi,
                               float *scratch, char *err);
/**
 * The all-reduces that read the peers' buffers where they lie (chapter 8): @p buf comes
 * from c->alloc_shared() (the same allocation on every rank); afterwards every rank holds
 * @p scale times the sum over the ranks, the same bits on every rank. One-shot needs
 * @p scratch of @p count floats; the others none. 0, or -1 with @p err.
 */
int direct_one_shot(Comm *c, float *buf, size_t count, float *scratch, float scale, char *err);
/** Two-shot: each rank reduces its chunk from every rank's, then writes it into theirs. */
int direct_two_shot(Comm *c, float *buf, size_t count, float *scratch, float scale, char *err);
/** The ring of chapters 4 and 5, reading the neighbour's chunk instead of receiving it. */
int direct_ring(Comm *c, float *buf, size_t count, float *scratch, float scale, char *err);
/** Every rank's copy of @p buf, in rank order, into @p v. 0, or -1 with @p err. */
int direct_copies(Comm *c, float *buf, float **v, char *err);
/** Wait until every peer's progress reaches @p value. 0, or -1 with @p err. */
int direct_wait_all(Comm *c, uint32_t value, char *err);
/** The all-reduces that all_reduce() chooses among (chapter 8). */
typedef enum AllReduceAlgo {
    ALGO_CHANNEL_RING,
    ALGO_ONE_SHOT,
    ALGO_TWO_SHOT,
    ALGO_DIRECT_RING
} AllReduceAlgo;
/** The algorithm all_reduce() would run for @p count floats of @p buf on @p c. */
AllReduceAlgo all_reduce_choice(Comm *c, const float *buf, size_t count);
/** Its name: "channel ring", "one-shot", "two-shot", "direct ring". */
const char *all_reduce_algo_name(AllReduceAlgo a);
/**
 * The book's best all-reduce (chapter 8): one-shot, two-shot or the direct ring on a
 * buffer the peers can read, else the channel ring. @p scratch holds
 * all_reduce_scratch(count, N) floats.
 */
int all_reduce(Comm *c, float *buf, size_t count, float *scratch, float scale, char *err);
/** Floats of scratch all_reduce() needs for @p count floats on @p size ranks. */
size_t all_reduce_scratch(size_t count, int size);
/**
 * Replace v[0..n) on every rank by its sum over the ranks of @p host (host memory),
 * added in rank order, so every rank gets the same bits. Returns 0 or -1 with @p err.
 */
int ring_sum_doubles(Comm *host, double *v, int n, char *err);
/**
 * Hash @p m's weights into *@p hash and compare the hashes of all ranks of @p host (a
 * collective call). Returns 0 when every rank holds the same bits, or -1 with @p err
 * naming a rank that differs.
 */
int replicas_agree(Comm *host, const Model *m, uint64_t *hash, char *err);

#endif
