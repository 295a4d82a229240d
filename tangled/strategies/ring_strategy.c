/**
 * @file ring_strategy.c
 * @brief The ring all-reduce as a strategy of train_run (chapter 5).
 */
#line 536 "chapters/05-ag.nw"
#include "ring_strategy.h"

#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "report.h"
#include "strategy.h"
#include "traffic.h"
#include "util.h"

#line 565 "chapters/05-ag.nw"
static int ring_sync_gradients(Strategy *s, Model *m, Timers *t, char *err)
{
    RingState *st = s->state;
    Comm *c = st->c;
    size_t n = m->n_params;
    double t0 = now_seconds();
    if (ring_reduce_scatter(c, m->grads, n, st->scratch, err))
        return -1;
    size_t lo = chunk_start(n, c->size, c->rank), hi = chunk_start(n, c->size, c->rank + 1);
#line 575 "chapters/05-ag.nw"
    sum_to_mean(c, m->grads + lo, hi - lo);
    c->dev->sync();
    double t1 = now_seconds();
    timers_add(t, "share-reduce", t1 - t0);
    if (ring_all_gather(c, m->grads, n, sizeof(float), err))
        return -1;
    c->dev->sync();
    timers_add(t, "share-only", now_seconds() - t1);
    return 0;
}

#line 610 "chapters/05-ag.nw"
int ring_sum_stats(Strategy *s, double *v, int n, char *err)
{
    return ring_sum_doubles(((RingState *)s->state)->host, v, n, err);
}

#line 625 "chapters/05-ag.nw"
void ring_state(RingState *st, Comm *c, Comm *host, size_t scratch_floats)
{
    st->c = c;
    st->host = host;
    st->scratch = c->dev->alloc(scratch_floats * sizeof(float));
}

void ring_strategy(Strategy *s, RingState *st, Comm *c, Comm *host, size_t n_params)
{
    ring_state(st, c, host, chunk_max(n_params, c->size) + 1);
    *s = (Strategy){.rank = c->rank,
                    .world = c->size,
                    .sync_gradients = ring_sync_gradients,
                    .sum_stats = ring_sum_stats,
                    .update = NULL,
                    .state = st};
#line 638 "chapters/05-ag.nw"
}

void ring_strategy_free(RingState *st)
{
    st->c->dev->release(st->scratch);
}
#line 677 "chapters/05-ag.nw"
static int ring_open(Strategy *s, const StrategyEnv *e, char *err)
{
    if (grad_codec_active(&e->codec)) /* chapter 10 */
        return grad_codec_open(s, &e->codec, e->c, e->host, e->m, err);
    ring_strategy(s, xcalloc(1, sizeof(RingState)), e->c, e->host, e->m->n_params);
    return 0;
}

static void ring_close(Strategy *s)
{
    if (grad_codec_owns(s)) { /* chapter 10 */
        grad_codec_close(s);
        return;
    }
    ring_strategy_free(s->state);
    free(s->state);
}

#line 659 "chapters/05-ag.nw"
const StrategyDef strategy_ring = {
    .name = "ring",
    .title = "ring all-reduce",
    .trainer = "rank",
    .shape = SHAPE_RANKS,
    .needs = RUNS_OVER_MPI | CARRIES_CODEC,
    .min_ranks = 1,
    .open = ring_open,
    .close = ring_close,
    .report = grad_codec_report,
    .traffic = ring_traffic,
};
