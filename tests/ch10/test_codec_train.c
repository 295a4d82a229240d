/* Chapter 10: the coded ring, the codecs as the ring's all-reduce in training, dynamic loss
 * scaling, and error feedback. References: the exact mean in double; chapter 5's ring, bit
 * for bit; the sum of the gradients computed, against the sum of the gradients applied plus
 * what the ranks still hold back. */
#include <math.h>
#include <sys/mman.h>

#include "ch2/ranks.h"
#include "coded_ring.h"
#include "collectives.h"
#include "grad_codec.h"
#include "strategy.h"
#include "train_setup.h"

/* ---------------------------------------------------------------- the coded ring */

enum { MOST = 4099, MOST_RANKS = 5 };

static struct {
    size_t count;
    Dtype t;
    float *out;    /* MOST_RANKS x MOST: each rank's result */
    size_t *bytes; /* MOST_RANKS: what each rank sent */
} ring_case;

/* Rank r's input: values of both signs over four decades, none a 16-bit number. */
static float input(int rank, size_t i)
{
    return sinf((float)i * 0.731f + (float)rank * 1.3f) * powf(10.0f, (float)(i % 4) - 3.0f);
}

static int coded_rank(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Watched w;
    Comm *c = cpu_watched(rank, &w, err);
    if (!c)
        return -1;
    size_t n = ring_case.count;
    float *a = xcalloc(n + 1, sizeof *a), *b = xcalloc(n + 1, sizeof *b),
          *scratch = xcalloc(chunk_max(n, size) + 1, sizeof *scratch);
    void *wire = xcalloc(n + 1, sizeof(float));
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] = input(rank, i);
    int rc = ring_all_reduce_coded(c, a, n, ring_case.t, wire, 1.0f / (float)size, err);
    ring_case.bytes[rank] = w.bytes;
    if (rc == 0 && ring_case.t == DTYPE_FP32) {
        rc = ring_all_reduce(c, b, n, scratch, 1.0f / (float)size, err);
        if (rc == 0 && memcmp(a, b, n * sizeof *a) != 0)
            rc = error_set(err, "the coded ring in fp32 differs from the ring");
    }
    memcpy(ring_case.out + (size_t)rank * MOST, a, n * sizeof *a);
    free(a), free(b), free(scratch), free(wire);
    c->close(c);
    return rc;
}

/* On 1 to 5 ranks, for counts from 0 to 4099: every rank the same bits; fp32 is the ring's
 * result exactly (checked in the ranks); bf16 and fp16 within their rounding of the exact
 * mean, one rounding per hop and one for the gathered mean; the bytes as counted. */
Test(coded_ring, every_rank_the_same_mean_within_the_rounding_of_its_type, .timeout = 120)
{
    static const size_t counts[] = {0, 1, 3, 7, 1000, MOST};
    ring_case.out = shared_zeroed(MOST_RANKS * MOST * sizeof(float));
    ring_case.bytes = shared_zeroed(MOST_RANKS * sizeof(size_t));
    for (int N = 1; N <= MOST_RANKS; N++)
        for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
            for (int t = DTYPE_FP32; t <= DTYPE_FP16; t++) {
                char err[ERR_LEN];
                ring_case.count = counts[k], ring_case.t = (Dtype)t;
                cr_assert(run_ranks(N, 0, 30, coded_rank, NULL, 60, err) == 0,
                          "N %d, count %zu, %s: %s", N, counts[k], dtype_name((Dtype)t), err);
                double unit = t == DTYPE_FP32 ? 0x1p-24 : t == DTYPE_BF16 ? 0x1p-8 : 0x1p-11;
                for (size_t i = 0; i < counts[k]; i++) {
                    double exact = 0, size = 0;
                    for (int r = 0; r < N; r++)
                        exact += input(r, i), size += fabs(input(r, i));
                    exact /= N, size /= N;
                    double got = ring_case.out[i], bound = (N + 1) * unit * size + 0x1p-24;
                    cr_assert(fabs(got - exact) <= bound, "N %d, %s, [%zu]: %g, exact %g", N,
                              dtype_name((Dtype)t), i, got, exact);
                }
                for (int r = 1; r < N; r++)
                    cr_assert(memcmp(ring_case.out, ring_case.out + (size_t)r * MOST,
                                     counts[k] * sizeof(float)) == 0,
                              "N %d, %s: rank %d's result differs from rank 0's", N,
                              dtype_name((Dtype)t), r);
                for (int r = 0; r < N; r++)
                    cr_assert(ring_case.bytes[r] == ring_coded_bytes(counts[k], N, r, (Dtype)t),
                              "N %d, count %zu, %s: rank %d sent %zu bytes, not %zu", N,
                              counts[k], dtype_name((Dtype)t), r, ring_case.bytes[r],
                              ring_coded_bytes(counts[k], N, r, (Dtype)t));
            }
    munmap(ring_case.out, MOST_RANKS * MOST * sizeof(float));
    munmap(ring_case.bytes, MOST_RANKS * sizeof(size_t));
}

