/* The exercises the jail runs (jail.h): for each, its argument record, the order in which
 * its arguments travel (visit: inputs, the buffers it writes, its result), the call of the
 * student's function in the host and, in the judge (JAIL_JUDGE), the proxy that stands in
 * for that function in the test. A buffer's length is the one its contract gives
 * (exercises/chN/chN.h). A buffer shared with other processes (a barrier, a window of
 * chapter 8) is mapped into the host rather than copied (wire_shared). */
#include <stdio.h>
#include <stdlib.h>

#include "../../exercises/ch1/ch1.h"
#include "../../exercises/ch3/ch3.h"
#include "../../exercises/ch4/ch4.h"
#include "../../exercises/ch5/ch5.h"
#include "../../exercises/ch6/ch6.h"
#include "../../exercises/ch7/ch7.h"
#include "../../exercises/ch2/ch2.h"
#include "../../exercises/ch8/ch8.h"
#include "../../exercises/ch9/ch9.h"
#include "../../exercises/ch10/ch10.h"
#include "../../exercises/ch11/ch11.h"
#include "jail.h"

#define IN(x)              wire_in(w, &a->x, sizeof a->x)
#define RESULT()           wire_result(w, &a->ret, sizeof a->ret)
#define BUF(x, bytes, how) wire_buf(w, &a->x, (bytes), (how))
#define ERR()              BUF(err, ERR_LEN, WIRE_BACK | WIRE_HOST | WIRE_TEXT)
#define FN(name)           ((__typeof__(name) *)fn)
#define N_OF(c)            ((c) ? jail_n((c)->size) : 0)

/* Each exercise's record, visit and call; its proxy is below (JAIL_JUDGE). */
#define ENTRY_AS(exercise, name)                                                               \
    {                                                                                          \
#exercise, #name, sizeof(A_##name), (void (*)(Wire *, void *))visit_##name,            \
            call_##name                                                                        \
    }
#define ENTRY(name) ENTRY_AS(name, name)

typedef struct {
    Fast *f;
    int m, n, k, ret;
} A_gemm_blocked;
static void visit_gemm_blocked(Wire *w, A_gemm_blocked *a)
{
    wire_fast(w, &a->f);
    IN(m), IN(n), IN(k);
    RESULT();
}
static void call_gemm_blocked(void *v, void *fn)
{
    A_gemm_blocked *a = v;
    a->ret = FN(gemm_blocked)(a->f, a->m, a->n, a->k);
}

typedef struct {
    Model *m;
    int B;
    float eps;
    size_t *worst;
    double ret;
} A_gradient_check;
static void visit_gradient_check(Wire *w, A_gradient_check *a)
{
    wire_model(w, &a->m);
    IN(B), IN(eps);
    BUF(worst, sizeof(size_t), WIRE_BACK | WIRE_HOST);
    RESULT();
}
static void call_gradient_check(void *v, void *fn)
{
    A_gradient_check *a = v;
    a->ret = FN(gradient_check)(a->m, a->B, a->eps, a->worst);
}

typedef struct {
    const Device *dev;
    size_t n;
    float lr, mu;
    const float *grads;
    float *velocity, *params;
} A_sgd_nesterov;
static void visit_sgd_nesterov(Wire *w, A_sgd_nesterov *a)
{
    wire_device(w, &a->dev);
    IN(n), IN(lr), IN(mu);
    BUF(grads, a->n * 4, WIRE_IN);
    BUF(velocity, a->n * 4, WIRE_BACK);
    BUF(params, a->n * 4, WIRE_BACK);
}
static void call_sgd_nesterov(void *v, void *fn)
{
    A_sgd_nesterov *a = v;
    FN(sgd_nesterov)(a->dev, a->n, a->lr, a->mu, a->grads, a->velocity, a->params);
}

typedef struct {
    float *dy;
    const float *y;
    float *dbias;
    int rows, cols;
} A_relu_bias_backward;
static void visit_relu_bias_backward(Wire *w, A_relu_bias_backward *a)
{
    IN(rows), IN(cols);
    size_t n = jail_n(a->rows) * jail_n(a->cols);
    BUF(dy, n * 4, WIRE_BACK);
    BUF(y, n * 4, WIRE_IN);
    BUF(dbias, jail_n(a->cols) * 4, WIRE_BACK);
}
static void call_relu_bias_backward(void *v, void *fn)
{
    A_relu_bias_backward *a = v;
    FN(relu_bias_backward)(a->dy, a->y, a->dbias, a->rows, a->cols);
}

typedef struct {
    Comm *c;
    char *err;
    int ret;
} A_barrier_dissemination;
static void visit_barrier_dissemination(Wire *w, A_barrier_dissemination *a)
{
    wire_comm(w, &a->c);
    ERR(), RESULT();
}
static void call_barrier_dissemination(void *v, void *fn)
{
    A_barrier_dissemination *a = v;
    a->ret = FN(barrier_dissemination)(a->c, a->err);
}

