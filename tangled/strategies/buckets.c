/**
 * @file buckets.c
 * @brief DDP-style buckets: a communication thread all-reduces them during backward.
 */
#line 1251 "chapters/06-production.nw"
#include "buckets.h"

#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "report.h"
#include "strategy.h"
#include "traffic.h"

#line 1269 "chapters/06-production.nw"
int bucket_assign(const size_t *layer_floats, int n_layers, size_t cap, size_t first_cap,
                  int *bucket_of)
{
    int b = 0;
    size_t bytes = 0;
    for (int l = n_layers - 1; l >= 0; l--) {
        bucket_of[l] = b;
        bytes += layer_floats[l] * sizeof(float);
        if (bytes >= (b == 0 ? first_cap : cap) && l > 0) {
            b++;
            bytes = 0;
        }
    }
    return n_layers > 0 ? b + 1 : 0;
}
#line 1595 "chapters/06-production.nw"
static int all_reduce_bucket(void *state, int kind, int k, char *err)
{
    (void)kind; /* the buckets post one kind of operation */
    BucketState *st = state;
    const Bucket *b = &st->bucket[k];
    int rc = ring_all_reduce(st->c, st->m->grads + b->lo, b->hi - b->lo, st->scratch,
                             1.0f / (float)st->c->size, err);
    st->c->dev->sync();
    return rc;
}

#line 1619 "chapters/06-production.nw"
static int grads_ready(Strategy *s, Model *m, int layer, char *err)
{
    (void)err;
    BucketState *st = s->state;
    if (st->posted < st->n && st->bucket[st->posted].ready_at == layer) {
        m->dev->sync(); /* on a GPU: the layer's kernels have finished */
        queue_post(&st->q, 0, st->posted++);
    }
    return 0;
}

#line 1661 "chapters/06-production.nw"
static int bucket_sync_gradients(Strategy *s, Model *m, Timers *t, char *err)
{
    (void)m;
    BucketState *st = s->state;
    double t0 = now_seconds();
    int rc = queue_drain(&st->q, err);
    st->posted = 0;
    timers_add(t, "bucket wait", now_seconds() - t0);
    return rc;
}

static int bucket_sum_stats(Strategy *s, double *v, int n, char *err)
{
    return ring_sum_doubles(((BucketState *)s->state)->host, v, n, err);
}
#line 1699 "chapters/06-production.nw"
int bucket_strategy(Strategy *s, BucketState *st, Comm *c, Comm *host, Model *m,
                    size_t cap_bytes, char *err)
{
    memset(st, 0, sizeof *st);
    st->c = c;
    st->host = host;
    st->m = m;
#line 1728 "chapters/06-production.nw"
    size_t floats[MAX_LAYERS];
    int of[MAX_LAYERS];
    for (int l = 0; l < m->n_layers; l++)
        floats[l] = (size_t)m->layer[l].in * m->layer[l].out + m->layer[l].out;
    size_t first = cap_bytes < FIRST_BUCKET_BYTES ? cap_bytes : FIRST_BUCKET_BYTES;
    st->n = bucket_assign(floats, m->n_layers, cap_bytes, first, of);
    if (st->n < 1 || st->n > m->n_layers)
        return error_set(err, "bucket_assign made %d buckets of %d layers", st->n, m->n_layers);
#line 1751 "chapters/06-production.nw"
    size_t largest = 0;
    for (int k = 0; k < st->n; k++) {
        Bucket *b = &st->bucket[k];
        b->ready_at = -1;
        for (int l = 0; l < m->n_layers; l++) {
            if (of[l] != k)
                continue;
            if (b->ready_at < 0)
                b->lo = m->layer[l].w, b->ready_at = l;
            b->hi = m->layer[l].b + (size_t)m->layer[l].out;
        }
        if (b->ready_at < 0 || (k > 0 && b->hi != st->bucket[k - 1].lo))
            return error_set(err,
                             "bucket_assign: bucket %d is not a run of layers below "
                             "bucket %d's",
                             k, k - 1);
#line 1765 "chapters/06-production.nw"
        if (b->hi - b->lo > largest)
            largest = b->hi - b->lo;
    }
    if (st->bucket[0].hi != m->n_params || st->bucket[st->n - 1].lo != 0)
        return error_set(err, "bucket_assign: the buckets do not cover every layer");
    st->scratch = c->dev->alloc((chunk_max(largest, c->size) + 1) * sizeof(float));
#line 1708 "chapters/06-production.nw"
    static const char *const names[] = {"all-reduce bucket"};
    if (queue_start(&st->q, c->dev, all_reduce_bucket, st, names, err))
        return -1;
    *s = (Strategy){.rank = c->rank,
                    .world = c->size,
                    .sync_gradients = bucket_sync_gradients,
                    .sum_stats = bucket_sum_stats,
                    .grads_ready = grads_ready,
                    .state = st};
#line 1715 "chapters/06-production.nw"
    return 0;
}

#line 1785 "chapters/06-production.nw"
void bucket_strategy_free(BucketState *st)
{
    queue_stop(&st->q);
    st->c->dev->release(st->scratch);
}

#line 3107 "chapters/06-production.nw"
static int bucketed_open(Strategy *s, const StrategyEnv *e, char *err)
{
    BucketState *st = xcalloc(1, sizeof *st);
    if (bucket_strategy(s, st, e->c, e->host, e->m, e->bucket_bytes, err)) {
        free(st);
        return -1;
    }
    return 0;
}

static void bucketed_close(Strategy *s)
{
    bucket_strategy_free(s->state);
    free(s->state);
}

#line 3132 "chapters/06-production.nw"
static void bucketed_report(const Strategy *s, FILE *f)
{
    const BucketState *bs = s->state;
    double busy = bs->q.busy, exposed = bs->q.exposed;
    fprintf(f,
            "overlap: %d bucket%s; all-reduces took %.3f s, %.3f s of it exposed: %.0f%% "
            "hidden behind backward\n",
            bs->n, bs->n == 1 ? "" : "s", busy, exposed,
            busy > 0 ? 100 * (1 - exposed / busy) : 0.0);
}

#line 3082 "chapters/06-production.nw"
const StrategyDef strategy_ring_bucketed = {
    .name = "ring_bucketed",
    .title = "ring all-reduce in buckets during backward",
    .trainer = "rank",
    .shape = SHAPE_RANKS,
    .needs = RUNS_OVER_MPI | USES_BUCKETS,
    .min_ranks = 1,
    .no_codec = "its buckets are all-reduced during backward, and the codec needs the "
                "whole gradient (use --strategy ring)",
    .open = bucketed_open,
    .close = bucketed_close,
    .report = bucketed_report,
    .traffic = ring_traffic,
};