/* ---------------------------------------------------------------- loss scaling */

Test(loss_scale, an_overflow_skips_and_halves_clean_steps_unscale_and_double)
{
    const Device *dev = device_cpu();
    LossScale ls;
    loss_scale_init(&ls, 8, 3);
    float g[4] = {8, -16, 0.5f, INFINITY};
    cr_assert(loss_scale_check(&ls, dev, g, 4), "a planted infinity must skip the step");
    cr_assert(ls.scale == 4 && ls.skipped == 1 && g[0] == 8, "scale %g, skipped %ld, g %g",
              (double)ls.scale, ls.skipped, (double)g[0]);
    g[3] = NAN;
    cr_assert(loss_scale_check(&ls, dev, g, 4) && ls.scale == 2 && ls.skipped == 2);
    g[3] = 4;
    for (int step = 1; step <= 3; step++) {
        float h[4] = {8, -16, 0.5f, 4};
        cr_assert(!loss_scale_check(&ls, dev, h, 4), "clean step %d was skipped", step);
        float s = 2; /* the scale in force when the step was taken */
        for (int i = 0; i < 4; i++)
            cr_assert(h[i] == g[i] / s, "step %d: g[%d] = %g, expected %g", step, i,
                      (double)h[i], (double)(g[i] / s));
    }
    cr_assert(ls.scale == 4 && ls.skipped == 2, "after 3 clean steps: scale %g",
              (double)ls.scale);
    LossScale off;
    loss_scale_init(&off, 0, 3);
    float x[1] = {INFINITY};
    cr_assert(!loss_scale_check(&off, dev, x, 1) && !off.on && off.scale == 1);
}

/* ---------------------------------------------------------------- training with a codec */

enum { N_TRAIN = 3 };

static struct {
    Dataset train, test;
    GradCodec g;
    bool forced;   /* open the codec even where it changes nothing (fp32, no cutting) */
    bool ring;     /* chapter 5's ring, no codec */
    float loss_scale;
    float *out;    /* N_TRAIN x n: each rank's weights */
    long *skipped; /* N_TRAIN */
    size_t *bytes; /* N_TRAIN: bytes per step, as counted; and as the codec says, after */
} tr;

static int codec_train_rank(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Watched w;
    Comm *c = cpu_watched(rank, &w, err), *host;
    if (!c || !(host = comm_shm_host(w.inner, err)))
        return -1;
    Model m;
    int hidden[1] = {24};
    if (model_init(&m, device_cpu(), tr.train.features, hidden, 1, tr.train.classes, 10, 7,
                   err))
        return -1;
    Strategy s;
    StrategyEnv env = {.c = c, .host = host, .m = &m, .accum = 1, .codec = tr.g};
    int rc = tr.forced ? grad_codec_open(&s, &tr.g, c, host, &m, err)
                       : strategy_ring.open(&s, &env, err);
    bool opened = rc == 0;
    TrainConfig cfg = {.batch_size = 10, .epochs = 2, .lr = 0.1f, .seed = 7, .quiet = true,
                       .loss_scale = tr.loss_scale, .scale_window = 1000};
    TrainResult res;
    size_t before = w.bytes;
    if (rc == 0)
        rc = train_run(&cfg, &m, &tr.train, &tr.test, &s, &res, err);
    if (rc == 0) {
        memcpy(tr.out + (size_t)rank * m.n_params, m.params, m.n_params * sizeof(float));
        tr.skipped[rank] = res.skipped;
        tr.bytes[rank] = (w.bytes - before) / (size_t)(res.steps * cfg.epochs);
        tr.bytes[N_TRAIN + rank] = grad_codec_bytes(&tr.g, &m, size, rank);
    }
    if (opened)
        strategy_ring.close(&s);
    model_free(&m);
    c->close(c);
    return rc;
}

