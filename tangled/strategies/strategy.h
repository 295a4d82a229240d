/**
 * @file strategy.h
 * @brief A training strategy as one row of a table: what it needs, how its ranks run,
 *        how a rank opens and closes it (chapters 3, 5 and 6).
 */
#ifndef DPS_STRATEGY_H
#define DPS_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "comm.h"
#include "data.h"
#include "grad_codec.h"
#include "model.h"
#include "train.h"

/** What a strategy needs or allows, as bits of StrategyDef.needs. */
enum StrategyNeeds {
    RUNS_OVER_MPI = 1u << 0,  /**< it runs over --transport mpi too */
    NEEDS_MPI = 1u << 1,      /**< only over MPI (MPI_Allreduce) */
    NEEDS_GPUS = 1u << 2,     /**< one GPU per rank (NCCL) */
    CPU_ONLY = 1u << 3,       /**< CPU replicas only (DataParallel) */
    USES_BUCKETS = 1u << 4,   /**< --bucket_mb applies */
    SHARDS_STATE = 1u << 5,   /**< keeps the optimizer's state for its chunk (chapter 7) */
    SHARDS_PARAMS = 1u << 6,  /**< keeps only a part of each layer's parameters (chapter 7) */
    SGD_ONLY = 1u << 7,       /**< plain SGD only: a server's update (chapter 7) */
    NO_ACCUM = 1u << 8,       /**< one push per step: no --accum (chapter 7) */
    NO_CHECKPOINT = 1u << 9,  /**< no whole weights between steps, no --checkpoint (ch. 7) */
    USES_HOSTS = 1u << 10,    /**< groups ranks by host, --ranks_per_host applies (ch. 9) */
    CARRIES_CODEC = 1u << 11, /**< --grad_dtype and --compress apply (chapter 10) */
    CARRIES_DTYPE = 1u << 12, /**< --grad_dtype applies, --compress not (chapter 10) */
};

/** How a strategy's ranks are processes. */
typedef enum Shape {
    SHAPE_RANKS,   /**< one process per rank: forked, or mpirun's */
    SHAPE_ONE,     /**< one process, one device, no communicator */
    SHAPE_THREADS, /**< one process driving every replica (chapter 6's DataParallel) */
} Shape;
/** What a rank opens its strategy with. */
typedef struct StrategyEnv {
    Comm *c;             /**< the rank's communicator */
    Comm *host;          /**< host messages beside it */
    Model *m;            /**< the rank's replica (its device is m->dev) */
    size_t bucket_bytes; /**< the bucket cap of ring_bucketed (chapter 6) */
    int accum;           /**< the run's micro-batches per step (chapter 7) */
    int ranks_per_host;  /**< pretend hosts of that many ranks; 0: real (chapter 9) */
    int tp;              /**< ranks each layer pair is split across; 0: all (chapter 11) */
    GradCodec codec;     /**< how the gradient travels (chapter 10) */
} StrategyEnv;

/** Builds one replica for a strategy that drives them all (SHAPE_THREADS). */
typedef int (*ReplicaBuilder)(Model *m, void *arg, char *err);
/** One row of the strategy table. */
typedef struct StrategyDef {
    const char *name;     /**< its --strategy value */
    const char *title;    /**< what the banner calls it: "ring all-reduce" */
    const char *trainer;  /**< what a training rank is called: "rank", "worker" */
    Shape shape;          /**< how its ranks are processes */
    unsigned needs;       /**< StrategyNeeds bits */
    int servers;          /**< the first ranks serve instead of training */
    int min_ranks;        /**< fewest ranks it runs with ... */
    const char *why_min;  /**< ... and what they are, for the refusal */
    const char *no_codec; /**< why --grad_dtype and --compress do not apply (chapter 10) */
    /** Open the strategy on a rank: fill @p s, allocating its state. 0, or -1 with @p err. */
    int (*open)(Strategy *s, const StrategyEnv *e, char *err);
    /** Free what open() allocated. */
    void (*close)(Strategy *s);
    /** A serving rank's run, in place of train_run(): @p steps steps per epoch. */
    int (*serve)(Strategy *s, Model *m, const TrainConfig *cfg, long steps, char *err);
    /** After the run, rank 0 prints what the strategy measured. */
    void (*report)(const Strategy *s, FILE *f);
    /** The banner's traffic line for @p ranks ranks and @p bytes of gradients. */
    void (*traffic)(char *line, size_t len, int ranks, size_t bytes);
    /** Refuse what only the strategy knows (too few GPUs): 0, or -1 with @p why. */
    int (*check)(int ranks, bool cpu, char *why, size_t len);
    /** SHAPE_THREADS: the whole run, in this process. */
    int (*threads)(const TrainConfig *cfg, int replicas, const Dataset *train,
                   const Dataset *test, ReplicaBuilder build, void *arg, Model *master,
                   TrainResult *res, char *err);
} StrategyDef;
/** The parameter server (chapter 3). */
extern const StrategyDef strategy_ps;
/** The ring all-reduce (chapter 5). */
extern const StrategyDef strategy_ring;
/** The ring all-reduce, bucket by bucket during backward (chapter 6). */
extern const StrategyDef strategy_ring_bucketed;
/** The transport's own all-reduce: MPI_Allreduce (chapter 6). */
extern const StrategyDef strategy_mpi;
/** ncclAllReduce, one GPU per rank (chapter 6). */
extern const StrategyDef strategy_nccl;
/** One process driving every replica, as torch.nn.DataParallel (chapter 6). */
extern const StrategyDef strategy_data_parallel;
/** One device, no communication: ./mlp's run (chapter 6). */
extern const StrategyDef strategy_single;

/** Every row, in the order --help lists them; NULL-terminated. */
extern const StrategyDef *const strategy_table[];
/** The row named @p name, or NULL. */
const StrategyDef *strategy_find(const char *name);
/** The names of the rows whose needs include all of @p needs, joined by @p sep. */
void strategy_names(char *buf, size_t len, unsigned needs, const char *sep);
/** ZeRO-1: the ring's collectives, the optimizer's state sharded (chapter 7). */
extern const StrategyDef strategy_zero1;
/** ZeRO-2: gradients reduce-scattered layer by layer during backward (chapter 7). */
extern const StrategyDef strategy_zero2;
/** FSDP: parameters gathered layer by layer, one ahead (chapter 7). */
extern const StrategyDef strategy_fsdp;
/** The all-reduce that reads the peers' memory, chosen by size (chapter 8). */
extern const StrategyDef strategy_direct;
/** Within each host, then a ring across hosts (chapter 9). */
extern const StrategyDef strategy_hierarchical;
/** Each pair of layers split along a row of ranks, the batch down the columns (ch. 11). */
extern const StrategyDef strategy_tensor;

#endif
