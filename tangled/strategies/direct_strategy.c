/**
 * @file direct_strategy.c
 * @brief Training with the all-reduce that reads the peers' gradients (chapter 8).
 */
#line 1409 "chapters/08-direct.nw"
#include <stdio.h>
#include <stdlib.h>

#include "collectives.h"
#include "report.h"
#include "ring_strategy.h"
#include "strategy.h"
#include "traffic.h"
#include "util.h"

#line 1436 "chapters/08-direct.nw"
static int direct_sync_gradients(Strategy *s, Model *m, Timers *t, char *err)
{
    RingState *st = s->state;
    Comm *c = st->c;
    double t0 = now_seconds();
    AllReduceAlgo algo = all_reduce_choice(c, m->grads, m->n_params);
    if (all_reduce(c, m->grads, m->n_params, st->scratch, 1.0f / (float)c->size, err))
        return -1;
    c->dev->sync();
    timers_add(t, all_reduce_algo_name(algo), now_seconds() - t0);
    return 0;
}

#line 1451 "chapters/08-direct.nw"
/** The direct strategy's state: the ring's (first, so the ring's functions find it). */
typedef struct DirectState {
    RingState ring; /**< the ring's communicators and scratch */
    char runs[160]; /**< what the banner calls the all-reduce that runs */
} DirectState;

static void direct_home_grads(Comm *c, Model *m)
{
    float *shared = c->alloc_shared ? c->alloc_shared(c, m->n_params * sizeof(float)) : NULL;
    if (shared)
        model_use_grads(m, shared);
}

#line 1499 "chapters/08-direct.nw"
/** What runs for the gradients: the chooser's answer, and why if the channel ring. */
static const char *direct_names_its_all_reduce(DirectState *st, Comm *c, const Model *m)
{
    AllReduceAlgo algo = all_reduce_choice(c, m->grads, m->n_params);
    bool gpu = c->dev->kind != DEVICE_CPU;
    const char *why = c->size == 1             ? "one rank reads no peer"
                      : !c->peer_buffer && gpu ? "this device cannot share its memory"
                      : !c->peer_buffer        ? "this transport has no windows"
                      : c->peer_buffer(c, c->rank, m->grads)
                          ? "some peers are on other hosts (chapter 9)"
                          : "the gradients are not in a window";
    if (algo == ALGO_CHANNEL_RING)
        snprintf(st->runs, sizeof st->runs, "channel ring all-reduce, as %s", why);
    else
        snprintf(st->runs, sizeof st->runs, "%s all-reduce, reading the peers' memory",
                 all_reduce_algo_name(algo));
    return st->runs;
}

#line 1471 "chapters/08-direct.nw"
static int direct_open(Strategy *s, const StrategyEnv *e, char *err)
{
    (void)err;
    Comm *c = e->c;
    DirectState *st = xcalloc(1, sizeof *st);
    ring_state(&st->ring, c, e->host, all_reduce_scratch(e->m->n_params, c->size) + 1);
    direct_home_grads(c, e->m);
    *s = (Strategy){.rank = c->rank,
                    .world = c->size,
                    .sync_gradients = direct_sync_gradients,
                    .sum_stats = ring_sum_stats,
                    .state = st,
                    .runs = direct_names_its_all_reduce(st, c, e->m)};
    return 0;
}

#line 1520 "chapters/08-direct.nw"
static void direct_close(Strategy *s)
{
    DirectState *st = s->state; /* the ring's functions read its first member */
    ring_strategy_free(&st->ring);
    free(st);
}

#line 1534 "chapters/08-direct.nw"
const StrategyDef strategy_direct = {
    .name = "direct",
    .title = "all-reduce by reading the peers' memory, chosen by size",
    .trainer = "rank",
    .shape = SHAPE_RANKS,
    .needs = RUNS_OVER_MPI,
    .min_ranks = 1,
    .no_codec = "it reads its peers' memory, where no bytes cross a wire (use --strategy ring)",
    .open = direct_open,
    .close = direct_close,
    .traffic = allreduce_traffic,
};