typedef struct {
    Comm *c;
    int root;
    void *buf;
    size_t bytes;
    char *err;
    int ret;
} A_broadcast_tree;
static void visit_broadcast_tree(Wire *w, A_broadcast_tree *a)
{
    wire_comm(w, &a->c);
    IN(root), IN(bytes);
    BUF(buf, a->bytes, WIRE_BACK);
    ERR(), RESULT();
}
static void call_broadcast_tree(void *v, void *fn)
{
    A_broadcast_tree *a = v;
    a->ret = FN(broadcast_tree)(a->c, a->root, a->buf, a->bytes, a->err);
}

enum { MAX_WORKERS = 64 };
typedef struct {
    const Device *dev;
    int workers, whole; /* whole: grads is not NULL */
    float *g[MAX_WORKERS];
    const int *counts;
    size_t n;
    float *out;
    char *err;
    int ret;
} A_ps_weighted_mean;
static void visit_ps_weighted_mean(Wire *w, A_ps_weighted_mean *a)
{
    wire_device(w, &a->dev);
    IN(workers), IN(whole), IN(n);
    size_t k = jail_n(a->workers) < MAX_WORKERS ? jail_n(a->workers) : MAX_WORKERS;
    BUF(counts, k * sizeof(int), WIRE_HOST);
    for (size_t i = 0; i < k; i++)
        BUF(g[i], a->n * 4, WIRE_IN);
    BUF(out, a->n * 4, WIRE_BACK);
    ERR(), RESULT();
}
static void call_ps_weighted_mean(void *v, void *fn)
{
    A_ps_weighted_mean *a = v;
    a->ret = FN(ps_weighted_mean)(a->dev, a->workers, a->whole ? a->g : NULL, a->counts, a->n,
                                  a->out, a->err);
}

typedef struct {
    Comm *c;
    int K;
    const float *grads;
    float *params;
    size_t n;
    char *err;
    int ret;
} A_ps_sharded_exchange;
static void visit_ps_sharded_exchange(Wire *w, A_ps_sharded_exchange *a)
{
    wire_comm(w, &a->c);
    IN(K), IN(n);
    BUF(grads, a->n * 4, WIRE_IN);
    BUF(params, a->n * 4, WIRE_BACK);
    ERR(), RESULT();
}
static void call_ps_sharded_exchange(void *v, void *fn)
{
    A_ps_sharded_exchange *a = v;
    a->ret = FN(ps_sharded_exchange)(a->c, a->K, a->grads, a->params, a->n, a->err);
}

typedef struct {
    const Device *dev;
    float *params;
    long *version;
    const float *grad;
    size_t n;
    long grad_version;
    int bound;
    float lr;
    char *err;
    int ret;
} A_ps_async_push;
static void visit_ps_async_push(Wire *w, A_ps_async_push *a)
{
    wire_device(w, &a->dev);
    IN(n), IN(grad_version), IN(bound), IN(lr);
    BUF(params, a->n * 4, WIRE_BACK);
    BUF(version, sizeof(long), WIRE_BACK | WIRE_HOST);
    BUF(grad, a->n * 4, WIRE_IN);
    ERR(), RESULT();
}
static void call_ps_async_push(void *v, void *fn)
{
    A_ps_async_push *a = v;
    a->ret = FN(ps_async_push)(a->dev, a->params, a->version, a->grad, a->n, a->grad_version,
                               a->bound, a->lr, a->err);
}

/* The reduce-scatters and all-reduces of chapters 4 and 5: buf of count floats (or of the
 * sum of counts[]), scratch as each contract says. */
typedef struct {
    Comm *c;
    float *buf, *scratch;
    const size_t *counts;
    size_t count;
    char *err;
    int ret;
} A_collective;
typedef A_collective A_ring_reduce_scatter_v, A_ring_all_gather_v;
typedef A_collective A_ring_reduce_scatter_bidir, A_direct_reduce_scatter;
typedef A_collective A_rabenseifner_all_reduce, A_naive_all_reduce;

/* counts[] of every rank; buf the sum of them; scratch (when has_scratch) the largest. */
static void visit_counts(Wire *w, A_collective *a, int has_scratch)
{
    wire_comm(w, &a->c);
    size_t N = N_OF(a->c), total = 0, most = 0;
    BUF(counts, N * sizeof(size_t), WIRE_HOST);
    for (size_t i = 0; a->counts && i < N; i++) {
        total += a->counts[i];
        most = a->counts[i] > most ? a->counts[i] : most;
    }
    BUF(buf, total * 4, WIRE_BACK);
    if (has_scratch)
        BUF(scratch, most * 4, WIRE_IN);
    ERR(), RESULT();
}
static void visit_ring_reduce_scatter_v(Wire *w, A_collective *a)
{
    visit_counts(w, a, 1);
}
static void visit_ring_all_gather_v(Wire *w, A_collective *a)
{
    visit_counts(w, a, 0);
}
static void call_ring_reduce_scatter_v(void *v, void *fn)
{
    A_collective *a = v;
    a->ret = FN(ring_reduce_scatter_v)(a->c, a->buf, a->counts, a->scratch, a->err);
}
static void call_ring_all_gather_v(void *v, void *fn)
{
    A_collective *a = v;
    a->ret = FN(ring_all_gather_v)(a->c, a->buf, a->counts, a->err);
}

