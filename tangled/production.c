#line 950 "chapters/06-production.nw"
/**
 * @file production.c
 * @brief MPI_Allreduce and NCCL as strategies; one process driving every replica.
 */
#include "production.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nccl_backend.h"
#include "ring_strategy.h"
#include "util.h"

static int native_sync(Strategy *s, Model *m, Timers *t, char *err)
{
    NativeState *st = s->state;
    double t0 = now_seconds();
    if (st->c->allreduce(st->c, m->grads, m->n_params, err))
        return -1;
    if (st->c->size > 1)
        m->dev->scale(m->n_params, 1.0f / (float)st->c->size, m->grads);
    m->dev->sync();
    timers_add(t, "all-reduce", now_seconds() - t0);
    return 0;
}

static int native_stats(Strategy *s, double *v, int n, char *err)
{
    return ring_sum_doubles(((NativeState *)s->state)->host, v, n, err);
}

int native_strategy(Strategy *s, NativeState *st, Comm *c, Comm *host, char *err)
{
    if (!c->allreduce)
        return error_set(err, "the %s transport has no all-reduce of its own: --strategy mpi "
                         "runs under mpirun with --transport mpi", c->name);
    st->c = c;
    st->host = host;
    *s = (Strategy){.name = c->name, .rank = c->rank, .world = c->size,
                    .sync_gradients = native_sync, .sum_stats = native_stats, .state = st};
    return 0;
}
#line 1020 "chapters/06-production.nw"
int gpu_count(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        char note[ERR_LEN], err[ERR_LEN];
        const Device *d = device_open("cuda", 0, note, err);
        _exit(d ? (d->count > 255 ? 255 : d->count) : 0);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 0;
    return WEXITSTATUS(status);
}

#line 1168 "chapters/06-production.nw"
/** NCCL's table, once it is loaded: the one piece of state the loader keeps. */
static const NcclOps *nccl_loaded;

/** NCCL's table, loaded the first time; NULL with the reason in @p err when it cannot be. */
static const NcclOps *nccl_ops(char *err)
{
    if (nccl_loaded)
        return nccl_loaded;
    char why[ERR_LEN];
    NcclOpsFn ops;
    *(void **)&ops = backend_entry(NCCL_BACKEND, NCCL_ENTRY, why);
    if (!ops) {
        error_set(err, "NCCL could not be loaded (%.400s)", why);
        return NULL;
    }
    return nccl_loaded = ops();
}

#line 1036 "chapters/06-production.nw"
int nccl_all_reduce(NcclState *st, float *buf, size_t count, bool mean, char *err)
{
    const NcclOps *nccl = nccl_ops(err);
    if (!nccl)
        return -1;
    return nccl->all_reduce(st->comm, st->stream, buf, count, mean, err);
}

int nccl_open(NcclState *st, Comm *host, const Device *dev, char *err)
{
    memset(st, 0, sizeof *st);
#ifndef HAVE_NCCL
    return error_set(err, "NCCL: this build has no NCCL (it needs the CUDA toolkit with nccl.h)");
#endif
    if (dev->kind != DEVICE_CUDA)
        return error_set(err, "NCCL moves GPU memory, and the buffers are on the CPU: use "
                         "--device cuda");
    if (host->size > dev->count)
        return error_set(err, "NCCL: %d ranks on %d GPU%s: NCCL needs one GPU per rank",
                         host->size, dev->count, dev->count == 1 ? "" : "s");
    const NcclOps *nccl = nccl_ops(err); /* loaded only now that it can be used */
    if (!nccl)
        return -1;
    
#line 1105 "chapters/06-production.nw"
unsigned char id[NCCL_ID_BYTES] = {0};
if (host->rank == 0) {
    if (nccl->unique_id(id, err))
        return -1;
    for (int q = 1; q < host->size; q++)
        if (host->send(host, q, id, sizeof id, err))
            return -1;
} else if (host->recv(host, 0, id, sizeof id, err)) {
    return -1;
}
#line 1060 "chapters/06-production.nw"
    if (nccl->init(&st->comm, &st->stream, host->size, id, host->rank, err))
        return -1;
    st->host = host;
    return 0;
}

static int nccl_sync(Strategy *s, Model *m, Timers *t, char *err)
{
    double t0 = now_seconds();
    if (nccl_all_reduce(s->state, m->grads, m->n_params, true, err))
        return -1;
    timers_add(t, "all-reduce", now_seconds() - t0);
    return 0;
}

