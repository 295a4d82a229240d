/* Chapter 6's exercises: the functions you write. See the end of chapter 6 in the book
 * (make book) for what each must do and how it is tested.
 *
 * Besides the C library, an exercise may call only error_set() and xcalloc() of the book's
 * library and the members of the Comm or the Device it is handed: tests/grade.sh refuses
 * any other call, naming it. The other declarations of the headers included here are the
 * book's, for the types and for reading.
 */
#ifndef DPS_EX_CH6_H
#define DPS_EX_CH6_H

#include <stddef.h>
#include <stdint.h>

#include "buckets.h"
#include "collectives.h"
#include "comm.h"
#include "util.h"

/* 6.1: buckets chosen by the cost model. Backward finishes the layers from the last
 * (n_layers - 1) to the first (0): layer l's gradients are final at time ready[l], so
 * ready[n_layers - 1] <= ... <= ready[0]. A bucket is a run of consecutive layers; its
 * all-reduce takes alpha + beta * bytes (4 bytes a float of its layers). The all-reduces run
 * one at a time, the bucket of the last layers first: each starts as soon as its lowest
 * layer is ready and the all-reduce before it has ended. Choose the buckets so that the last
 * all-reduce ends as early as it can: set bucket_of[l] to layer l's bucket (bucket 0 holds
 * layer n_layers - 1, as bucket_assign numbers them), *end to the time the last all-reduce
 * ends, and return the number of buckets. n_layers >= 1; alpha, beta and the times are >= 0;
 * of several equally early choices, any. */
int ddp_buckets(const size_t *layer_floats, const double *ready, int n_layers, double alpha,
                double beta, int *bucket_of, double *end);

/* 6.2: fp16 gradient compression, rounded stochastically: h[i] = x[i] as an IEEE 754 half
 * (binary16), rounded up or down by the 16-bit noise[i]. For finite x, a = |x|; s is the
 * spacing of halves in a's binade: 2^(e - 10), e = floor(log2 a), for a >= 2^-14, and 2^-24
 * below (the subnormals); q = floor(a / s) and f = a / s - q (in [0, 1)). The magnitude is
 * (q + 1) * s when noise[i] < f * 65536 (compared exactly), else q * s; 65536 (2^16) or
 * more is infinity. The sign is kept (-0 stays -0; a negative value rounded to 0 is -0).
 * Infinities stay infinities of the same sign; a NaN becomes a NaN (any NaN half). So a
 * half comes back exactly for any noise, and with uniform noise a value rounds up with
 * probability f (to within 1/65536). */
void fp16_encode(const float *x, const uint16_t *noise, uint16_t *h, size_t n);

/* 6.3: hierarchical local SGD, scheduled as PyTorch's HierarchicalModelAverager schedules it.
 * Level i (0 <= i < levels) averages every periods[i] steps within groups of sizes[i]
 * consecutive ranks: the group of rank r is the ranks [r - r % g, r - r % g + g), g =
 * sizes[i]. Called once after every local step, step counting the calls from 0: when step >=
 * warmup and a period divides step, the level with the largest such period averages (its
 * groups hold the smaller levels' groups, which need not average too); at any other step
 * nothing is sent and params is left alone. Averaging replaces params[0..n) on every rank of
 * a group by the mean over the group (within float rounding of the mean computed in double),
 * the same bits on every rank of the group. A rank sends only to ranks of its group, at most
 * 2 (g - 1) chunk_max(n, g) floats in all. params and scratch hold n floats on c's device.
 * The levels must be: levels >= 1, 1 <= periods[0] < periods[1] < ..., sizes[i] >= 1 and
 * dividing sizes[i + 1], sizes[levels - 1] == c->size, and warmup >= 0. Returns 0, or -1 with
 * err: levels that are not so, refused before anything is sent with "level" in err (or
 * "warmup"), or the comm's error. */
int local_sgd_sync(Comm *c, float *params, size_t n, long step, long warmup, const int *periods,
                   const int *sizes, int levels, float *scratch, char *err);

#endif