/* buf of count floats, scratch of `scratch` floats. */
static void visit_count(Wire *w, A_collective *a, size_t (*scratch)(size_t count, size_t N))
{
    wire_comm(w, &a->c);
    IN(count);
    BUF(buf, a->count * 4, WIRE_BACK);
    BUF(scratch, scratch(a->count, N_OF(a->c)) * 4, WIRE_IN);
    ERR(), RESULT();
}
static size_t largest_chunk(size_t count, size_t N)
{
    return N ? chunk_max(count, (int)N) : 0;
}
static size_t half(size_t count, size_t N)
{
    (void)N;
    return chunk_max(count, 2);
}
static size_t everyone(size_t count, size_t N)
{
    return count * N;
}
#define COLLECTIVE(name, sizing)                                                               \
    static void visit_##name(Wire *w, A_collective *a)                                         \
    {                                                                                          \
        visit_count(w, a, sizing);                                                             \
    }                                                                                          \
    static void call_##name(void *v, void *fn)                                                 \
    {                                                                                          \
        A_collective *a = v;                                                                   \
        a->ret = FN(name)(a->c, a->buf, a->count, a->scratch, a->err);                         \
    }
COLLECTIVE(ring_reduce_scatter_bidir, largest_chunk)
COLLECTIVE(direct_reduce_scatter, largest_chunk)
COLLECTIVE(rabenseifner_all_reduce, half)
COLLECTIVE(naive_all_reduce, everyone)

/* 9.1's all-reduce on hosts of L ranks: buf and scratch of count floats. */
typedef struct {
    Comm *c;
    int L;
    float *buf, *scratch;
    size_t count;
    char *err;
    int ret;
} A_tree_all_reduce;
static void visit_tree_all_reduce(Wire *w, A_tree_all_reduce *a)
{
    wire_comm(w, &a->c);
    IN(L), IN(count);
    BUF(buf, a->count * 4, WIRE_BACK);
    BUF(scratch, a->count * 4, WIRE_IN);
    ERR(), RESULT();
}
static void call_tree_all_reduce(void *v, void *fn)
{
    A_tree_all_reduce *a = v;
    a->ret = FN(tree_all_reduce)(a->c, a->L, a->buf, a->count, a->scratch, a->err);
}

typedef struct {
    const size_t *layer_floats;
    const double *ready;
    int n_layers;
    double alpha, beta;
    int *bucket_of;
    double *end;
    int ret;
} A_ddp_buckets;
static void visit_ddp_buckets(Wire *w, A_ddp_buckets *a)
{
    IN(n_layers), IN(alpha), IN(beta);
    BUF(layer_floats, jail_n(a->n_layers) * sizeof(size_t), WIRE_IN);
    BUF(ready, jail_n(a->n_layers) * sizeof(double), WIRE_IN);
    BUF(bucket_of, jail_n(a->n_layers) * sizeof(int), WIRE_BACK);
    BUF(end, sizeof(double), WIRE_BACK | WIRE_HOST);
    RESULT();
}
static void call_ddp_buckets(void *v, void *fn)
{
    A_ddp_buckets *a = v;
    a->ret = FN(ddp_buckets)(a->layer_floats, a->ready, a->n_layers, a->alpha, a->beta,
                             a->bucket_of, a->end);
}

typedef struct {
    const float *x;
    const uint16_t *noise;
    uint16_t *h;
    size_t n;
} A_fp16_encode;
static void visit_fp16_encode(Wire *w, A_fp16_encode *a)
{
    IN(n);
    BUF(x, a->n * 4, WIRE_IN);
    BUF(noise, a->n * 2, WIRE_IN);
    BUF(h, a->n * 2, WIRE_BACK);
}
static void call_fp16_encode(void *v, void *fn)
{
    A_fp16_encode *a = v;
    FN(fp16_encode)(a->x, a->noise, a->h, a->n);
}

typedef struct {
    Comm *c;
    float *params, *scratch;
    size_t n;
    long step, warmup;
    const int *periods, *sizes;
    int levels, ret;
    char *err;
} A_local_sgd_sync;
static void visit_local_sgd_sync(Wire *w, A_local_sgd_sync *a)
{
    wire_comm(w, &a->c);
    IN(n), IN(step), IN(warmup), IN(levels);
    /* levels entries each (one when levels is below 1: the test's arrays hold that much) */
    BUF(periods, jail_n(a->levels > 1 ? a->levels : 1) * sizeof(int), WIRE_IN | WIRE_HOST);
    BUF(sizes, jail_n(a->levels > 1 ? a->levels : 1) * sizeof(int), WIRE_IN | WIRE_HOST);
    BUF(params, a->n * 4, WIRE_BACK);
    BUF(scratch, a->n * 4, WIRE_IN);
    ERR(), RESULT();
}
static void call_local_sgd_sync(void *v, void *fn)
{
    A_local_sgd_sync *a = v;
    a->ret = FN(local_sgd_sync)(a->c, a->params, a->n, a->step, a->warmup, a->periods,
                                a->sizes, a->levels, a->scratch, a->err);
}

