/**
 * @file ring_strategy.h
 * @brief Data-parallel training with the ring all-reduce (chapter 5).
 */
#ifndef DPS_RING_STRATEGY_H
#define DPS_RING_STRATEGY_H

#include "comm.h"
#include "train.h"

/** The ring strategy's data. */
typedef struct RingState {
    Comm *c;        /**< the communicator of the gradients (the model's device) */
    Comm *host;     /**< a host communicator beside it, for the epoch's figures */
    float *scratch; /**< chunk_max(n_params, N) floats on the device */
} RingState;

/**
 * Make @p s the ring strategy over @p c (gradients) and @p host (figures) for a model
 * of @p n_params parameters; @p st holds its data until ring_strategy_free().
 */
void ring_strategy(Strategy *s, RingState *st, Comm *c, Comm *host, size_t n_params);
/** Fill @p st for a strategy of its own: @p c, @p host, a scratch of @p scratch_floats. */
void ring_state(RingState *st, Comm *c, Comm *host, size_t scratch_floats);
/** The ring's sum_stats, for any strategy whose state begins with a RingState. */
int ring_sum_stats(Strategy *s, double *v, int n, char *err);
/** Free what ring_state() allocated. */
void ring_strategy_free(RingState *st);

#endif
