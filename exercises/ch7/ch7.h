/* Chapter 7's exercises: the functions you write. See the end of chapter 7 in the book
 * (make book) for what each must do and how it is tested.
 *
 * Besides the C library, an exercise may call only error_set() and xcalloc() of the book's
 * library and the members of the Comm or the Device it is handed: tests/grade.sh refuses
 * any other call, naming it. The other declarations of the headers included here are the
 * book's, for the types and for reading.
 */
#ifndef DPS_EX_CH7_H
#define DPS_EX_CH7_H

#include <stddef.h>

#include "collectives.h"
#include "comm.h"
#include "util.h"

/* 7.1: what rank `rank` of `ranks` keeps, in bytes, under ZeRO stage `stage` (0: plain data
 * parallelism, 1: optimizer state sharded, 2: gradients too, 3: parameters too), for a model
 * of `n_params` 32-bit parameters and an optimizer of `state_floats` floats per parameter
 * (0 SGD, 1 momentum, 2 AdamW). What is sharded is the rank's chunk of chunk_start()'s
 * split (collectives.h), whole floats; what is not is all n_params. Returns 0 for a stage
 * outside 0..3, a rank outside 0..ranks-1, or ranks < 1. */
size_t zero_state_bytes(int stage, size_t n_params, int ranks, int rank, int state_floats);

/* 7.2: clip sharded gradients by their global norm, as torch.nn.utils.clip_grad_norm_:
 * every rank of c holds the final gradient of its chunk, grads[0..n) on the host (n may
 * differ between ranks, and may be 0). The global norm is the square root of the sum over
 * all ranks of the squares of their elements, summed in double, each rank's sum first and
 * then the ranks' sums in rank order, so that every rank gets the same bits; *norm receives
 * it on every rank. When norm > max_norm, every element is multiplied by the float
 * max_norm / (norm + 1e-6); otherwise nothing changes. Returns 0, or -1 with err (max_norm
 * not positive, or the comm's error). */
int clip_grad_norm_sharded(Comm *c, float *grads, size_t n, double max_norm, double *norm,
                           char *err);

/* 7.3: FSDP's schedule for one step of a model of n_layers layers (1 or more), with the
 * all-gather of the next layer's parameters prefetched while the current one computes.
 * Writes the events in order into ev (room for max events) and returns their number, or -1
 * when max is too small (n_layers < 1: 0 events). The rules are in the book (Exercise 7.3). */
typedef enum FsdpOp {
    FSDP_GATHER,  /* all-gather layer's parameters (start it: it may overlap what follows) */
    FSDP_WAIT,    /* wait for layer's gather to finish */
    FSDP_FORWARD, /* layer's forward */
    FSDP_BACKWARD,/* layer's backward */
    FSDP_SCATTER, /* reduce-scatter layer's gradients */
    FSDP_FREE,    /* free layer's gathered parameters */
} FsdpOp;
typedef struct FsdpEvent {
    FsdpOp op;
    int layer;
} FsdpEvent;
int fsdp_schedule(int n_layers, FsdpEvent *ev, int max);

#endif