typedef struct {
    int stage, ranks, rank, state_floats;
    size_t n_params, ret;
} A_zero_state_bytes;
static void visit_zero_state_bytes(Wire *w, A_zero_state_bytes *a)
{
    IN(stage), IN(ranks), IN(rank), IN(state_floats), IN(n_params);
    RESULT();
}
static void call_zero_state_bytes(void *v, void *fn)
{
    A_zero_state_bytes *a = v;
    a->ret = FN(zero_state_bytes)(a->stage, a->n_params, a->ranks, a->rank, a->state_floats);
}

typedef struct {
    Comm *c;
    float *grads;
    size_t n;
    double max_norm, *norm;
    char *err;
    int ret;
} A_clip_grad_norm_sharded;
static void visit_clip_grad_norm_sharded(Wire *w, A_clip_grad_norm_sharded *a)
{
    wire_comm(w, &a->c);
    IN(n), IN(max_norm);
    BUF(grads, a->n * 4, WIRE_BACK | WIRE_HOST);
    BUF(norm, sizeof(double), WIRE_BACK | WIRE_HOST);
    ERR(), RESULT();
}
static void call_clip_grad_norm_sharded(void *v, void *fn)
{
    A_clip_grad_norm_sharded *a = v;
    a->ret = FN(clip_grad_norm_sharded)(a->c, a->grads, a->n, a->max_norm, a->norm, a->err);
}

typedef struct {
    int n_layers, max;
    FsdpEvent *ev;
    int ret;
} A_fsdp_schedule;
static void visit_fsdp_schedule(Wire *w, A_fsdp_schedule *a)
{
    IN(n_layers), IN(max);
    BUF(ev, jail_n(a->max) * sizeof(FsdpEvent), WIRE_BACK);
    RESULT();
}
static void call_fsdp_schedule(void *v, void *fn)
{
    A_fsdp_schedule *a = v;
    a->ret = FN(fsdp_schedule)(a->n_layers, a->ev, a->max);
}

typedef struct {
    SenseBarrier *b;
    int *local_sense;
} A_sense_barrier_wait;
static void visit_sense_barrier_wait(Wire *w, A_sense_barrier_wait *a)
{
    wire_shared(w, &a->b, sizeof *a->b);
    BUF(local_sense, sizeof(int), WIRE_BACK);
}
static void call_sense_barrier_wait(void *v, void *fn)
{
    A_sense_barrier_wait *a = v;
    FN(sense_barrier_wait)(a->b, a->local_sense);
}

/* Chapter 8: buf lies in the communicator's window, which the host maps. */
typedef struct {
    Comm *c;
    int root;
    float *buf, *scratch;
    size_t count;
    char *err;
    int ret;
} A_direct;
typedef A_direct A_direct_broadcast, A_direct_reduce;
static void visit_direct(Wire *w, A_direct *a)
{
    wire_comm(w, &a->c);
    IN(root), IN(count);
    wire_shared(w, &a->buf, a->count * 4);
    BUF(scratch, a->count * 4, WIRE_IN);
    ERR(), RESULT();
}
#define visit_direct_broadcast visit_direct
#define visit_direct_reduce    visit_direct

/* node_sizes[n_nodes], in the test's memory. */
typedef struct {
    Comm *c;
    const int *node_sizes;
    int n_nodes;
    float *buf, *scratch;
    size_t count;
    char *err;
    int ret;
} A_unequal_hosts_all_reduce;
static void visit_unequal_hosts_all_reduce(Wire *w, A_unequal_hosts_all_reduce *a)
{
    wire_comm(w, &a->c);
    IN(n_nodes), IN(count);
    BUF(node_sizes, jail_n(a->n_nodes) * sizeof(int), WIRE_HOST);
    wire_shared(w, &a->buf, a->count * 4);
    BUF(scratch, a->count * 4, WIRE_IN);
    ERR(), RESULT();
}
/* buf: size blocks of count floats, shared; scratch: as many, in the rank's own memory. */
typedef struct {
    Comm *c;
    float *buf;
    size_t count;
    float *scratch;
    char *err;
    int ret;
} A_direct_all_to_all;
static void visit_direct_all_to_all(Wire *w, A_direct_all_to_all *a)
{
    wire_comm(w, &a->c);
    IN(count);
    wire_shared(w, &a->buf, (size_t)N_OF(a->c) * a->count * 4);
    BUF(scratch, (size_t)N_OF(a->c) * a->count * 4, WIRE_IN);
    ERR(), RESULT();
}
static void call_direct_all_to_all(void *v, void *fn)
{
    A_direct_all_to_all *a = v;
    a->ret = FN(direct_all_to_all)(a->c, a->buf, a->count, a->scratch, a->err);
}
static void call_direct_broadcast(void *v, void *fn)
{
    A_direct *a = v;
    a->ret = FN(direct_broadcast)(a->c, a->buf, a->count, a->root, a->err);
}
static void call_direct_reduce(void *v, void *fn)
{
    A_direct *a = v;
    a->ret = FN(direct_reduce)(a->c, a->buf, a->count, a->root, a->err);
}
static void call_unequal_hosts_all_reduce(void *v, void *fn)
{
    A_unequal_hosts_all_reduce *a = v;
    a->ret = FN(unequal_hosts_all_reduce)(a->c, a->node_sizes, a->n_nodes, a->buf, a->count,
                                          a->scratch, a->err);
}

