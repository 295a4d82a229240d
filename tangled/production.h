/**
 * @file production.h
 * @brief The production strategies: MPI_Allreduce, NCCL, and DataParallel-style (chapter 6).
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

/** The NCCL strategy's data (NCCL's types stay inside nccl_backend.c). */
typedef struct NcclState {
    Comm *host;   /**< exchanges NCCL's unique id, sums the epoch's figures */
    void *comm;   /**< ncclComm_t */
    void *stream; /**< cudaStream_t: NCCL's stream */
} NcclState;

/**
 * Set NCCL up for the ranks of @p host, one GPU each (a collective call): rank 0 makes the
 * unique id and sends it to the others over @p host. Returns 0, or -1 with @p err: no NCCL
 * in this build, buffers not on a GPU, or more ranks than GPUs.
 */
int nccl_open(NcclState *st, Comm *host, const Device *dev, char *err);
/**
 * Replace buf[0..count) (GPU memory) by its sum over the ranks, or its mean when @p mean,
 * with ncclAllReduce, and wait for it. Returns 0, or -1 with @p err.
 */
int nccl_all_reduce(NcclState *st, float *buf, size_t count, bool mean, char *err);
/**
 * Make @p s the strategy that averages the gradients with ncclAllReduce(ncclAvg), after
 * nccl_open(). Returns 0, or -1 with @p err.
 */
int nccl_strategy(Strategy *s, NcclState *st, Comm *host, const Device *dev, char *err);
/** Free what nccl_strategy() set up. */
void nccl_strategy_free(NcclState *st);
/**
 * The GPUs on this machine, counted in a child process so that this one never touches
 * CUDA before it forks; 0 when none answers or the build has no CUDA.
 */
int gpu_count(void);

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
