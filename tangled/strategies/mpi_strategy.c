/**
 * @file mpi_strategy.c
 * @brief The transport's own all-reduce (MPI_Allreduce) as a strategy (chapter 6).
 */
#line 1982 "chapters/06-production.nw"
#include "production.h"

#include <stdlib.h>

#include "collectives.h"
#include "strategy.h"
#include "traffic.h"
#include "util.h"

#line 2003 "chapters/06-production.nw"
static int native_sync(Strategy *s, Model *m, Timers *t, char *err)
{
    NativeState *st = s->state;
    double t0 = now_seconds();
    if (st->c->allreduce(st->c, m->grads, m->n_params, err))
        return -1;
    sum_to_mean(st->c, m->grads, m->n_params);
    m->dev->sync();
    timers_add(t, "all-reduce", now_seconds() - t0);
    return 0;
}

static int native_stats(Strategy *s, double *v, int n, char *err)
{
    return ring_sum_doubles(((NativeState *)s->state)->host, v, n, err);
}

#line 2035 "chapters/06-production.nw"
int native_strategy(Strategy *s, NativeState *st, Comm *c, Comm *host, char *err)
{
    if (!c->allreduce)
        return error_set(err,
                         "the %s transport has no all-reduce of its own: --strategy mpi "
                         "runs under mpirun with --transport mpi",
                         c->name);
#line 2041 "chapters/06-production.nw"
    st->c = c;
    st->host = host;
    *s = (Strategy){.rank = c->rank,
                    .world = c->size,
                    .sync_gradients = native_sync,
                    .sum_stats = native_stats,
                    .state = st};
#line 2046 "chapters/06-production.nw"
    return 0;
}
#line 3176 "chapters/06-production.nw"
static int mpi_row_open(Strategy *s, const StrategyEnv *e, char *err)
{
    NativeState *st = xcalloc(1, sizeof *st);
    if (native_strategy(s, st, e->c, e->host, err)) {
        free(st);
        return -1;
    }
    return 0;
}

static void mpi_row_close(Strategy *s)
{
    free(s->state);
}

#line 3158 "chapters/06-production.nw"
const StrategyDef strategy_mpi = {
    .name = "mpi",
    .title = "MPI_Allreduce",
    .trainer = "rank",
    .shape = SHAPE_RANKS,
    .needs = RUNS_OVER_MPI | NEEDS_MPI,
    .min_ranks = 1,
    .no_codec = "MPI_Allreduce has no 16-bit float, and adds in the type it sends",
    .open = mpi_row_open,
    .close = mpi_row_close,
    .traffic = allreduce_traffic,
};