/* Chapter 9's grid: buf and scratch of count floats, in the rank's own memory. */
typedef struct {
    Comm *c;
    int rows;
    float *buf, *scratch;
    size_t count;
    char *err;
    int ret;
} A_torus_all_reduce;
static void visit_torus_all_reduce(Wire *w, A_torus_all_reduce *a)
{
    wire_comm(w, &a->c);
    IN(rows), IN(count);
    BUF(buf, a->count * 4, WIRE_BACK);
    BUF(scratch, a->count * 4, WIRE_IN);
    ERR(), RESULT();
}
static void call_torus_all_reduce(void *v, void *fn)
{
    A_torus_all_reduce *a = v;
    a->ret = FN(torus_all_reduce)(a->c, a->rows, a->buf, a->count, a->scratch, a->err);
}

/* Chapter 10's 1-bit compressor: g, error and the bits in the test's memory. */
typedef struct {
    const float *g;
    float *error;
    size_t n;
    uint8_t *bits;
    float *hi, *lo;
} A_onebit_compress;
static void visit_onebit_compress(Wire *w, A_onebit_compress *a)
{
    IN(n);
    BUF(g, a->n * 4, WIRE_IN);
    BUF(error, a->n * 4, WIRE_BACK);
    BUF(bits, (a->n + 7) / 8, WIRE_BACK);
    BUF(hi, sizeof(float), WIRE_BACK);
    BUF(lo, sizeof(float), WIRE_BACK);
}
static void call_onebit_compress(void *v, void *fn)
{
    A_onebit_compress *a = v;
    FN(onebit_compress)(a->g, a->error, a->n, a->bits, a->hi, a->lo);
}

/* 10.3: v and noise in, n levels and the scale back. */
typedef struct {
    const float *v;
    const uint32_t *noise;
    size_t n;
    int s;
    int8_t *q;
    float *scale;
} A_qsgd_quantize;
static void visit_qsgd_quantize(Wire *w, A_qsgd_quantize *a)
{
    IN(n), IN(s);
    BUF(v, a->n * 4, WIRE_IN);
    BUF(noise, a->n * 4, WIRE_IN);
    BUF(q, a->n, WIRE_BACK);
    BUF(scale, sizeof(float), WIRE_BACK);
}
static void call_qsgd_quantize(void *v, void *fn)
{
    A_qsgd_quantize *a = v;
    FN(qsgd_quantize)(a->v, a->noise, a->n, a->s, a->q, a->scale);
}

/* ... and its all-reduce: grad and error of n floats, scratch of N messages, in the rank's
 * own memory. */
typedef struct {
    Comm *c;
    float *grad, *error;
    size_t n;
    void *scratch;
    char *err;
    int ret;
} A_onebit_all_reduce;
static void visit_onebit_all_reduce(Wire *w, A_onebit_all_reduce *a)
{
    wire_comm(w, &a->c);
    IN(n);
    BUF(grad, a->n * 4, WIRE_BACK);
    BUF(error, a->n * 4, WIRE_BACK);
    BUF(scratch, N_OF(a->c) * onebit_message_bytes(a->n), WIRE_IN);
    ERR(), RESULT();
}
static void call_onebit_all_reduce(void *v, void *fn)
{
    A_onebit_all_reduce *a = v;
    a->ret = FN(onebit_all_reduce)(a->c, a->grad, a->error, a->n, a->scratch, a->err);
}

/* Chapter 11's choice of the layers to split: the widths in, the plan and its cost back. */
typedef struct {
    const int *widths;
    int L, T;
    int *split;
    size_t *allreduced, ret;
} A_tensor_split_plan;
static void visit_tensor_split_plan(Wire *w, A_tensor_split_plan *a)
{
    IN(L), IN(T);
    BUF(widths, (jail_n(a->L) + 1) * sizeof(int), WIRE_IN);
    BUF(split, jail_n(a->L) * sizeof(int), WIRE_BACK);
    BUF(allreduced, sizeof(size_t), WIRE_BACK);
    RESULT();
}
static void call_tensor_split_plan(void *v, void *fn)
{
    A_tensor_split_plan *a = v;
    a->ret = FN(tensor_split_plan)(a->widths, a->L, a->T, a->split, a->allreduced);
}

/* ... and the grid's gradient step: grad of count floats, scratch of chunk_max(count, D) (at
 * most count), the norm, in the rank's own memory. */