static int nccl_stats(Strategy *s, double *v, int n, char *err)
{
    return ring_sum_doubles(((NcclState *)s->state)->host, v, n, err);
}

int nccl_strategy(Strategy *s, NcclState *st, Comm *host, const Device *dev, char *err)
{
    char why[ERR_LEN];
    if (nccl_open(st, host, dev, why))
        return error_set(err, "--strategy nccl: %.200s", why);
    *s = (Strategy){.name = "nccl", .rank = host->rank, .world = host->size,
                    .sync_gradients = nccl_sync, .sum_stats = nccl_stats, .state = st};
    return 0;
}

void nccl_strategy_free(NcclState *st)
{
    char err[ERR_LEN];
    const NcclOps *nccl = st->comm ? nccl_ops(err) : NULL;
    if (nccl)
        nccl->close(st->comm, st->stream);
    memset(st, 0, sizeof *st);
}
#line 1281 "chapters/06-production.nw"
/** Most figures dp_stats() sums: train_run()'s. */
#define DP_STATS TRAIN_STATS

/** What the replicas of one process share. */
typedef struct DpShared {
    int n;                   /**< replicas */
    Model *models;           /**< models[0] is the master */
    pthread_barrier_t bar;   /**< every step's meeting points */
    double stats[MAX_RANKS][DP_STATS]; /**< each replica's epoch figures */
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

/** The master steps; then every other replica copies its weights (replicate). */
static int dp_update(Strategy *s, Model *m, float lr, Timers *t, char *err)
{
    (void)err;
    DpShared *sh = ((DpReplica *)s->state)->sh;
    double t0 = now_seconds(), t1;
    if (s->rank == 0)
        model_sgd_step(m, lr);
    timers_add(t, "update", (t1 = now_seconds()) - t0);
    pthread_barrier_wait(&sh->bar);
    if (s->rank != 0)
        m->dev->copy(m->params, sh->models[0].params, m->n_params * sizeof(float));
    timers_add(t, "replicate", now_seconds() - t1);
    return 0;
}

/** Sum the replicas' figures, in replica order, so every replica gets the same bits. */
static int dp_stats(Strategy *s, double *v, int n, char *err)
{
    DpShared *sh = ((DpReplica *)s->state)->sh;
    if (n > DP_STATS) /* the same n on every replica: all return before any barrier */
        return error_set(err, "data_parallel: %d figures to sum, at most %d", n, DP_STATS);
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

static void *dp_thread(void *arg)
{
    DpReplica *r = arg;
    Strategy s = {.name = "data_parallel", .rank = r->rank, .world = r->sh->n,
                  .sync_gradients = dp_gather, .sum_stats = dp_stats, .update = dp_update,
                  .state = r};
    TrainConfig cfg = *r->cfg;
    if (r->rank != 0)
        cfg.out = NULL, cfg.log = NULL;
    r->rc = train_run(&cfg, &r->sh->models[r->rank], r->train, r->test, &s, &r->res, r->err);
    return NULL;
}
#line 1374 "chapters/06-production.nw"
int data_parallel_run(const TrainConfig *cfg, int replicas, const Dataset *train,
                      const Dataset *test,
                      int (*build)(Model *m, void *arg, char *err), void *build_arg,
                      Model *master, TrainResult *res, char *err)
{
    if (replicas < 1 || replicas > MAX_RANKS)
        return error_set(err, "data_parallel: %d replicas (1 to %d)", replicas, MAX_RANKS);
    DpShared *sh = xcalloc(1, sizeof *sh);
    DpReplica *rep = xcalloc((size_t)replicas, sizeof *rep);
    pthread_t *th = xcalloc((size_t)replicas, sizeof *th);
    sh->n = replicas;
    sh->models = xcalloc((size_t)replicas, sizeof *sh->models);
    int rc = 0, started = 0;
    for (int q = 0; q < replicas && rc == 0; q++)
        rc = build(&sh->models[q], build_arg, err);
    pthread_barrier_init(&sh->bar, NULL, (unsigned)replicas);
    for (int q = 0; q < replicas && rc == 0; q++, started++) {
        rep[q] = (DpReplica){.sh = sh, .rank = q, .cfg = cfg, .train = train, .test = test};
        if (pthread_create(&th[q], NULL, dp_thread, &rep[q]) != 0)
            fatal("data_parallel: cannot start replica %d's thread", q);
    }
    for (int q = 0; q < started; q++)
        pthread_join(th[q], NULL);
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
    return rc;
}
