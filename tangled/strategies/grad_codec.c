/**
 * @file grad_codec.c
 * @brief The ring's all-reduce with a codec: 16-bit numbers, PowerSGD, top-k (chapter 10).
 */
#line 1659 "chapters/10-compress.nw"
#include "grad_codec.h"

#line 1639 "chapters/10-compress.nw"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coded_ring.h"
#include "collectives.h"
#include "report.h"
#include "ring_strategy.h"
#include "rng.h"
#include "util.h"

/** The largest of three. */
#define MAX3(a, b, c) ((a) > (b) ? ((a) > (c) ? (a) : (c)) : ((b) > (c) ? (b) : (c)))

#line 1314 "chapters/10-compress.nw"
/** A codec strategy's data. */
typedef struct CodecState {
    RingState ring;                 /**< first: ring_sum_stats() reads it */
    GradCodec g;                    /**< what it runs */
    void *wire;                     /**< the coded ring's buffer */
    float *error;                   /**< what was not sent, carried to the next step */
    int n_low;                      /**< PowerSGD: layers compressed ... */
    int low[MAX_LAYERS];            /**< ... which they are */
    size_t p_at[MAX_LAYERS];        /**< where each one's P starts in p */
    size_t q_at[MAX_LAYERS];        /**< where each one's Q starts in q */
    float *p;                       /**< every P, one after another */
    float *q;                       /**< every Q, likewise */
    size_t p_len;                   /**< p's floats */
    size_t q_len;                   /**< q's floats */
    int n_runs;                     /**< runs of the flat buffer sent whole ... */
    size_t run_at[2 * MAX_LAYERS];  /**< ... where each starts */
    size_t run_len[2 * MAX_LAYERS]; /**< ... and its floats */
    float *plain;                   /**< those runs, packed */
    size_t plain_len;               /**< their floats */
    size_t k;                       /**< top-k: entries a rank sends */
    IndexValue *pairs;              /**< top-k: every rank's k pairs */
    size_t bytes;                   /**< this rank's bytes sent per step */
} CodecState;
#line 771 "chapters/10-compress.nw"
static int powersgd_sync(CodecState *st, Model *m, char *err)
{
    const Device *dev = m->dev;
    Comm *c = st->ring.c;
    const float mean = 1.0f / (float)c->size;
    int r = st->g.rank;
    dev->axpy(m->n_params, 1.0f, m->grads, st->error); /* M = G + e */
#line 825 "chapters/10-compress.nw"
    for (int i = 0, at = 0; i < st->n_runs; at += (int)st->run_len[i], i++) {
        dev->copy(st->plain + at, st->error + st->run_at[i], st->run_len[i] * sizeof(float));
        dev->zero(st->error + st->run_at[i], st->run_len[i] * sizeof(float));
    }
#line 779 "chapters/10-compress.nw"
    for (int i = 0; i < st->n_low; i++) { /* P = M Q */
        const Layer *ly = &m->layer[st->low[i]];
        dev->gemm(false, false, ly->in, r, ly->out, 1.0f, st->error + ly->w,
                  st->q + st->q_at[i], 0.0f, st->p + st->p_at[i]);
    }
    if (ring_all_reduce_coded(c, st->p, st->p_len, st->g.dtype, st->wire, mean, err))
        return -1;
#line 797 "chapters/10-compress.nw"
    for (int i = 0; i < st->n_low; i++) { /* Q = M^T orth(P) */
        const Layer *ly = &m->layer[st->low[i]];
        dev->orthonormalize(ly->in, r, st->p + st->p_at[i]);
        dev->gemm(true, false, ly->out, r, ly->in, 1.0f, st->error + ly->w, st->p + st->p_at[i],
                  0.0f, st->q + st->q_at[i]);
    }
#line 787 "chapters/10-compress.nw"
    if (ring_all_reduce_coded(c, st->q, st->q_len, st->g.dtype, st->wire, mean, err) ||
        ring_all_reduce_coded(c, st->plain, st->plain_len, st->g.dtype, st->wire, mean, err))
        return -1;
#line 810 "chapters/10-compress.nw"
    for (int i = 0; i < st->n_low; i++) {
        const Layer *ly = &m->layer[st->low[i]];
        size_t nm = (size_t)ly->in * (size_t)ly->out;
        dev->gemm(false, true, ly->in, ly->out, r, 1.0f, st->p + st->p_at[i],
                  st->q + st->q_at[i], 0.0f, m->grads + ly->w);
        dev->axpy(nm, -1.0f, m->grads + ly->w, st->error + ly->w);
    }
#line 832 "chapters/10-compress.nw"
    for (int i = 0, at = 0; i < st->n_runs; at += (int)st->run_len[i], i++)
        dev->copy(m->grads + st->run_at[i], st->plain + at, st->run_len[i] * sizeof(float));
#line 792 "chapters/10-compress.nw"
    return 0;
}
#line 988 "chapters/10-compress.nw"
static int topk_sync(CodecState *st, Model *m, char *err)
{
    const Device *dev = m->dev;
    Comm *c = st->ring.c;
    size_t k = st->k;
    IndexValue *mine = st->pairs + (size_t)c->rank * k;
    dev->axpy(m->n_params, 1.0f, m->grads, st->error); /* M = G + e */
    dev->top_k(m->n_params, st->error, k, mine);
    dev->scatter_add(k, mine, -1.0f, st->error); /* what is sent leaves e: exactly 0 */
    if (ring_all_gather(c, st->pairs, k * (size_t)c->size, sizeof *mine, err))
        return -1;
    dev->zero(m->grads, m->n_params * sizeof(float));
    for (int q = 0; q < c->size; q++)
        dev->scatter_add(k, st->pairs + (size_t)q * k, 1.0f / (float)c->size, m->grads);
    return 0;
}
#line 1438 "chapters/10-compress.nw"
static int codec_sync(Strategy *s, Model *m, Timers *t, char *err)
{
    CodecState *st = s->state;
    Comm *c = st->ring.c;
    double t0 = now_seconds();
    int rc;
    if (st->g.kind == COMPRESS_POWERSGD)
        rc = powersgd_sync(st, m, err);
    else if (st->g.kind == COMPRESS_TOPK)
        rc = topk_sync(st, m, err);
    else
        rc = ring_all_reduce_coded(c, m->grads, m->n_params, st->g.dtype, st->wire,
                                   1.0f / (float)c->size, err);
    m->dev->sync();
    timers_add(t, "all-reduce", now_seconds() - t0);
    return rc;
}
#line 1380 "chapters/10-compress.nw"
static void powersgd_open(CodecState *st, Model *m)
{
    const Device *dev = m->dev;
    int r = st->g.rank;
#line 1347 "chapters/10-compress.nw"
    for (int l = 0; l < m->n_layers; l++) {
        const Layer *ly = &m->layer[l];
        size_t nm = (size_t)ly->in * (size_t)ly->out, low = (size_t)r * (ly->in + ly->out);
        bool compress = 2 * low <= nm;
        if (compress) {
            st->p_at[st->n_low] = st->p_len, st->q_at[st->n_low] = st->q_len;
            st->p_len += (size_t)r * ly->in, st->q_len += (size_t)r * ly->out;
            st->low[st->n_low++] = l;
        }
        st->run_at[st->n_runs] = compress ? ly->b : ly->w;
        st->run_len[st->n_runs] = compress ? (size_t)ly->out : nm + (size_t)ly->out;
        st->plain_len += st->run_len[st->n_runs++];
    }
#line 1385 "chapters/10-compress.nw"
    st->p = dev->alloc((st->p_len ? st->p_len : 1) * sizeof(float));
    st->plain = dev->alloc((st->plain_len ? st->plain_len : 1) * sizeof(float));
#line 1367 "chapters/10-compress.nw"
    float *q0 = xcalloc(st->q_len ? st->q_len : 1, sizeof *q0);
    Rng rng;
    rng_seed(&rng, 0x9051d, 0);
    for (size_t i = 0; i < st->q_len; i++)
        q0[i] = rng_normal(&rng);
    st->q = dev->alloc((st->q_len ? st->q_len : 1) * sizeof(float));
    dev->upload(st->q, q0, st->q_len * sizeof(float));
    free(q0);
    for (int i = 0; i < st->n_low; i++)
        dev->orthonormalize(m->layer[st->low[i]].out, r, st->q + st->q_at[i]);
#line 1388 "chapters/10-compress.nw"
}
#line 1396 "chapters/10-compress.nw"
static int codec_buffers(CodecState *st, Model *m)
{
    const Device *dev = m->dev;
    size_t n = m->n_params, size = (size_t)st->ring.c->size;
    if (st->g.kind != COMPRESS_NONE)
        st->error = dev->alloc(n * sizeof(float));
    if (st->g.kind == COMPRESS_POWERSGD)
        powersgd_open(st, m);
    if (st->g.kind == COMPRESS_TOPK) {
        double k = ceil(st->g.fraction * (double)n);
        st->k = k < 1 ? 1 : k > (double)n ? n : (size_t)k;
        st->pairs = dev->alloc(size * st->k * sizeof(IndexValue));
    }
    size_t longest =
        st->g.kind == COMPRESS_POWERSGD ? MAX3(st->p_len, st->q_len, st->plain_len) : n;
    st->wire = dev->alloc((longest ? longest : 1) * dtype_bytes(st->g.dtype));
    return 0;
}
#line 1463 "chapters/10-compress.nw"
int grad_codec_open(Strategy *s, const GradCodec *g, Comm *c, Comm *host, Model *m, char *err)
{
#line 1466 "chapters/10-compress.nw"
    (void)err;
    CodecState *st = xcalloc(1, sizeof *st);
    st->g = *g;
    ring_state(&st->ring, c, host, 1);
    codec_buffers(st, m);
    st->bytes = grad_codec_bytes(g, m, c->size, c->rank);
    *s = (Strategy){.rank = c->rank,
                    .world = c->size,
                    .sync_gradients = codec_sync,
                    .sum_stats = ring_sum_stats,
                    .state = st};
    return 0;
}
#line 1482 "chapters/10-compress.nw"
bool grad_codec_owns(const Strategy *s)
{
    return s->sync_gradients == codec_sync;
}