typedef struct {
    Comm *c;
    int T;
    float *grad;
    size_t count, bias, n_bias, shared;
    double max_norm;
    float *scratch;
    double *norm;
    char *err;
    int ret;
} A_grid_gradient_step;
static void visit_grid_gradient_step(Wire *w, A_grid_gradient_step *a)
{
    wire_comm(w, &a->c);
    IN(T), IN(count), IN(bias), IN(n_bias), IN(shared), IN(max_norm);
    BUF(grad, a->count * 4, WIRE_BACK);
    BUF(scratch, a->count * 4, WIRE_IN);
    BUF(norm, sizeof(double), WIRE_BACK | WIRE_HOST);
    ERR(), RESULT();
}
static void call_grid_gradient_step(void *v, void *fn)
{
    A_grid_gradient_step *a = v;
    a->ret = FN(grid_gradient_step)(a->c, a->T, a->grad, a->count, a->bias, a->n_bias,
                                    a->shared, a->max_norm, a->scratch, a->norm, a->err);
}

/* 11.3: logits of B rows of cols classes and B labels in (the test's memory), B losses and
 * B x cols gradients back. */
typedef struct {
    Comm *c;
    const float *logits;
    const int *labels;
    int B, cols, first;
    float *loss, *dlogits;
    char *err;
    int ret;
} A_vocab_parallel_xent;
static void visit_vocab_parallel_xent(Wire *w, A_vocab_parallel_xent *a)
{
    wire_comm(w, &a->c);
    IN(B), IN(cols), IN(first);
    BUF(logits, jail_n(a->B) * jail_n(a->cols) * 4, WIRE_IN | WIRE_HOST);
    BUF(labels, jail_n(a->B) * sizeof(int), WIRE_IN | WIRE_HOST);
    BUF(loss, jail_n(a->B) * 4, WIRE_BACK | WIRE_HOST);
    BUF(dlogits, jail_n(a->B) * jail_n(a->cols) * 4, WIRE_BACK | WIRE_HOST);
    ERR(), RESULT();
}
static void call_vocab_parallel_xent(void *v, void *fn)
{
    A_vocab_parallel_xent *a = v;
    a->ret = FN(vocab_parallel_xent)(a->c, a->logits, a->labels, a->B, a->cols, a->first,
                                     a->loss, a->dlogits, a->err);
}

#ifndef JAIL_JUDGE
/* In the host, the compressor that a student's onebit_all_reduce calls is the book's own
 * (exported by -rdynamic, as the tests of 10.2 supply it): 10.2 is graded apart from 10.1. */
#if __has_include("../hidden/ch10/onebit_reference.h") /* a zip without chapter 10: none */
#include "../hidden/ch10/onebit_reference.h"
void onebit_compress(const float *g, float *error, size_t n, uint8_t *bits, float *hi,
                     float *lo)
{
    onebit_reference(g, error, n, bits, hi, lo);
}
#endif
#endif

/* The table, in the order of the IDs. */
enum {
    ID_gemm_blocked,
    ID_sgd_nesterov,
    ID_relu_bias_backward,
    ID_barrier_dissemination,
    ID_broadcast_tree,
    ID_ps_weighted_mean,
    ID_ps_sharded_exchange,
    ID_ps_async_push,
    ID_ring_reduce_scatter_v,
    ID_ring_reduce_scatter_bidir,
    ID_direct_reduce_scatter,
    ID_ring_all_gather_v,
    ID_rabenseifner_all_reduce,
    ID_naive_all_reduce,
    ID_ddp_buckets,
    ID_fp16_encode,
    ID_local_sgd_sync,
    ID_zero_state_bytes,
    ID_clip_grad_norm_sharded,
    ID_fsdp_schedule,
    ID_sense_barrier_wait,
    ID_direct_broadcast,
    ID_direct_reduce,
    ID_direct_all_to_all,
    ID_unequal_hosts_all_reduce,
    ID_tree_all_reduce,
    ID_torus_all_reduce,
    ID_onebit_compress,
    ID_onebit_all_reduce,
    ID_qsgd_quantize,
    ID_tensor_split_plan,
    ID_grid_gradient_step,
    ID_vocab_parallel_xent,
    ID_gradient_check,
    N_ENTRIES
};
const JailEntry jail_entries[] = {
    ENTRY(gemm_blocked),
    ENTRY(sgd_nesterov),
    ENTRY(relu_bias_backward),
    ENTRY(barrier_dissemination),
    ENTRY(broadcast_tree),
    ENTRY(ps_weighted_mean),
    ENTRY(ps_sharded_exchange),
    ENTRY(ps_async_push),
    ENTRY(ring_reduce_scatter_v),
    ENTRY(ring_reduce_scatter_bidir),
    ENTRY(direct_reduce_scatter),
    ENTRY(ring_all_gather_v),
    ENTRY(rabenseifner_all_reduce),
    ENTRY(naive_all_reduce),
    ENTRY(ddp_buckets),
    ENTRY(fp16_encode),
    ENTRY(local_sgd_sync),
    ENTRY(zero_state_bytes),
    ENTRY(clip_grad_norm_sharded),
    ENTRY(fsdp_schedule),
    ENTRY_AS(sense_barrier, sense_barrier_wait),
    ENTRY(direct_broadcast),
    ENTRY(direct_reduce),
    ENTRY(direct_all_to_all),
    ENTRY(unequal_hosts_all_reduce),
    ENTRY(tree_all_reduce),
    ENTRY(torus_all_reduce),
    ENTRY(onebit_compress),
    ENTRY(onebit_all_reduce),
    ENTRY(qsgd_quantize),
    ENTRY(tensor_split_plan),
    ENTRY(grid_gradient_step),
    ENTRY(vocab_parallel_xent),
    ENTRY_AS(grad_check, gradient_check),
};
const int jail_n_entries = N_ENTRIES;
_Static_assert(sizeof jail_entries / sizeof *jail_entries == N_ENTRIES, "one entry per ID");

