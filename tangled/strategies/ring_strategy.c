/**
 * @file ring_strategy.c
 * @brief The ring all-reduce as a strategy of train_run (chapter 5).
 */
#line 512 "chapters/05-ag.nw"
#include "ring_strategy.h"

#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "report.h"
#include "strategy.h"
#include "util.h"

#line 541 "chapters/05-ag.nw"
static int ring_sync_gradients(Strategy *s, Model *m, Timers *t, char *err)
{
    RingState *st = s->state;
    Comm *c = st->c;
    size_t n = m->n_params;
    double t0 = now_seconds();
    if (ring_reduce_scatter(c, m->grads, n, st->scratch, err))
        return -1;
    size_t lo = chunk_start(n, c->size, c->rank), hi = chunk_start(n, c->size, c->rank + 1);
#line 551 "chapters/05-ag.nw"
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

#line 569 "chapters/05-ag.nw"
int ring_sum_doubles(Comm *host, double *v, int n, char *err)
{
    int size = host->size;
    double *all = xcalloc((size_t)n * (size_t)size, sizeof *all);
    memcpy(all + (size_t)host->rank * (size_t)n, v, (size_t)n * sizeof *v);
    int rc = ring_all_gather(host, all, (size_t)n * (size_t)size, sizeof *all, err);
    for (int i = 0; rc == 0 && i < n; i++) {
        v[i] = 0;
        for (int q = 0; q < size; q++)
            v[i] += all[(size_t)q * (size_t)n + (size_t)i];
    }
    free(all);
    return rc;
}

static int ring_sum_stats(Strategy *s, double *v, int n, char *err)
{
    return ring_sum_doubles(((RingState *)s->state)->host, v, n, err);
}

#line 595 "chapters/05-ag.nw"
void ring_strategy_scratch(Strategy *s, RingState *st, Comm *c, Comm *host,
                           size_t scratch_floats)
{
    st->c = c;
    st->host = host;
    st->scratch = c->dev->alloc(scratch_floats * sizeof(float));
    *s = (Strategy){.rank = c->rank,
                    .world = c->size,
                    .sync_gradients = ring_sync_gradients,
                    .sum_stats = ring_sum_stats,
                    .update = NULL,
                    .state = st};
#line 604 "chapters/05-ag.nw"
}

void ring_strategy(Strategy *s, RingState *st, Comm *c, Comm *host, size_t n_params)
{
    ring_strategy_scratch(s, st, c, host, chunk_max(n_params, c->size) + 1);
}

void ring_strategy_free(RingState *st)
{
    st->c->dev->release(st->scratch);
}
#line 649 "chapters/05-ag.nw"
static int ring_open(Strategy *s, const StrategyEnv *e, char *err)
{
    (void)err;
    ring_strategy(s, xcalloc(1, sizeof(RingState)), e->c, e->host, e->m->n_params);
    return 0;
}

static void ring_close(Strategy *s)
{
    ring_strategy_free(s->state);
    free(s->state);
}

#line 667 "chapters/05-ag.nw"
void allreduce_traffic(char *line, size_t len, int ranks, size_t bytes)
{
    char b1[32], b2[32];
    snprintf(line, len, "each rank sends %s per step (2(N-1)/N x %s)",
             format_bytes(b1, (size_t)(2.0 * (ranks - 1) / ranks * (double)bytes)),
             format_bytes(b2, bytes));
}

void ring_traffic(char *line, size_t len, int ranks, size_t bytes)
{
    allreduce_traffic(line, len, ranks, bytes);
    strncat(line, " to its neighbour", len - strlen(line) - 1);
}

#line 632 "chapters/05-ag.nw"
const StrategyDef strategy_ring = {
    .name = "ring",
    .title = "ring all-reduce",
    .trainer = "rank",
    .shape = SHAPE_RANKS,
    .needs = RUNS_OVER_MPI,
    .min_ranks = 1,
    .open = ring_open,
    .close = ring_close,
    .traffic = ring_traffic,
};
#line 724 "chapters/05-ag.nw"
/** FNV-1a: a 64-bit fingerprint of @p bytes bytes. */
static uint64_t hash_bytes(const void *p, size_t bytes)
{
    const unsigned char *s = p;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

#line 701 "chapters/05-ag.nw"
int replicas_agree(Comm *host, const Model *m, uint64_t *hash, char *err)
{
    float *w = xcalloc(m->n_params, sizeof *w);
    m->dev->download(w, m->params, m->n_params * sizeof *w);
    *hash = hash_bytes(w, m->n_params * sizeof *w);
    free(w);
    uint64_t *hashes = xcalloc((size_t)host->size, sizeof *hashes);
    hashes[host->rank] = *hash;
    int rc = ring_all_gather(host, hashes, (size_t)host->size, sizeof *hashes, err);
    for (int q = 0; rc == 0 && q < host->size; q++)
        if (hashes[q] != *hash)
            rc = error_set(err, "the weights of rank %d differ from rank %d's after training",
                           q, host->rank);
#line 715 "chapters/05-ag.nw"
    free(hashes);
    return rc;
}
