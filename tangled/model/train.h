/**
 * @file train.h
 * @brief The training loop shared by every program, parameterised by a strategy.
 */
#ifndef DPS_TRAIN_H
#define DPS_TRAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "data.h"
#include "model.h"
#include "optimizer.h"
#include "report.h"

/** The figures train_run() sums over the ranks after each epoch with sum_stats(): the
 * summed loss, the right answers on the training set, and those on the test set. */
#define TRAIN_STATS 3
/** How ranks make their gradients agree (see struct Strategy). */
typedef struct Strategy Strategy;
/** Which pass a strategy's layer hooks are called in (chapter 7). */
typedef enum Pass {
    PASS_FORWARD,  /**< a training forward, which backward follows */
    PASS_EVAL,     /**< an evaluation's forward: no backward follows */
    PASS_BACKWARD, /**< backward */
} Pass;
/** How ranks make their gradients agree. */
struct Strategy {
    int rank;  /**< this rank, 0 .. world-1 */
    int world; /**< N: data-parallel ranks */
    /** Leave the mean of all ranks' gradients in m->grads on every rank. */
    int (*sync_gradients)(Strategy *s, Model *m, Timers *t, char *err);
    /** Replace v[0..n) by its sum over all ranks. */
    int (*sum_stats)(Strategy *s, double *v, int n, char *err);
    /** Update the weights with @p opt from the synced gradients, or NULL: opt's own step. */
    int (*update)(Strategy *s, Model *m, Optimizer *opt, Timers *t, char *err);
    /** Optional (chapter 6): layer @p layer's gradients are final (last to first). */
    int (*grads_ready)(Strategy *s, Model *m, int layer, char *err);
    bool shards_state;  /**< the rank keeps optimizer state for a range only (chapter 7) */
    size_t state_lo;    /**< that range's first parameter */
    size_t state_hi;    /**< one past its last */
    size_t param_bytes; /**< bytes it keeps of parameters, buffers included; 0: the model's */
    size_t grad_bytes;  /**< bytes it keeps of gradients, likewise */
    /** Optional (chapter 7): before layer @p l's part of @p pass (gather its parameters). */
    int (*before_layer)(Strategy *s, Model *m, int l, Pass pass, char *err);
    /** Optional (chapter 7): after layer @p l's part of @p pass (let its parameters go). */
    int (*after_layer)(Strategy *s, Model *m, int l, Pass pass, char *err);
    /** Optional (chapter 7): after the last epoch, put every parameter back in m->params. */
    int (*unshard)(Strategy *s, Model *m, char *err);
    bool mute; /**< chapter 11: prints nothing (another rank of its row does) */
    /** Chapter 8: what the banner calls what runs, if not the row's title; or NULL. */
    const char *runs;
    void *state; /**< the strategy's own data */
};

/** What a training run is asked to do. */
typedef struct TrainConfig {
    int batch_size;                  /**< b: samples per step on each rank */
    int epochs;                      /**< passes over the training set */
    float lr;                        /**< the learning rate */
    OptimizerConfig optimizer;       /**< the update; zero: plain SGD */
    int accum;                       /**< micro-batches per step; 0 or 1: one */
    float loss_scale;                /**< fp16's first loss scale; 0: none (chapter 10) */
    int scale_window;                /**< clean steps before the scale doubles (chapter 10) */
    uint64_t seed;                   /**< seeds the shuffles */
    bool quiet;                      /**< print nothing per epoch */
    FILE *out;                       /**< where rank 0 prints (stdout), or NULL for nothing */
    FILE *log;                       /**< CSV log, or NULL */
    const char *checkpoint;          /**< write a checkpoint here after every epoch, or NULL */
    const struct Checkpoint *resume; /**< continue from this checkpoint, or NULL */
    /** Says what the loop is doing (a supervisor shows it when a rank dies), or NULL. */
    void (*phase)(const char *fmt, ...);
} TrainConfig;

/** What a training run reports. */
typedef struct TrainResult {
    EpochStats last;        /**< the final epoch's figures */
    Timers timers;          /**< time per phase, summed over the run */
    long steps;             /**< steps per epoch */
    long dropped;           /**< training samples left out of each epoch (last partial batch) */
    size_t state_bytes;     /**< the rank's parameters, gradients and optimizer state */
    size_t param_bytes;     /**< of which the parameters (with any buffers they pass through) */
    size_t grad_bytes;      /**< the gradients, likewise */
    size_t optimizer_bytes; /**< the optimizer's state */
    long skipped;           /**< steps skipped because the gradient overflowed (chapter 10) */
    float last_scale;       /**< the loss scale at the end; 0: none (chapter 10) */
} TrainResult;

/** Steps in one epoch: whole global batches of world * batch_size samples. */
long train_steps_per_epoch(long n_train, int batch_size, int world);
/**
 * Train @p m on @p train, evaluating on @p test after every epoch. @p s may be
 * NULL for one device. Returns 0, or -1 with the reason in @p err.
 */
int train_run(const TrainConfig *cfg, Model *m, const Dataset *train, const Dataset *test,
              Strategy *s, TrainResult *res, char *err);
/**
 * Count the samples of rank @p rank's share of @p d (of @p world shares) that @p m classifies
 * right, adding the count to *right. @p s (or NULL) is the rank's strategy, whose layer hooks
 * forward calls (chapter 7). Returns 0, or -1 with @p err.
 */
int evaluate(Model *m, Strategy *s, const Dataset *d, int world, int rank, double *right,
             char *err);
/** A run's last words: with @p quiet the one final line, otherwise the time breakdown. */
void train_report_end(FILE *f, const TrainResult *res, bool quiet);
/** Dynamic loss scaling (chapter 10). */
typedef struct LossScale {
    bool on;      /**< scaling at all */
    float scale;  /**< S: the loss's gradient is multiplied by it */
    int window;   /**< W: clean steps before S doubles */
    int clean;    /**< clean steps since S last changed */
    long skipped; /**< steps skipped, over the run */
} LossScale;
/** Start at @p first (0: off), doubling after @p window clean steps. */
void loss_scale_init(LossScale *ls, float first, int window);
/**
 * After the all-reduce: true when grads[0..n) holds an infinity or a NaN, and the step
 * must be skipped (S halves); otherwise divide grads by S and return false.
 */
bool loss_scale_check(LossScale *ls, const Device *dev, float *grads, size_t n);

#endif
