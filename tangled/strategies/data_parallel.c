/**
 * @file data_parallel.c
 * @brief One process driving every replica, as torch.nn.DataParallel (chapter 6).
 */
#line 2621 "chapters/06-production.nw"
#include "production.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "report.h"
#include "strategy.h"
#include "util.h"

#line 2664 "chapters/06-production.nw"
/** Most figures dp_stats() sums: train_run()'s. */
#define DP_STATS TRAIN_STATS

/** What the replicas of one process share. */
typedef struct DpShared {
    int n;                                    /**< replicas */
    Model *models;                            /**< models[0] is the master */
    pthread_barrier_t bar;                    /**< every step's meeting points */
    double stats[LAUNCH_MAX_RANKS][DP_STATS]; /**< each replica's epoch figures */
} DpShared;

/** One replica: its thread's arguments and results. */
typedef struct DpReplica {
    DpShared *sh;           /**< what the replicas share */
    int rank;               /**< this replica, 0 .. n-1 */
    const TrainConfig *cfg; /**< the run */
    const Dataset *train;   /**< training set */
    const Dataset *test;    /**< test set */
    TrainResult res;        /**< its result */
    int rc;                 /**< train_run's return */
    char err[ERR_LEN];      /**< and its reason */
} DpReplica;

#line 2697 "chapters/06-production.nw"
/** Gather: wait for every replica's gradients; the master adds them and takes the mean. */
static int dp_gather(Strategy *s, Model *m, Timers *t, char *err)
{
    (void)err;
    DpShared *sh = ((DpReplica *)s->state)->sh;
    double t0 = now_seconds(), t1;
    pthread_barrier_wait(&sh->bar);
    timers_add(t, "wait", (t1 = now_seconds()) - t0);
    if (s->rank == 0) {
        for (int q = 1; q < sh->n; q++)
            m->dev->axpy(m->n_params, 1.0f, sh->models[q].grads, m->grads);
        m->dev->scale(m->n_params, 1.0f / (float)sh->n, m->grads);
        timers_add(t, "gather", now_seconds() - t1);
    }
    return 0;
}

#line 2726 "chapters/06-production.nw"
/** The master steps; then every other replica copies its weights (replicate). */
static int dp_update(Strategy *s, Model *m, Optimizer *opt, Timers *t, char *err)
{
    (void)err;
    DpShared *sh = ((DpReplica *)s->state)->sh;
    double t0 = now_seconds(), t1;
    if (s->rank == 0)
        optimizer_step(opt, m->params, m->grads);
    timers_add(t, "update", (t1 = now_seconds()) - t0);
    pthread_barrier_wait(&sh->bar);
    if (s->rank != 0)
        m->dev->copy(m->params, sh->models[0].params, m->n_params * sizeof(float));
    timers_add(t, "replicate", now_seconds() - t1);
    return 0;
}

#line 2754 "chapters/06-production.nw"
/** Sum the replicas' figures, in replica order, so every replica gets the same bits. */
static int dp_stats(Strategy *s, double *v, int n, char *err)
{
    DpShared *sh = ((DpReplica *)s->state)->sh;
    if (n > DP_STATS) /* the same n on every replica: all return before any barrier */
        return error_set(err, "data_parallel: %d figures to sum, at most %d", n, DP_STATS);
#line 2761 "chapters/06-production.nw"
    memcpy(sh->stats[s->rank], v, (size_t)n * sizeof *v);
    pthread_barrier_wait(&sh->bar);
    for (int i = 0; i < n; i++) {
        v[i] = 0;
        for (int q = 0; q < sh->n; q++)
            v[i] += sh->stats[q][i];
    }
    pthread_barrier_wait(&sh->bar);
    return 0;
}

#line 2781 "chapters/06-production.nw"
static void *dp_thread(void *arg)
{
    DpReplica *r = arg;
    Strategy s = {.rank = r->rank,
                  .world = r->sh->n,
                  .sync_gradients = dp_gather,
                  .sum_stats = dp_stats,
                  .update = dp_update,
                  .state = r};
#line 2787 "chapters/06-production.nw"
    TrainConfig cfg = *r->cfg;
    if (r->rank != 0)
        cfg.out = NULL, cfg.log = NULL;
    r->rc = train_run(&cfg, &r->sh->models[r->rank], r->train, r->test, &s, &r->res, r->err);
#line 2792 "chapters/06-production.nw"
    return NULL;
}
#line 2806 "chapters/06-production.nw"
int data_parallel_run(const TrainConfig *cfg, int replicas, const Dataset *train,
                      const Dataset *test, int (*build)(Model *m, void *arg, char *err),
                      void *build_arg, Model *master, TrainResult *res, char *err)
{
#line 2811 "chapters/06-production.nw"
    if (replicas < 1 || replicas > LAUNCH_MAX_RANKS)
        return error_set(err, "data_parallel: %d replicas (1 to %d)", replicas,
                         LAUNCH_MAX_RANKS);
#line 2831 "chapters/06-production.nw"
    DpShared *sh = xcalloc(1, sizeof *sh);
    DpReplica *rep = xcalloc((size_t)replicas, sizeof *rep);
    pthread_t *th = xcalloc((size_t)replicas, sizeof *th);
    sh->n = replicas;
    sh->models = xcalloc((size_t)replicas, sizeof *sh->models);
    int rc = 0, started = 0;
    for (int q = 0; q < replicas && rc == 0; q++)
        rc = build(&sh->models[q], build_arg, err);
#line 2850 "chapters/06-production.nw"
    pthread_barrier_init(&sh->bar, NULL, (unsigned)replicas);
    for (int q = 0; q < replicas && rc == 0; q++, started++) {
        rep[q] = (DpReplica){.sh = sh, .rank = q, .cfg = cfg, .train = train, .test = test};
        if (pthread_create(&th[q], NULL, dp_thread, &rep[q]) != 0)
            fatal("data_parallel: cannot start replica %d's thread", q);
    }
    for (int q = 0; q < started; q++)
        pthread_join(th[q], NULL);
#line 2869 "chapters/06-production.nw"
    for (int q = 0; q < started && rc == 0; q++)
        if (rep[q].rc)
            rc = error_set(err, "replica %d: %s", q, rep[q].err);
    if (rc == 0) {
        *res = rep[0].res;
        *master = sh->models[0];
    }
    for (int q = rc == 0 ? 1 : 0; q < replicas; q++)
        model_free(&sh->models[q]);
    pthread_barrier_destroy(&sh->bar);
    free(sh->models);
    free(sh);
    free(rep);
    free(th);
#line 2817 "chapters/06-production.nw"
    return rc;
}
#line 3289 "chapters/06-production.nw"
static void dp_traffic(char *line, size_t len, int ranks, size_t bytes)
{
    char b[32];
    snprintf(line, len, "%s into and out of replica 0 per step (gather, replicate)",
             format_bytes(b, 2 * (size_t)(ranks - 1) * bytes));
}

const StrategyDef strategy_data_parallel = {
    .name = "data_parallel",
    .title = "DataParallel",
    .trainer = "rank",
    .shape = SHAPE_THREADS,
    .needs = CPU_ONLY,
    .min_ranks = 1,
    .no_codec = "its replicas share one process: no gradient travels",
    .traffic = dp_traffic,
    .threads = data_parallel_run,
};