#ifdef JAIL_JUDGE
/* The proxies: in the test's binary, each exercise's function is one of these. */
int gemm_blocked(Fast *f, int m, int n, int k)
{
    A_gemm_blocked a = {f, m, n, k, 0};
    jail_call(ID_gemm_blocked, &a);
    return a.ret;
}

void sgd_nesterov(const Device *dev, size_t n, float lr, float mu, const float *grads,
                  float *velocity, float *params)
{
    A_sgd_nesterov a = {dev, n, lr, mu, grads, velocity, params};
    jail_call(ID_sgd_nesterov, &a);
}

void relu_bias_backward(float *dy, const float *y, float *dbias, int rows, int cols)
{
    A_relu_bias_backward a = {dy, y, dbias, rows, cols};
    jail_call(ID_relu_bias_backward, &a);
}

int barrier_dissemination(Comm *c, char *err)
{
    A_barrier_dissemination a = {c, err, -1};
    jail_call(ID_barrier_dissemination, &a);
    return a.ret;
}

int broadcast_tree(Comm *c, int root, void *buf, size_t bytes, char *err)
{
    A_broadcast_tree a = {c, root, buf, bytes, err, -1};
    jail_call(ID_broadcast_tree, &a);
    return a.ret;
}

int ps_weighted_mean(const Device *dev, int workers, float *const *grads, const int *counts,
                     size_t n, float *out, char *err)
{
    A_ps_weighted_mean a = {.dev = dev,
                            .workers = workers,
                            .whole = grads != NULL,
                            .counts = counts,
                            .n = n,
                            .out = out,
                            .err = err,
                            .ret = -1};
    if (workers > MAX_WORKERS) {
        fprintf(stderr, "jail: ps_weighted_mean: more than %d workers\n", MAX_WORKERS);
        abort();
    }
    for (int i = 0; grads && i < workers; i++)
        a.g[i] = grads[i];
    jail_call(ID_ps_weighted_mean, &a);
    return a.ret;
}

int ps_sharded_exchange(Comm *c, int K, const float *grads, float *params, size_t n, char *err)
{
    A_ps_sharded_exchange a = {c, K, grads, params, n, err, -1};
    jail_call(ID_ps_sharded_exchange, &a);
    return a.ret;
}

int ps_async_push(const Device *dev, float *params, long *version, const float *grad, size_t n,
                  long grad_version, int bound, float lr, char *err)
{
    A_ps_async_push a = {dev, params, version, grad, n, grad_version, bound, lr, err, -1};
    jail_call(ID_ps_async_push, &a);
    return a.ret;
}

int ring_reduce_scatter_v(Comm *c, float *buf, const size_t *counts, float *scratch, char *err)
{
    A_collective a = {c, buf, scratch, counts, 0, err, -1};
    jail_call(ID_ring_reduce_scatter_v, &a);
    return a.ret;
}

int ring_all_gather_v(Comm *c, float *buf, const size_t *counts, char *err)
{
    A_collective a = {c, buf, NULL, counts, 0, err, -1};
    jail_call(ID_ring_all_gather_v, &a);
    return a.ret;
}

