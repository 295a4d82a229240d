#line 959 "chapters/06-production.nw"
/**
 * @file nccl_strategy.c
 * @brief NCCL's all-reduce as a strategy, and as ./collectives' contender (chapter 6).
 */
#include "production.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nccl_backend.h"
#include "ring_strategy.h"
#include "strategy.h"
#include "util.h"

#line 980 "chapters/06-production.nw"
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

#line 1128 "chapters/06-production.nw"
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

#line 996 "chapters/06-production.nw"
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
    return error_set(err,
                     "NCCL: this build has no NCCL (it needs the CUDA toolkit with nccl.h)");
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

#line 1065 "chapters/06-production.nw"
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
#line 1020 "chapters/06-production.nw"
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
    *s = (Strategy){.name = "nccl",
                    .rank = host->rank,
                    .world = host->size,
                    .sync_gradients = nccl_sync,
                    .sum_stats = nccl_stats,
                    .state = st};
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
#line 1602 "chapters/06-production.nw"
static int nccl_row_open(Strategy *s, const StrategyEnv *e, char *err)
{
    NcclState *st = xcalloc(1, sizeof *st);
    if (nccl_strategy(s, st, e->host, e->dev, err)) {
        free(st);
        return -1;
    }
    return 0;
}

static void nccl_row_close(Strategy *s)
{
    nccl_strategy_free(s->state);
    free(s->state);
}

static int nccl_check(int ranks, bool cpu, char *why, size_t len)
{
    int gpus = cpu ? 0 : gpu_count();
    if (cpu)
        snprintf(why, len, "--strategy nccl: NCCL moves GPU memory: drop --device cpu");
    else if (gpus < ranks)
        snprintf(why, len,
                 "--strategy nccl: %d ranks but %d GPU%s answered: NCCL needs one GPU "
                 "per rank (two ranks of one communicator cannot share a GPU); use --n_gpus %d "
                 "or --strategy ring",
                 ranks, gpus, gpus == 1 ? "" : "s", gpus > 0 ? gpus : 1);
    return cpu || gpus < ranks ? -1 : 0;
}

const StrategyDef strategy_nccl = {
    .name = "nccl",
    .title = "ncclAllReduce",
    .trainer = "rank",
    .shape = SHAPE_RANKS,
    .needs = NEEDS_GPUS,
    .min_ranks = 1,
    .open = nccl_row_open,
    .close = nccl_row_close,
    .traffic = ring_traffic,
    .check = nccl_check,
};