/* Train on N_TRAIN ranks with tr's codec; the weights of every rank must be the same bits. */
static void train_with(const char *what)
{
    char err[ERR_LEN];
    size_t n = params_of_24(&tr.train);
    memset(tr.out, 0, N_TRAIN * n * sizeof(float));
    cr_assert(run_ranks(N_TRAIN, 0, 30, codec_train_rank, NULL, 120, err) == 0, "%s: %s", what,
              err);
    for (int r = 1; r < N_TRAIN; r++)
        cr_assert(memcmp(tr.out, tr.out + (size_t)r * n, n * sizeof(float)) == 0,
                  "%s: rank %d's weights differ from rank 0's", what, r);
    for (size_t i = 0; i < n; i++)
        cr_assert(isfinite(tr.out[i]), "%s: weight %zu is %g", what, i, (double)tr.out[i]);
}

static void setup_training(void)
{
    load_synthetic(600, &tr.train, &tr.test);
    size_t n = params_of_24(&tr.train);
    tr.out = shared_zeroed(N_TRAIN * n * sizeof(float));
    tr.skipped = shared_zeroed(N_TRAIN * sizeof(long));
    tr.bytes = shared_zeroed(2 * N_TRAIN * sizeof(size_t));
}

static void teardown_training(void)
{
    munmap(tr.out, N_TRAIN * params_of_24(&tr.train) * sizeof(float));
    munmap(tr.skipped, N_TRAIN * sizeof(long));
    munmap(tr.bytes, 2 * N_TRAIN * sizeof(size_t));
    data_free(&tr.train);
    data_free(&tr.test);
}

TestSuite(codec_training, .init = setup_training, .fini = teardown_training, .timeout = 120);

/* Every codec leaves every rank with the same weights, and sends per step the bytes it says. */
Test(codec_training, every_codec_keeps_the_replicas_identical_and_sends_what_it_says)
{
    static const struct {
        Dtype t;
        const char *compress;
    } cases[] = {{DTYPE_BF16, "none"},       {DTYPE_FP16, "none"},     {DTYPE_FP32, "powersgd:1"},
                 {DTYPE_FP32, "powersgd:2"}, {DTYPE_BF16, "powersgd:2"}, {DTYPE_FP32, "topk:0.05"}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char why[ERR_LEN], what[64];
        tr.g = (GradCodec){.dtype = cases[k].t};
        cr_assert(grad_codec_parse(cases[k].compress, &tr.g, why, sizeof why) == 0, "%s", why);
        tr.forced = false, tr.loss_scale = cases[k].t == DTYPE_FP16 ? 65536 : 0;
        snprintf(what, sizeof what, "%s, %s", dtype_name(cases[k].t), cases[k].compress);
        train_with(what);
        for (int r = 0; r < N_TRAIN; r++)
            cr_assert(tr.bytes[r] == tr.bytes[N_TRAIN + r],
                      "%s: rank %d sent %zu bytes a step, the codec says %zu", what, r,
                      tr.bytes[r], tr.bytes[N_TRAIN + r]);
    }
}