#define COLLECTIVE_PROXY(name)                                                                 \
    int name(Comm *c, float *buf, size_t count, float *scratch, char *err)                     \
    {                                                                                          \
        A_collective a = {c, buf, scratch, NULL, count, err, -1};                              \
        jail_call(ID_##name, &a);                                                              \
        return a.ret;                                                                          \
    }
COLLECTIVE_PROXY(ring_reduce_scatter_bidir)
COLLECTIVE_PROXY(direct_reduce_scatter)
COLLECTIVE_PROXY(rabenseifner_all_reduce)
COLLECTIVE_PROXY(naive_all_reduce)
int tree_all_reduce(Comm *c, int L, float *buf, size_t count, float *scratch, char *err)
{
    A_tree_all_reduce a = {c, L, buf, scratch, count, err, -1};
    jail_call(ID_tree_all_reduce, &a);
    return a.ret;
}

int ddp_buckets(const size_t *layer_floats, const double *ready, int n_layers, double alpha,
                double beta, int *bucket_of, double *end)
{
    A_ddp_buckets a = {layer_floats, ready, n_layers, alpha, beta, bucket_of, end, -1};
    jail_call(ID_ddp_buckets, &a);
    return a.ret;
}

void fp16_encode(const float *x, const uint16_t *noise, uint16_t *h, size_t n)
{
    A_fp16_encode a = {x, noise, h, n};
    jail_call(ID_fp16_encode, &a);
}

int local_sgd_sync(Comm *c, float *params, size_t n, long step, long warmup, const int *periods,
                   const int *sizes, int levels, float *scratch, char *err)
{
    A_local_sgd_sync a = {c, params, scratch, n, step, warmup, periods, sizes, levels, -1, err};
    jail_call(ID_local_sgd_sync, &a);
    return a.ret;
}

size_t zero_state_bytes(int stage, size_t n_params, int ranks, int rank, int state_floats)
{
    A_zero_state_bytes a = {stage, ranks, rank, state_floats, n_params, 0};
    jail_call(ID_zero_state_bytes, &a);
    return a.ret;
}

int clip_grad_norm_sharded(Comm *c, float *grads, size_t n, double max_norm, double *norm,
                           char *err)
{
    A_clip_grad_norm_sharded a = {c, grads, n, max_norm, norm, err, -1};
    jail_call(ID_clip_grad_norm_sharded, &a);
    return a.ret;
}

int fsdp_schedule(int n_layers, FsdpEvent *ev, int max)
{
    A_fsdp_schedule a = {n_layers, max, ev, -1};
    jail_call(ID_fsdp_schedule, &a);
    return a.ret;
}

double gradient_check(Model *m, int B, float eps, size_t *worst)
{
    A_gradient_check a = {m, B, eps, worst, -1};
    jail_call(ID_gradient_check, &a);
    return a.ret;
}

void sense_barrier_wait(SenseBarrier *b, int *local_sense)
{
    A_sense_barrier_wait a = {b, local_sense};
    jail_call(ID_sense_barrier_wait, &a);
}

int direct_broadcast(Comm *c, float *buf, size_t count, int root, char *err)
{
    A_direct a = {.c = c, .root = root, .buf = buf, .count = count, .err = err, .ret = -1};
    jail_call(ID_direct_broadcast, &a);
    return a.ret;
}

int direct_reduce(Comm *c, float *buf, size_t count, int root, char *err)
{
    A_direct a = {.c = c, .root = root, .buf = buf, .count = count, .err = err, .ret = -1};
    jail_call(ID_direct_reduce, &a);
    return a.ret;
}

int direct_all_to_all(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    A_direct_all_to_all a = {c, buf, count, scratch, err, -1};
    jail_call(ID_direct_all_to_all, &a);
    return a.ret;
}

int unequal_hosts_all_reduce(Comm *c, const int *node_sizes, int n_nodes, float *buf,
                             size_t count, float *scratch, char *err)
{
    A_unequal_hosts_all_reduce a = {c, node_sizes, n_nodes, buf, scratch, count, err, -1};
    jail_call(ID_unequal_hosts_all_reduce, &a);
    return a.ret;
}

int torus_all_reduce(Comm *c, int rows, float *buf, size_t count, float *scratch, char *err)
{
    A_torus_all_reduce a = {c, rows, buf, scratch, count, err, -1};
    jail_call(ID_torus_all_reduce, &a);
    return a.ret;
}

/* Weak: the tests of 10.2 define onebit_compress themselves (the book's compressor), and
 * theirs is the one linked there. */
__attribute__((weak)) void onebit_compress(const float *g, float *error, size_t n,
                                           uint8_t *bits, float *hi, float *lo)
{
    A_onebit_compress a = {g, error, n, bits, hi, lo};
    jail_call(ID_onebit_compress, &a);
}

int onebit_all_reduce(Comm *c, float *grad, float *error, size_t n, void *scratch, char *err)
{
    A_onebit_all_reduce a = {c, grad, error, n, scratch, err, -1};
    jail_call(ID_onebit_all_reduce, &a);
    return a.ret;
}

void qsgd_quantize(const float *v, const uint32_t *noise, size_t n, int s, int8_t *q,
                   float *scale)
{
    A_qsgd_quantize a = {v, noise, n, s, q, scale};
    jail_call(ID_qsgd_quantize, &a);
}

size_t tensor_split_plan(const int *widths, int L, int T, int *split, size_t *allreduced)
{
    A_tensor_split_plan a = {widths, L, T, split, allreduced, 0};
    jail_call(ID_tensor_split_plan, &a);
    return a.ret;
}

int grid_gradient_step(Comm *c, int T, float *grad, size_t count, size_t bias, size_t n_bias,
                       size_t shared, double max_norm, float *scratch, double *norm,
                       char *err)
{
    A_grid_gradient_step a = {c, T, grad, count, bias, n_bias, shared, max_norm, scratch, norm,
                              err, -1};
    jail_call(ID_grid_gradient_step, &a);
    return a.ret;
}
int vocab_parallel_xent(Comm *c, const float *logits, const int *labels, int B, int cols,
                        int first, float *loss, float *dlogits, char *err)
{
    A_vocab_parallel_xent a = {c, logits, labels, B, cols, first, loss, dlogits, err, -1};
    jail_call(ID_vocab_parallel_xent, &a);
    return a.ret;
}
#endif
