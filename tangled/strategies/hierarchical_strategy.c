/**
 * @file hierarchical_strategy.c
 * @brief Training with the hierarchical all-reduce: within a host, then across (chapter 9).
 */
#line 1031 "chapters/09-hosts.nw"
#include <stdio.h>
#include <stdlib.h>

#include "collectives.h"
#include "hierarchy.h"
#include "report.h"
#include "ring_strategy.h"
#include "strategy.h"
#include "traffic.h"
#include "util.h"

#line 1049 "chapters/09-hosts.nw"
/** The strategy's state: the ring's (first, so the ring's functions find it). */
typedef struct HierState {
    RingState ring; /**< the communicators and the scratch */
    Hierarchy h;    /**< this rank's host and place */
    char runs[200]; /**< what the banner calls it */
} HierState;

static int hier_sync_gradients(Strategy *s, Model *m, Timers *t, char *err)
{
    HierState *st = s->state;
    double t0 = now_seconds();
    if (hierarchical_all_reduce(&st->h, m->grads, m->n_params, st->ring.scratch,
                                1.0f / (float)st->ring.c->size, err))
        return -1;
    st->ring.c->dev->sync();
    timers_add(t, "hierarchical", now_seconds() - t0);
    return 0;
}
#line 1075 "chapters/09-hosts.nw"
static int hier_open(Strategy *s, const StrategyEnv *e, char *err)
{
    HierState *st = xcalloc(1, sizeof *st);
    Comm *c = e->c;
    if (hierarchy_open(&st->h, c, e->host, e->ranks_per_host, err))
        return free(st), -1;
    Comm *in = st->h.local;
    float *grads = in->size > 1 && in->alloc_shared
                       ? in->alloc_shared(in, e->m->n_params * sizeof(float))
                       : NULL;
#line 1084 "chapters/09-hosts.nw"
    if (in->size > 1 && !grads) {
        error_set(err,
                  "--strategy hierarchical: %d ranks share host %s, and the transport "
                  "has no memory they can all read",
                  in->size, st->h.name);
#line 1087 "chapters/09-hosts.nw"
        hierarchy_close(&st->h), free(st);
        return -1;
    }
    if (grads)
        model_use_grads(e->m, grads);
    ring_state(&st->ring, c, e->host, hierarchy_scratch(&st->h, e->m->n_params) + 1);
#line 1692 "chapters/10-compress.nw"
    st->h.dtype = e->codec.dtype;
    if (st->h.dtype != DTYPE_FP32)
        st->h.wire =
            c->dev->alloc((chunk_max(e->m->n_params, in->size) + 1) * dtype_bytes(st->h.dtype));
#line 1094 "chapters/09-hosts.nw"
    snprintf(st->runs, sizeof st->runs,
             "hierarchical all-reduce: %d host(s) (%s%s%s) x %d "
             "rank(s), rings across hosts",
             st->h.hosts, st->h.first, st->h.hosts > 1 ? " .. " : "",
             st->h.hosts > 1 ? st->h.last : "", in->size);
#line 1097 "chapters/09-hosts.nw"
    *s = (Strategy){.rank = c->rank,
                    .world = c->size,
                    .sync_gradients = hier_sync_gradients,
                    .sum_stats = ring_sum_stats,
                    .state = st,
                    .runs = st->runs};
#line 1099 "chapters/09-hosts.nw"
    return 0;
}
#line 1106 "chapters/09-hosts.nw"
static void hier_close(Strategy *s)
{
    HierState *st = s->state;
    if (st->h.wire) /* chapter 10 */
        st->ring.c->dev->release(st->h.wire);
    hierarchy_close(&st->h);
    ring_strategy_free(&st->ring);
    free(st);
}
#line 1124 "chapters/09-hosts.nw"
static void hier_traffic(char *line, size_t len, int ranks, size_t bytes)
{
    char b[32];
    (void)ranks;
    snprintf(line, len,
             "each rank sends 2(H-1)/H x %s / L per step across hosts (H hosts of L ranks, "
             "as above), and reads its host's buffers in place",
             format_bytes(b, bytes));
}

#line 1138 "chapters/09-hosts.nw"
const StrategyDef strategy_hierarchical = {
    .name = "hierarchical",
    .title = "hierarchical all-reduce: within each host, then a ring across hosts",
    .trainer = "rank",
    .shape = SHAPE_RANKS,
    .needs = RUNS_OVER_MPI | USES_HOSTS | CARRIES_DTYPE,
    .min_ranks = 1,
    .no_codec = "it codes its ring across hosts in 16 bits (--grad_dtype), but cuts nothing "
                "(use --strategy ring for --compress)",
    .open = hier_open,
    .close = hier_close,
    .traffic = hier_traffic,
};
