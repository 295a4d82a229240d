/* Chapter 3's exercises: the functions you write. See the end of chapter 3 in the book
 * (make book) for what each must do and how it is tested.
 *
 * Besides the C library, an exercise may call only error_set() and xcalloc() of the book's
 * library and the members of the Comm or the Device it is handed: tests/grade.sh refuses
 * any other call, naming it. The other declarations of the headers included here are the
 * book's, for the types and for reading.
 */
#ifndef DPS_EX_CH3_H
#define DPS_EX_CH3_H

#include <stddef.h>

#include "comm.h"
#include "device.h"
#include "util.h"

/* 3.1: out[i] = sum_w counts[w] grads[w][i] / sum_w counts[w] for i < n, on device buffers
 * of dev. A worker with counts[w] == 0 contributes nothing (its buffer may hold anything).
 * Returns 0, or -1 with a message in err when a count is negative or all are 0. */
int ps_weighted_mean(const Device *dev, int workers, float *const *grads, const int *counts,
                     size_t n, float *out, char *err);

/* 3.2: a worker of K server shards (ranks 0..K-1 of c): for k = 0..K-1 send elements
 * [k n / K, (k+1) n / K) of grads to rank k; then for k = 0..K-1 receive the same range of
 * params from rank k. Empty ranges are sent and received as empty messages.
 * Returns 0, or -1 with the comm's error in err. */
int ps_sharded_exchange(Comm *c, int K, const float *grads, float *params, size_t n, char *err);

/* 3.3: one push at an asynchronous server with staleness bound `bound` >= 0. The server's
 * weights params[0..n) (on dev) are at version *version; the gradient grad (on dev) was
 * computed on version grad_version. Its staleness is tau = *version - grad_version.
 * tau > bound: the gradient is dropped (nothing changes) and the result is 0. Otherwise
 * params -= lr / (1 + tau) * grad, *version += 1, and the result is 1.
 * Returns -1 with a message in err, changing nothing, when grad_version is negative or
 * ahead of *version, or bound is negative. */
int ps_async_push(const Device *dev, float *params, long *version, const float *grad, size_t n,
                  long grad_version, int bound, float lr, char *err);

#endif
