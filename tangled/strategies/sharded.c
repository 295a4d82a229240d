/**
 * @file sharded.c
 * @brief ZeRO-2 and FSDP: gradients (and parameters) sharded layer by layer (chapter 7).
 */
#line 1181 "chapters/07-zero.nw"
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "comm_queue.h"
#include "optimizer.h"
#include "strategy.h"
#include "traffic.h"

#line 1198 "chapters/07-zero.nw"
enum { OP_GATHER, OP_SCATTER }; /* the queue's operations */

/** A rank's part of each layer, its shards, and the buffers that pass through. */
typedef struct Shards {
    Comm *c;                   /**< the gradients' communicator */
    Comm *host;                /**< host memory beside it */
    Model *m;                  /**< whose layers */
    bool params;               /**< FSDP: the parameters are sharded too */
    size_t lo[MAX_LAYERS];     /**< the rank's part of layer l: [lo, hi) of the flat buffer */
    size_t hi[MAX_LAYERS];     /**< (one past its end) */
    size_t at[MAX_LAYERS];     /**< where that part is in the shard buffers */
    size_t n;                  /**< floats in each shard buffer */
    size_t first;              /**< ZeRO-2: the first float of the rank's chunk */
    float *pshard;             /**< the rank's parameters (FSDP) */
    float *gshard;             /**< the rank's gradients */
    float *pbuf[2];            /**< layer l's gathered parameters, in pbuf[l % 2] */
    float *gbuf[2];            /**< layer l's unreduced gradients, in gbuf[l % 2] */
    size_t buf[2];             /**< floats in pbuf[k] and in gbuf[k] */
    float *scratch;            /**< the share-reduce's */
    CommQueue q;               /**< the thread that runs the collectives */
    long gathered[MAX_LAYERS]; /**< layer l's last gather, as a queue sequence number */
    long reduced[MAX_LAYERS];  /**< layer l's last reduce-scatter */
} Shards;
#line 1228 "chapters/07-zero.nw"
static size_t layer_start(const Model *m, int l)
{
    return m->layer[l].w;
}