const float *grad_codec_error(const Strategy *s)
{
    return ((const CodecState *)s->state)->error;
}

void grad_codec_close(Strategy *s)
{
    CodecState *st = s->state;
    const Device *dev = st->ring.c->dev;
    void *held[] = {st->wire, st->error, st->p, st->q, st->plain, st->pairs};
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++)
        if (held[i])
            dev->release(held[i]);
    ring_strategy_free(&st->ring);
    free(st);
}
#line 1527 "chapters/10-compress.nw"
/** The numbers of each all-reduce of codec @p g's step for @p m: 1 or 3 of them. */
static int reduce_sizes(const GradCodec *g, const Model *m, size_t count[3])
{
    if (g->kind != COMPRESS_POWERSGD) {
        count[0] = m->n_params;
        return 1;
    }
    count[0] = count[1] = count[2] = 0;
    for (int l = 0; l < m->n_layers; l++) {
        const Layer *ly = &m->layer[l];
        size_t nm = (size_t)ly->in * (size_t)ly->out, r = (size_t)g->rank;
        if (2 * r * (size_t)(ly->in + ly->out) <= nm)
            count[0] += r * ly->in, count[1] += r * ly->out, count[2] += ly->out;
        else
            count[2] += nm + (size_t)ly->out;
    }
    return 3;
}

