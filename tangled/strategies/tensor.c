/** @file tensor.c @brief Megatron's split of the MLP on a grid of ranks (chapter 11). */
#line 549 "chapters/11-tensor.nw"
#include <stdio.h>
#include <stdlib.h>

#include "coded_ring.h"
#include "collectives.h"
#include "comm_view.h"
#include "launch.h"
#include "report.h"
#include "ring_strategy.h"
#include "strategy.h"
#include "tensor.h"
#include "util.h"

#line 146 "chapters/11-tensor.nw"
/** The tensor strategy's state: the column's ring first (ring_sum_stats finds it). */
typedef struct TensorState {
    RingState col;              /**< the column: gradients' communicator, figures', scratch */
    Comm *row;                  /**< the row's view of the communicator */
    Comm *row_host;             /**< the row's view of the host communicator */
    Comm *col_host;             /**< the column's view of the host communicator */
    int T;                      /**< ranks in a row */
    int t;                      /**< this rank's place in its row */
    int D;                      /**< rows */
    int d;                      /**< this rank's row */
    int n_layers;               /**< L, of the whole model */
    int width[MAX_LAYERS + 1];  /**< the whole model's widths */
    int lo[MAX_LAYERS + 1];     /**< this rank's share of width k: [lo[k], lo[k] + share) */
    bool split[MAX_LAYERS + 1]; /**< width k is split across the row */
    int batch;                  /**< a training micro-batch's rows */
    int accum;                  /**< micro-batches a step */
    size_t whole;               /**< the whole model's parameters */
    float *row_scratch;         /**< the row's all-reduce scratch */
    float *zeros;               /**< a bias of zeros, for the ReLU after a sum */
    double row_seconds;         /**< the row's all-reduces' time */
    double row_bytes;           /**< bytes this rank sent along its row in training */
    double col_bytes;           /**< bytes it sent down its column */
    long steps;                 /**< steps synced so far */
    char runs[160];             /**< what the banner calls it */
} TensorState;
#line 174 "chapters/11-tensor.nw"
/** The view of @p parent whose members are @p n ranks from @p first, @p stride apart. */
static Comm *grid_view(Comm *parent, int first, int stride, int n, char *err)
{
    int members[LAUNCH_MAX_RANKS];
    for (int i = 0; i < n; i++)
        members[i] = first + i * stride;
    return comm_view(parent, members, n, err);
}

static int open_grid(TensorState *st, const StrategyEnv *e, Comm **col, char *err)
{
    Comm *c = e->c;
    st->t = c->rank % st->T, st->d = c->rank / st->T, st->D = c->size / st->T;
    st->row = grid_view(c, st->d * st->T, 1, st->T, err);
    st->row_host = st->row ? grid_view(e->host, st->d * st->T, 1, st->T, err) : NULL;
    *col = st->row_host ? grid_view(c, st->t, st->T, st->D, err) : NULL;
    st->col_host = *col ? grid_view(e->host, st->t, st->T, st->D, err) : NULL;
    return st->col_host ? 0 : -1;
}
#line 203 "chapters/11-tensor.nw"
static int share_of(const TensorState *st, int k)
{
    return st->split[k] ? (int)(chunk_start((size_t)st->width[k], st->T, st->t + 1) -
                                chunk_start((size_t)st->width[k], st->T, st->t))
                        : st->width[k];
}

static void plan_split(TensorState *st, const Model *m)
{
    st->n_layers = m->n_layers;
    for (int k = 0; k <= m->n_layers; k++) {
        st->width[k] = m->width[k];
        st->split[k] = k % 2 == 1 && k < m->n_layers && st->T > 1;
        st->lo[k] = st->split[k] ? (int)chunk_start((size_t)m->width[k], st->T, st->t) : 0;
    }
}
#line 230 "chapters/11-tensor.nw"
/** Copy layer @p l's share between @p whole (the whole model's layout, host memory) and
 * @p mine (the rank's model @p m, host memory): into mine when @p take, else out of it. */