static size_t layer_size(const Model *m, int l)
{
    return m->layer[l].b + (size_t)m->layer[l].out - m->layer[l].w;
}
#line 1591 "chapters/07-zero.nw"
static int shards_sum_stats(Strategy *s, double *v, int n, char *err)
{
    return ring_sum_doubles(((Shards *)s->state)->host, v, n, err);
}
#line 1251 "chapters/07-zero.nw"
static int shards_work(void *state, int kind, int l, char *err)
{
    Shards *sh = state;
    const Model *m = sh->m;
    const Device *dev = sh->c->dev;
    size_t start = layer_start(m, l), size = layer_size(m, l), own = sh->hi[l] - sh->lo[l];
    int rc;
    if (kind == OP_GATHER) {
        float *p = sh->pbuf[l % 2];
        dev->copy(p + (sh->lo[l] - start), sh->pshard + sh->at[l], own * sizeof(float));
        rc = ring_all_gather(sh->c, p, size, sizeof(float), err);
    } else {
        float *g = m->layer_grads[l];
        rc = sh->params ? ring_reduce_scatter(sh->c, g, size, sh->scratch, err)
                        : ring_reduce_scatter_window(sh->c, g, m->n_params, start, start + size,
                                                     sh->scratch, err);
        if (rc == 0)
            dev->copy(sh->gshard + sh->at[l], g + (sh->lo[l] - start), own * sizeof(float));
    }
    dev->sync();
    return rc;
}
#line 1325 "chapters/07-zero.nw"
static void gather(Shards *sh, int l)
{
    sh->m->dev->sync(); /* the buffer's last reader, layer l - 2 or l + 2, has finished */
    sh->gathered[l] = queue_post(&sh->q, OP_GATHER, l);
}
#line 1339 "chapters/07-zero.nw"
static int shards_before(Strategy *s, Model *m, int l, Pass pass, char *err)
{
    Shards *sh = s->state;
    int last = m->n_layers - 1;
    if (pass == PASS_BACKWARD) {
        if (sh->params && l > 0)
            gather(sh, l - 1);
        if (sh->params && l < last && queue_wait(&sh->q, sh->gathered[l], err))
            return -1;
        if (sh->gbuf[0] && l + 2 <= last && queue_wait(&sh->q, sh->reduced[l + 2], err))
            return -1;
        if (sh->gbuf[0])
            model_layer_grads_at(m, l, sh->gbuf[l % 2]);
    } else if (sh->params) {
        if (l == 0)
            gather(sh, 0);
        if (l < last)
            gather(sh, l + 1);
        if (queue_wait(&sh->q, sh->gathered[l], err))
            return -1;
    }
    if (sh->params)
        model_layer_params_at(m, l, sh->pbuf[l % 2]);
    return 0;
}
#line 1372 "chapters/07-zero.nw"
static int shards_after(Strategy *s, Model *m, int l, Pass pass, char *err)
{
    (void)err;
    Shards *sh = s->state;
    if (sh->params && !(pass == PASS_FORWARD && l == m->n_layers - 1))
        model_layer_params_at(m, l, NULL);
    return 0;
}
#line 1390 "chapters/07-zero.nw"
static int shards_grads_ready(Strategy *s, Model *m, int l, char *err)
{
    (void)err;
    Shards *sh = s->state;
    m->dev->sync();
    sh->reduced[l] = queue_post(&sh->q, OP_SCATTER, l);
    return 0;
}
#line 1418 "chapters/07-zero.nw"
static int shards_sync(Strategy *s, Model *m, Timers *t, char *err)
{
    (void)m;
    Shards *sh = s->state;
    double t0 = now_seconds();
    if (queue_drain(&sh->q, err))
        return -1;
    sum_to_mean(sh->c, sh->gshard, sh->n);
    sh->c->dev->sync();
    timers_add(t, "share-reduce wait", now_seconds() - t0);
    return 0;
}
#line 1433 "chapters/07-zero.nw"
static int shards_update(Strategy *s, Model *m, Optimizer *opt, Timers *t, char *err)
{
    Shards *sh = s->state;
    double t0 = now_seconds();
    optimizer_step(opt, sh->params ? sh->pshard : m->params + sh->first, sh->gshard);
    m->dev->sync();
    double t1 = now_seconds();
    timers_add(t, "update", t1 - t0);
    if (sh->params)
        return 0;
    if (ring_all_gather(sh->c, m->params, m->n_params, sizeof(float), err))
        return -1;
    sh->c->dev->sync();
    timers_add(t, "share-only", now_seconds() - t1);
    return 0;
}
#line 1463 "chapters/07-zero.nw"
static int shards_unshard(Strategy *s, Model *m, char *err)
{
    Shards *sh = s->state;
    model_hold_params(m);
    for (int l = 0; l < m->n_layers; l++) {
        m->dev->copy(m->params + sh->lo[l], sh->pshard + sh->at[l],
                     (sh->hi[l] - sh->lo[l]) * sizeof(float));
        if (ring_all_gather(sh->c, m->params + layer_start(m, l), layer_size(m, l),
                            sizeof(float), err))
            return -1;
    }
    m->dev->sync();
    return 0;
}
#line 1495 "chapters/07-zero.nw"
static void shards_layout(Shards *sh, const Model *m, int N, int r)
{
    size_t c0 = chunk_start(m->n_params, N, r), c1 = chunk_start(m->n_params, N, r + 1);
    sh->first = c0;
    for (int l = 0; l < m->n_layers; l++) {
        size_t start = layer_start(m, l), size = layer_size(m, l), end = start + size;
        if (sh->params) {
            sh->lo[l] = start + chunk_start(size, N, r);
            sh->hi[l] = start + chunk_start(size, N, r + 1);
            sh->at[l] = sh->n;
            sh->n += sh->hi[l] - sh->lo[l];
        } else {
            sh->lo[l] = c0 < start ? start : c0 > end ? end : c0;
            sh->hi[l] = c1 < sh->lo[l] ? sh->lo[l] : c1 > end ? end : c1;
            sh->at[l] = sh->lo[l] - c0;
        }
        if (size > sh->buf[l % 2])
            sh->buf[l % 2] = size;
        sh->gathered[l] = sh->reduced[l] = -1;
    }
    if (!sh->params)
        sh->n = c1 - c0;
}
#line 1529 "chapters/07-zero.nw"
static int shards_open(Strategy *s, const StrategyEnv *e, bool params, char *err)
{
    Model *m = e->m;
    const Device *dev = m->dev;
    Shards *sh = xcalloc(1, sizeof *sh);
    *sh = (Shards){.c = e->c, .host = e->host, .m = m, .params = params};
    shards_layout(sh, m, e->c->size, e->c->rank);
#line 1544 "chapters/07-zero.nw"
    size_t floats = sh->n + 1, largest = sh->buf[0] > sh->buf[1] ? sh->buf[0] : sh->buf[1];
    sh->gshard = dev->alloc(floats * sizeof(float));
    size_t scratch = chunk_max(params ? largest : m->n_params, e->c->size);
    sh->scratch = dev->alloc((scratch < largest ? scratch : largest) * sizeof(float) + 4);
    if (e->accum <= 1) {
        for (int k = 0; k < 2; k++)
            sh->gbuf[k] = dev->alloc(sh->buf[k] * sizeof(float) + 4);
        model_give_up_grads(m);
    }
    if (params) {
        sh->pshard = dev->alloc(floats * sizeof(float));
        for (int l = 0; l < m->n_layers; l++)
            dev->copy(sh->pshard + sh->at[l], m->params + sh->lo[l],
                      (sh->hi[l] - sh->lo[l]) * sizeof(float));
        for (int k = 0; k < 2; k++)
            sh->pbuf[k] = dev->alloc(sh->buf[k] * sizeof(float) + 4);
        dev->sync();
        model_give_up_params(m);
    }
#line 1571 "chapters/07-zero.nw"
    size_t gathered = params ? sh->buf[0] + sh->buf[1] : 0, full = m->n_params;
    *s = (Strategy){.rank = e->c->rank,
                    .world = e->c->size,
                    .sync_gradients = shards_sync,
                    .sum_stats = shards_sum_stats,
                    .update = shards_update,
                    .grads_ready = shards_grads_ready,
                    .before_layer = shards_before,
                    .after_layer = shards_after,
                    .unshard = params ? shards_unshard : NULL,
                    .shards_state = true,
                    .state_lo = params ? 0 : sh->first,
                    .state_hi = params ? sh->n : sh->first + sh->n,
                    .param_bytes = (params ? sh->n + gathered : full) * sizeof(float),
                    .grad_bytes = (sh->n + (sh->gbuf[0] ? sh->buf[0] + sh->buf[1] : full)) *
                                  sizeof(float),
                    .state = sh};
#line 1538 "chapters/07-zero.nw"
    static const char *const names[] = {"gather layer", "reduce-scatter layer"};
    return queue_start(&sh->q, dev, shards_work, sh, names, err);
}
#line 1603 "chapters/07-zero.nw"
static int zero2_open(Strategy *s, const StrategyEnv *e, char *err)
{
    return shards_open(s, e, false, err);
}

