/**
 * @file zero.c
 * @brief ZeRO-1: the optimizer's state sharded over the ranks (chapter 7).
 */
#line 639 "chapters/07-zero.nw"
#include <stdlib.h>

#include "collectives.h"
#include "optimizer.h"
#include "ring_strategy.h"
#include "strategy.h"
#include "traffic.h"
#include "util.h"

#line 662 "chapters/07-zero.nw"
static int zero1_sync(Strategy *s, Model *m, Timers *t, char *err)
{
    RingState *st = s->state;
    Comm *c = st->c;
    double t0 = now_seconds();
    if (ring_reduce_scatter(c, m->grads, m->n_params, st->scratch, err))
        return -1;
    sum_to_mean(c, m->grads + s->state_lo, s->state_hi - s->state_lo);
    c->dev->sync();
    timers_add(t, "share-reduce", now_seconds() - t0);
    return 0;
}

#line 680 "chapters/07-zero.nw"
static int zero1_update(Strategy *s, Model *m, Optimizer *opt, Timers *t, char *err)
{
    RingState *st = s->state;
    double t0 = now_seconds();
    optimizer_step(opt, m->params + s->state_lo, m->grads + s->state_lo);
    m->dev->sync();
    double t1 = now_seconds();
    timers_add(t, "update", t1 - t0);
    if (ring_all_gather(st->c, m->params, m->n_params, sizeof(float), err))
        return -1;
    st->c->dev->sync();
    timers_add(t, "share-only", now_seconds() - t1);
    return 0;
}

#line 708 "chapters/07-zero.nw"
static int zero1_open(Strategy *s, const StrategyEnv *e, char *err)
{
    (void)err;
    Comm *c = e->c;
    size_t n = e->m->n_params;
    RingState *st = xcalloc(1, sizeof *st);
    ring_state(st, c, e->host, chunk_max(n, c->size) + 1);
    *s = (Strategy){.rank = c->rank,
                    .world = c->size,
                    .sync_gradients = zero1_sync,
                    .sum_stats = ring_sum_stats,
                    .update = zero1_update,
                    .state = st,
                    .shards_state = true,
                    .state_lo = chunk_start(n, c->size, c->rank),
                    .state_hi = chunk_start(n, c->size, c->rank + 1)};
    return 0;
}

static void zero1_close(Strategy *s)
{
    ring_strategy_free(s->state);
    free(s->state);
}

#line 738 "chapters/07-zero.nw"
const StrategyDef strategy_zero1 = {
    .name = "zero1",
    .title = "ZeRO-1 (optimizer state sharded, ring collectives)",
    .trainer = "rank",
    .shape = SHAPE_RANKS,
    .needs = RUNS_OVER_MPI | SHARDS_STATE,
    .min_ranks = 1,
    .no_codec =
        "it reduce-scatters into shards, and the codec needs each rank's whole gradient",
    .open = zero1_open,
    .close = zero1_close,
    .traffic = ring_traffic,
};