static void copy_share(const TensorState *st, const Model *m, int l, float *whole, float *mine,
                       bool take)
{
    const int W = st->width[l + 1], li = st->lo[l], lo = st->lo[l + 1];
    const Layer *ly = &m->layer[l];
    size_t w = 0, b = 0; /* the whole layer's offsets: the layers before it, whole */
    for (int k = 0; k < l; k++)
        w += (size_t)st->width[k] * st->width[k + 1] + st->width[k + 1];
    b = w + (size_t)st->width[l] * W;
    bool own_bias = !st->split[l] || st->t == 0;
    for (int i = 0; i < ly->in; i++)
        for (int j = 0; j < ly->out; j++) {
            float *a = &whole[w + (size_t)(li + i) * W + lo + j];
            float *x = &mine[ly->w + (size_t)i * ly->out + j];
            take ? (*x = *a) : (*a = *x);
        }
    for (int j = 0; j < ly->out; j++)
        take ? (mine[ly->b + j] = own_bias ? whole[b + lo + j] : 0.0f)
             : (whole[b + lo + j] = own_bias ? mine[ly->b + j] : 0.0f);
}
#line 260 "chapters/11-tensor.nw"
static int take_share(TensorState *st, Model *m, char *err)
{
    const Device *dev = m->dev;
    float *whole = xcalloc(m->n_params, sizeof(float));
    dev->download(whole, m->params, m->n_params * sizeof(float));
    int hidden[MAX_HIDDEN], L = m->n_layers;
    for (int k = 1; k < L; k++)
        hidden[k - 1] = share_of(st, k);
    const int max_batch = m->max_batch;
    st->whole = m->n_params;
    model_free(m);
    int rc = model_init(m, dev, st->width[0], hidden, L - 1, st->width[L], max_batch, 1, err);
#line 273 "chapters/11-tensor.nw"
    float *mine = rc == 0 ? xcalloc(m->n_params, sizeof(float)) : NULL;
    for (int l = 0; rc == 0 && l < L; l++) {
        copy_share(st, m, l, whole, mine, true);
        m->act_later[l] = st->split[l] && l < L - 1;
    }
    if (mine)
        dev->upload(m->params, mine, m->n_params * sizeof(float));
    free(mine), free(whole);
    return rc;
}
#line 327 "chapters/11-tensor.nw"
static int row_sum(TensorState *st, float *buf, size_t count, Pass pass, char *err)
{
    double t0 = now_seconds();
    if (ring_all_reduce(st->row, buf, count, st->row_scratch, 1.0f, err))
        return -1;
    st->row_seconds += now_seconds() - t0;
    if (pass != PASS_EVAL)
        st->row_bytes += (double)ring_coded_bytes(count, st->T, st->t, DTYPE_FP32);
    return 0;
}

#line 300 "chapters/11-tensor.nw"
static int tensor_after_layer(Strategy *s, Model *m, int l, Pass pass, char *err)
{
    TensorState *st = s->state;
    const size_t rows = (size_t)m->rows;
    if (pass == PASS_FORWARD)
        st->batch = (int)rows;
    if (pass != PASS_BACKWARD && st->split[l]) { /* row-parallel: g */
        if (row_sum(st, m->act[l + 1], rows * m->width[l + 1], pass, err))
            return -1;
        if (m->act_later[l] && rows > 0)
            m->dev->bias_act_forward(m->act[l + 1], st->zeros, (int)rows, m->width[l + 1],
                                     true);
    } else if (pass == PASS_BACKWARD && st->split[l + 1] && l > 0) { /* column-parallel: f */
        return row_sum(st, m->dact[l], rows * m->width[l], pass, err);
    }
    if (pass == PASS_BACKWARD && st->split[l] && st->t != 0) /* the row's first owns b */
        m->dev->zero(m->layer_grads[l] + (m->layer[l].b - m->layer[l].w),
                     (size_t)m->layer[l].out * sizeof(float));
    return 0;
}
#line 347 "chapters/11-tensor.nw"
static int tensor_sync_gradients(Strategy *s, Model *m, Timers *t, char *err)
{
    TensorState *st = s->state;
    double t0 = now_seconds();
    if (ring_all_reduce(st->col.c, m->grads, m->n_params, st->col.scratch, 1.0f / (float)st->D,
                        err))
        return -1;
    st->col_bytes += (double)ring_coded_bytes(m->n_params, st->D, st->d, DTYPE_FP32);
    st->steps++;
    st->col.c->dev->sync();
    timers_add(t, "all-reduce", now_seconds() - t0);
    return 0;
}
#line 371 "chapters/11-tensor.nw"
static int tensor_unshard(Strategy *s, Model *m, char *err)
{
    TensorState *st = s->state;
    const Device *dev = m->dev;
    float *mine = xcalloc(m->n_params, sizeof(float));
    float *whole = xcalloc(st->whole, sizeof(float));
    dev->download(mine, m->params, m->n_params * sizeof(float));
    for (int l = 0; l < st->n_layers; l++)
        if (st->split[l] || st->split[l + 1] || st->t == 0)
            copy_share(st, m, l, whole, mine, false);
    free(mine);
    Model all;
    int rc = model_init(&all, dev, st->width[0], &st->width[1], st->n_layers - 1,
                        st->width[st->n_layers], m->max_batch, 1, err);
    float *scratch = rc == 0 ? dev->alloc(chunk_max(st->whole, st->T) * sizeof(float)) : NULL;
    if (rc == 0) {
        dev->upload(all.params, whole, st->whole * sizeof(float));
        rc = ring_all_reduce(st->row, all.params, st->whole, scratch, 1.0f, err);
        dev->release(scratch);
    }
    free(whole);
    if (rc == 0)
        model_free(m), *m = all;
    return rc;
}
#line 460 "chapters/11-tensor.nw"
static void tensor_free(TensorState *st, Comm *col)
{
    Comm *views[] = {st->row, st->row_host, col, st->col_host};
    for (int i = 0; i < 4; i++)
        if (views[i])
            views[i]->close(views[i]);
    free(st);
}