/* With nothing to code, the codec's path (the coded ring in fp32) ends with the ring's bits. */
Test(codec_training, with_nothing_coded_the_codec_trains_the_rings_bits)
{
    size_t n = params_of_24(&tr.train);
    float *ring = xcalloc(n, sizeof *ring);
    tr.g = (GradCodec){.dtype = DTYPE_FP32}, tr.loss_scale = 0;
    tr.forced = false;
    train_with("the ring");
    memcpy(ring, tr.out, n * sizeof *ring);
    tr.forced = true;
    train_with("the codec, fp32, nothing cut");
    cr_assert(memcmp(ring, tr.out, n * sizeof *ring) == 0,
              "the codec's fp32 path ended with weights other than the ring's");
    free(ring);
}

/* A sample of 1e30 makes one step's fp16 gradient overflow: that step, and only it, is
 * skipped on every rank, and the run ends with finite weights that all ranks share. */
Test(codec_training, an_fp16_overflow_skips_exactly_that_step_on_every_rank)
{
    tr.g = (GradCodec){.dtype = DTYPE_FP16}, tr.forced = false, tr.loss_scale = 2;
    train_with("fp16, nothing planted");
    for (int r = 0; r < N_TRAIN; r++)
        cr_assert(tr.skipped[r] == 0, "rank %d skipped %ld steps with nothing planted", r,
                  tr.skipped[r]);
    tr.train.x[17 * (size_t)tr.train.features + 300] = 1e30f;
    train_with("fp16, a sample of 1e30 planted");
    for (int r = 0; r < N_TRAIN; r++) /* the sample is in one step of each of 2 epochs */
        cr_assert(tr.skipped[r] == 2, "rank %d skipped %ld steps, expected 2 (one an epoch)", r,
                  tr.skipped[r]);
}

/* ---------------------------------------------------------------- error feedback */

enum { EF_RANKS = 2, EF_STEPS = 6 };

static struct {
    GradCodec g;
    bool same;   /* every rank's gradient the same rank-1 matrix, every step */
    double *out; /* EF_RANKS x 2n: the applied gradients summed, then the error held */
    size_t n;
} ef;

/* Rank r's gradient at step t: pseudo-random, of both signs and several sizes. */
static float grad_of(int t, int r, size_t i, const Model *m)
{
    if (ef.same) { /* u v^T on every weight matrix, a constant on the biases */
        for (int l = 0; l < m->n_layers; l++) {
            const Layer *ly = &m->layer[l];
            if (i >= ly->w && i < ly->w + (size_t)ly->in * ly->out) {
                size_t k = i - ly->w, row = k / (size_t)ly->out, col = k % (size_t)ly->out;
                return sinf((float)row + 1) * cosf(0.3f * (float)col + 0.1f);
            }
        }
        return 0.25f;
    }
    return sinf((float)i * 0.37f + (float)t * 1.7f + (float)r * 2.9f) *
           (1.0f + (float)((i * 7 + (size_t)t) % 5));
}

static int ef_rank(int rank, int size, void *arg, char *err)
{
    (void)arg, (void)size;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err), *host;
    if (!c || !(host = comm_shm_host(c, err)))
        return -1;
    Model m;
    int hidden[1] = {30};
    if (model_init(&m, device_cpu(), 40, hidden, 1, 12, 4, 7, err))
        return -1;
    Strategy s;
    Timers timers = {0};
    if (grad_codec_open(&s, &ef.g, c, host, &m, err))
        return -1;
    double *applied = ef.out + (size_t)rank * 2 * m.n_params;
    int rc = 0;
    for (int t = 0; t < EF_STEPS && rc == 0; t++) {
        for (size_t i = 0; i < m.n_params; i++)
            m.grads[i] = grad_of(t, rank, i, &m);
        rc = s.sync_gradients(&s, &m, &timers, err);
        for (size_t i = 0; rc == 0 && i < m.n_params; i++)
            applied[i] += m.grads[i];
    }
    const float *e = grad_codec_error(&s);
    for (size_t i = 0; rc == 0 && i < m.n_params; i++)
        applied[m.n_params + i] = e[i];
    grad_codec_close(&s);
    model_free(&m);
    c->close(c);
    return rc;
}

