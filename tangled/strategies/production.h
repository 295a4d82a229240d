/**
 * @file production.h
 * @brief What the production strategies' files offer beside their rows: the transport's own
 *        all-reduce as a strategy, the GPU count, DataParallel's run (chapter 6).
 */
#ifndef DPS_PRODUCTION_H
#define DPS_PRODUCTION_H

#include <stdbool.h>

#include "comm.h"
#include "data.h"
#include "model.h"
#include "train.h"

/** The native strategy's data. */
typedef struct NativeState {
    Comm *c;    /**< a communicator with an allreduce (MPI) */
    Comm *host; /**< host memory beside it */
} NativeState;

/**
 * Make @p s the strategy that averages the gradients with @p c's own allreduce
 * (MPI_Allreduce). Returns 0, or -1 with @p err when @p c has none.
 */
int native_strategy(Strategy *s, NativeState *st, Comm *c, Comm *host, char *err);

/**
 * Train @p replicas copies of a model in one process, DataParallel-style: every step
 * each replica's thread takes its share of the global batch (scatter), computes its
 * gradients; replica 0 adds them up (gather), steps, and the others copy its weights
 * (replicate). @p build makes one replica; @p master receives replica 0 and its result.
 * Returns 0, or -1 with @p err.
 */
int data_parallel_run(const TrainConfig *cfg, int replicas, const Dataset *train,
                      const Dataset *test, int (*build)(Model *m, void *arg, char *err),
                      void *build_arg, Model *master, TrainResult *res, char *err);

#endif