static void tensor_close(Strategy *s)
{
    TensorState *st = s->state;
    const Device *dev = st->col.c->dev;
    dev->release(st->row_scratch);
    dev->release(st->zeros);
    ring_strategy_free(&st->col);
    tensor_free(st, st->col.c);
}
#line 427 "chapters/11-tensor.nw"
static void tensor_buffers(TensorState *st, Model *m, Comm *col)
{
    int widest = 0;
    for (int k = 0; k <= m->n_layers; k++)
        widest = m->width[k] > widest ? m->width[k] : widest;
    size_t most = (size_t)m->max_batch * (size_t)widest;
    ring_state(&st->col, col, st->col_host, chunk_max(m->n_params, st->D) + 1);
    st->row_scratch = m->dev->alloc((chunk_max(most, st->T) + 1) * sizeof(float));
    st->zeros = m->dev->alloc((size_t)widest * sizeof(float));
    m->dev->zero(st->zeros, (size_t)widest * sizeof(float));
}

#line 405 "chapters/11-tensor.nw"
static int tensor_open(Strategy *s, const StrategyEnv *e, char *err)
{
    Model *m = e->m;
    TensorState *st = xcalloc(1, sizeof *st);
    st->T = e->tp > 0 ? e->tp : e->c->size;
    st->accum = e->accum > 1 ? e->accum : 1;
    Comm *col = NULL;
#line 447 "chapters/11-tensor.nw"
    if (st->T < 1 || e->c->size % st->T) {
        error_set(err, "--tp %d does not divide the %d ranks", st->T, e->c->size);
        return free(st), -1;
    }
    for (int k = 1; k < m->n_layers; k += 2)
        if (m->width[k] < st->T) {
            error_set(err, "--tp %d: hidden layer %d has only %d units to split", st->T, k,
                      m->width[k]);
            return free(st), -1;
        }
#line 413 "chapters/11-tensor.nw"
    if (open_grid(st, e, &col, err) || (plan_split(st, m), take_share(st, m, err)))
        return tensor_free(st, col), -1;
    tensor_buffers(st, m, col);
    snprintf(st->runs, sizeof st->runs,
             "tensor parallel: %d row(s) of %d rank(s), the "
             "layers split along each row, the batch down each column",
             st->D, st->T);
#line 418 "chapters/11-tensor.nw"
    *s = (Strategy){.rank = st->d,
                    .world = st->D,
                    .mute = st->t != 0,
                    .sync_gradients = tensor_sync_gradients,
                    .sum_stats = ring_sum_stats,
                    .after_layer = tensor_after_layer,
                    .unshard = tensor_unshard,
                    .state = st,
                    .runs = st->runs};
#line 422 "chapters/11-tensor.nw"
    return 0;
}
#line 491 "chapters/11-tensor.nw"
size_t tensor_row_bytes(const int *width, int L, int b, int T, int t)
{
    size_t bytes = 0;
    for (int l = 0; l < L && T > 1; l++) {
        bool in_split = l % 2 == 1, out_split = l % 2 == 0 && l + 1 < L;
        if (in_split) /* row-parallel: its partial outputs, forward */
            bytes += ring_coded_bytes((size_t)b * width[l + 1], T, t, DTYPE_FP32);
        if (out_split && l > 0) /* column-parallel after a pair: its input's gradient */
            bytes += ring_coded_bytes((size_t)b * width[l], T, t, DTYPE_FP32);
    }
    return bytes;
}
#line 532 "chapters/11-tensor.nw"
static void tensor_report(const Strategy *s, FILE *f)
{
    const TensorState *st = s->state;
    long k = st->steps > 0 ? st->steps : 1;
    int N = st->T * st->D;
    fprintf(f,
            "tensor: a step sends from rank 0 %.0f B of activations along the row "
            "(the shape says %zu) and %.0f B of gradients down the column; the ring on all "
            "%d ranks would send %zu B; the row's all-reduces took %.2f s (within compute)\n",
            st->row_bytes / k,
            st->accum * tensor_row_bytes(st->width, st->n_layers, st->batch, st->T, 0),
            st->col_bytes / k, N, ring_coded_bytes(st->whole, N, 0, DTYPE_FP32),
            st->row_seconds);
#line 544 "chapters/11-tensor.nw"
}
#line 699 "chapters/11-tensor.nw"
const StrategyDef strategy_tensor = {
    .name = "tensor",
    .title = "tensor parallel: each pair of layers split along a row of ranks",
    .trainer = "row",
    .shape = SHAPE_RANKS,
    .needs = RUNS_OVER_MPI | NO_CHECKPOINT,
    .min_ranks = 1,
    .no_codec = "its gradients are shares of layers, averaged down a column; "
                "the codecs code whole gradients (use --strategy ring)",
    .open = tensor_open,
    .close = tensor_close,
    .report = tensor_report,
};