/* Summed over the steps, the gradients applied plus the mean of what the ranks hold back
 * equal the mean of the gradients computed: nothing is lost, only delayed. Checks too that
 * something was held back (else the identity would hold without error feedback). */
static void expect_nothing_lost(const char *spec)
{
    char err[ERR_LEN];
    ef.g = (GradCodec){.dtype = DTYPE_FP32}, ef.same = false;
    cr_assert(grad_codec_parse(spec, &ef.g, err, sizeof err) == 0, "%s", err);
    size_t most = 40 * 30 + 30 + 30 * 12 + 12;
    ef.out = shared_zeroed(EF_RANKS * 2 * most * sizeof(double));
    cr_assert(run_ranks(EF_RANKS, 0, 30, ef_rank, NULL, 60, err) == 0, "%s: %s", spec, err);
    Model shape; /* the layers' offsets, for grad_of */
    int hidden[1] = {30};
    cr_assert(model_init(&shape, device_cpu(), 40, hidden, 1, 12, 4, 7, err) == 0);
    double held = 0;
    ef.n = shape.n_params;
    for (size_t i = 0; i < ef.n; i++) {
        double computed = 0, back = 0;
        for (int t = 0; t < EF_STEPS; t++)
            for (int r = 0; r < EF_RANKS; r++)
                computed += grad_of(t, r, i, &shape) / (double)EF_RANKS;
        for (int r = 0; r < EF_RANKS; r++)
            back += ef.out[(size_t)r * 2 * ef.n + ef.n + i] / EF_RANKS;
        double applied = ef.out[i];
        cr_assert(ef.out[2 * ef.n + i] == applied, "%s: the ranks applied different gradients",
                  spec);
        cr_assert(fabs(applied + back - computed) <= 1e-4 * (1 + fabs(computed)),
                  "%s, entry %zu: applied %g + held back %g = %g, but %g was computed", spec, i,
                  applied, back, applied + back, computed);
        held = fmax(held, fabs(back));
    }
    cr_assert(held > 0.1, "%s: nothing was held back (at most %g)", spec, held);
    model_free(&shape);
    munmap(ef.out, EF_RANKS * 2 * most * sizeof(double));
}

Test(error_feedback, powersgd_carries_what_the_low_rank_step_missed, .timeout = 60)
{
    expect_nothing_lost("powersgd:1");
    expect_nothing_lost("powersgd:2");
}

Test(error_feedback, top_k_carries_the_entries_it_did_not_send, .timeout = 60)
{
    expect_nothing_lost("topk:0.05");
}

/* A gradient of rank 1, the same on every rank, is sent exactly by PowerSGD of rank 1: the
 * power step finds its one direction, and nothing is held back. */
Test(error_feedback, powersgd_sends_a_rank_one_gradient_exactly, .timeout = 60)
{
    char err[ERR_LEN];
    ef.g = (GradCodec){.dtype = DTYPE_FP32, .kind = COMPRESS_POWERSGD, .rank = 1};
    ef.same = true;
    size_t most = 40 * 30 + 30 + 30 * 12 + 12;
    ef.out = shared_zeroed(EF_RANKS * 2 * most * sizeof(double));
    cr_assert(run_ranks(EF_RANKS, 0, 30, ef_rank, NULL, 60, err) == 0, "%s", err);
    Model shape;
    int hidden[1] = {30};
    cr_assert(model_init(&shape, device_cpu(), 40, hidden, 1, 12, 4, 7, err) == 0);
    ef.n = shape.n_params;
    for (size_t i = 0; i < ef.n; i++) {
        double g = grad_of(0, 0, i, &shape);
        cr_assert(fabs(ef.out[i] - EF_STEPS * g) <= 1e-4 * EF_STEPS * (1 + fabs(g)),
                  "entry %zu: applied %g over %d steps, the gradient is %g", i, ef.out[i],
                  EF_STEPS, g);
        cr_assert(fabs(ef.out[ef.n + i]) <= 1e-4, "entry %zu: %g held back", i,
                  ef.out[ef.n + i]);
    }
    model_free(&shape);
    munmap(ef.out, EF_RANKS * 2 * most * sizeof(double));
}