/** Top-k's k for @p m: at least one entry, at most all. */
static size_t topk_count(const GradCodec *g, const Model *m)
{
    double k = ceil(g->fraction * (double)m->n_params);
    return k < 1 ? 1 : k > (double)m->n_params ? m->n_params : (size_t)k;
}
#line 1511 "chapters/10-compress.nw"
size_t grad_codec_bytes(const GradCodec *g, const Model *m, int size, int rank)
{
    if (g->kind == COMPRESS_TOPK)
        return (size_t)(size - 1) * topk_count(g, m) * sizeof(IndexValue);
    size_t count[3], sent = 0;
    for (int i = 0, k = reduce_sizes(g, m, count); i < k; i++)
        sent += ring_coded_bytes(count[i], size, rank, g->dtype);
    return sent;
}
#line 1558 "chapters/10-compress.nw"
void grad_codec_traffic(const GradCodec *g, const Model *m, int size, CodecTraffic *t)
{
    size_t count[3];
    *t = (CodecTraffic){0};
    if (g->kind == COMPRESS_TOPK) {
        t->gathered = (double)size * (double)topk_count(g, m) * sizeof(IndexValue);
        return;
    }
    t->reduces = reduce_sizes(g, m, count);
    for (int i = 0; i < t->reduces; i++)
        t->reduce[i] = (double)count[i] * (double)dtype_bytes(g->dtype);
}
#line 1583 "chapters/10-compress.nw"
int grad_codec_parse(const char *spec, GradCodec *g, char *why, size_t len)
{
    char *end = NULL;
    g->kind = COMPRESS_NONE;
    if (strcmp(spec, "none") == 0)
        return 0;
    if (strncmp(spec, "powersgd:", 9) == 0) {
        long r = strtol(spec + 9, &end, 10);
        if (end != spec + 9 && !*end && r >= 1 && r <= 64) {
            g->kind = COMPRESS_POWERSGD, g->rank = (int)r;
            return 0;
        }
    } else if (strncmp(spec, "topk:", 5) == 0) {
        double f = strtod(spec + 5, &end);
        if (end != spec + 5 && !*end && f > 0 && f <= 1) {
            g->kind = COMPRESS_TOPK, g->fraction = f;
            return 0;
        }
    }
    snprintf(why, len,
             "--compress %s: expected none, powersgd:R (R from 1 to 64) or topk:F "
             "(F above 0, at most 1)",
             spec);
    return -1;
}
#line 1611 "chapters/10-compress.nw"
bool grad_codec_active(const GradCodec *g)
{
    return g->dtype != DTYPE_FP32 || g->kind != COMPRESS_NONE;
}

void grad_codec_describe(const GradCodec *g, char *line, size_t len)
{
    const char *t = dtype_name(g->dtype);
    if (g->kind == COMPRESS_POWERSGD)
        snprintf(line, len, "PowerSGD rank %d with error feedback, P and Q as %s", g->rank, t);
    else if (g->kind == COMPRESS_TOPK)
        snprintf(line, len, "top-k, %g of the entries, with error feedback", g->fraction);
    else
        snprintf(line, len, "%s on the wire, summed in fp32", t);
}

void grad_codec_report(const Strategy *s, FILE *f)
{
    if (!grad_codec_owns(s))
        return;
    const CodecState *st = s->state;
    char b[32], n[32];
    fprintf(f, "codec: rank 0 sent %s bytes (%s) of gradients per step\n",
            format_count(n, (long long)st->bytes), format_bytes(b, st->bytes));
}