static int fsdp_open(Strategy *s, const StrategyEnv *e, char *err)
{
    return shards_open(s, e, true, err);
}

static void shards_close(Strategy *s)
{
    Shards *sh = s->state;
    const Device *dev = sh->m->dev;
    queue_stop(&sh->q);
    float *bufs[] = {sh->pshard,  sh->gshard,  sh->pbuf[0], sh->pbuf[1],
                     sh->gbuf[0], sh->gbuf[1], sh->scratch};
    for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; k++)
        if (bufs[k])
            dev->release(bufs[k]);
    free(sh);
}
#line 1634 "chapters/07-zero.nw"
static void shards_report(const Strategy *s, FILE *f)
{
    const Shards *sh = s->state;
    fprintf(f,
            "overlap: the communication thread worked %.3f s; training waited %.3f s for "
            "it (%ld gathers and reduce-scatters)\n",
            sh->q.busy, sh->q.exposed, sh->q.done);
}
#line 1650 "chapters/07-zero.nw"
static void fsdp_traffic(char *line, size_t len, int ranks, size_t bytes)
{
    char sent[32], model[32];
    snprintf(line, len,
             "each rank sends up to %s per step (3(N-1)/N x %s: two gathers, one "
             "reduce-scatter)",
             format_bytes(sent, 3 * (size_t)(ranks - 1) * bytes / (size_t)ranks),
             format_bytes(model, bytes));
}
#line 1672 "chapters/07-zero.nw"
const StrategyDef strategy_zero2 = {
    .name = "zero2",
    .title = "ZeRO-2 (gradients and optimizer state sharded)",
    .trainer = "rank",
    .shape = SHAPE_RANKS,
    .needs = RUNS_OVER_MPI | SHARDS_STATE,
    .min_ranks = 1,
    .no_codec =
        "it reduce-scatters into shards, and the codec needs each rank's whole gradient",
    .open = zero2_open,
    .close = shards_close,
    .report = shards_report,
    .traffic = ring_traffic,
};
#line 1688 "chapters/07-zero.nw"
const StrategyDef strategy_fsdp = {
    .name = "fsdp",
    .title = "FSDP (parameters, gradients and optimizer state sharded)",
    .trainer = "rank",
    .shape = SHAPE_RANKS,
    .needs = RUNS_OVER_MPI | SHARDS_STATE | SHARDS_PARAMS | NO_CHECKPOINT,
    .min_ranks = 1,
    .no_codec =
        "it reduce-scatters into shards, and the codec needs each rank's whole gradient",
    .open = fsdp_open,
    .close = shards_close,
    .report = shards_report,
    .traffic = fsdp_traffic,
};