/* ---------------------------------------------------------------- the programs */

#define SMALL "--epochs", "1", "--train_size", "2048", "--device", "cpu"

Test(codec_programs, train_and_ring_say_what_travels_and_end_with_identical_replicas,
     .timeout = 60)
{
    static Run a, b;
    run_program((char *[]){"./train", "--strategy", "ring", "--n_gpus", "3", "--grad_dtype",
                           "bf16", "--compress", "powersgd:2", SMALL, NULL}, &a);
    cr_assert(a.status == 0, "exit %d: %s", a.status, a.err);
    cr_assert(strstr(a.out, "codec    PowerSGD rank 2 with error feedback, P and Q as bf16"),
              "%s", a.out);
    cr_assert(strstr(a.out, "replicas: the weights of all 3 ranks are identical"), "%s", a.out);
    cr_assert(strstr(a.out, "codec: rank 0 sent"), "%s", a.out);
    run_program((char *[]){"./ring", "--n_gpus", "2", "--grad_dtype", "fp16", "--loss_scale",
                           "1e30", SMALL, NULL}, &b);
    cr_assert(b.status == 0, "exit %d: %s", b.status, b.err);
    cr_assert(strstr(b.out, "loss scale: "), "%s", b.out);
    cr_assert(!strstr(b.out, "loss scale: 0 steps"), "a scale of 1e30 skipped nothing: %s",
              b.out);
}

Test(codec_programs, strategies_that_cannot_carry_a_codec_say_why, .timeout = 60)
{
    expect_refused((char *[]){"./train", "--strategy", "direct", "--grad_dtype", "bf16", NULL},
                   "no bytes cross a wire", "direct with bf16");
    expect_refused((char *[]){"./train", "--strategy", "zero1", "--compress", "topk:0.1",
                              NULL},
                   "shards", "zero1 with top-k");
    expect_refused((char *[]){"./train", "--strategy", "ring", "--grad_dtype", "fp16",
                              "--compress", "powersgd:2", NULL},
                   "error feedback", "fp16 with PowerSGD");
    expect_refused((char *[]){"./train", "--strategy", "ring", "--grad_dtype", "bf16",
                              "--compress", "topk:0.01", NULL},
                   "top-k's pairs", "bf16 with top-k");
    expect_refused((char *[]){"./train", "--strategy", "ring", "--loss_scale", "8", NULL},
                   "fp16 gradients only", "a loss scale without fp16");
    expect_refused((char *[]){"./ring", "--compress", "powersgd:0", NULL}, "--compress",
                   "a rank of 0");
}

/* The hierarchy codes its ring across hosts alone: its replicas agree, it trains as in
 * floats within bf16's rounding, and it refuses to cut the gradient. */
Test(codec_programs, the_hierarchy_sends_16_bits_across_hosts, .timeout = 60)
{
    static Run a, b;
    run_program((char *[]){"./train", "--strategy", "hierarchical", "--n_gpus", "4",
                           "--ranks_per_host", "2", "--grad_dtype", "bf16", SMALL, NULL}, &a);
    run_program((char *[]){"./train", "--strategy", "hierarchical", "--n_gpus", "4",
                           "--ranks_per_host", "2", SMALL, "--quiet", NULL}, &b);
    cr_assert(a.status == 0 && b.status == 0, "exit %d and %d: %s %s", a.status, b.status,
              a.err, b.err);
    cr_assert(strstr(a.out, "replicas: the weights of all 4 ranks are identical"), "%s", a.out);
    const char *last = strstr(a.out, "epoch 1/1");
    cr_assert(last, "%s", a.out);
    double la = strtod(strstr(last, "loss") + 4, NULL), lb = final_loss(b.out);
    cr_assert(fabs(la - lb) < 1e-2 * lb, "bf16 across hosts: loss %g, floats: %g", la, lb);
    expect_refused((char *[]){"./train", "--strategy", "hierarchical", "--compress",
                              "powersgd:2", NULL},
                   "cuts nothing", "the hierarchy with PowerSGD");
}
