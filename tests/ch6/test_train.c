/* Chapter 6's strategies: bucket_assign follows DDP's rule on hand-worked cases; the
 * bucketed ring and DataParallel train like one device with the global batch; buckets are
 * all-reduced while backward is still running; a rank dying inside a bucket ends the run;
 * ./train runs every CPU strategy to ./mlp's loss and refuses what cannot run. */
#include <math.h>

#include "../ch2/ranks.h"
#include "buckets.h"
#include "collectives.h"
#include "data.h"
#include "helpers.h"
#include "model.h"
#include "production.h"
#include "ring_strategy.h"
#include "train.h"
#include "trace.h"
#include "train_ref.h"
#include "trace_read.h"
#include "train_setup.h"

/* ---------------------------------------------------------------- bucket_assign */

static void expect_buckets(const size_t *floats, int L, size_t cap, size_t first,
                           const int *want, int want_n)
{
    int of[16];
    memset(of, -1, sizeof of);
    int n = bucket_assign(floats, L, cap, first, of);
    cr_assert(n == want_n, "cap %zu, first %zu: %d buckets, expected %d", cap, first, n,
              want_n);
    for (int l = 0; l < L; l++)
        cr_assert(of[l] == want[l], "cap %zu, first %zu: layer %d in bucket %d, expected %d",
                  cap, first, l, of[l], want[l]);
}

Test(buckets, assign_follows_ddp_rule)
{
    /* 400, 800, 1200 and 200 bytes; from the last layer: 200 + 1200 >= 500 closes bucket 0,
     * 800 + 400 >= 1000 closes bucket 1 */
    size_t f[] = {100, 200, 300, 50};
    expect_buckets(f, 4, 1000, 500, (int[]){1, 1, 0, 0}, 2);
    expect_buckets(f, 4, 1u << 30, 1u << 20, (int[]){0, 0, 0, 0}, 1); /* one bucket */
    expect_buckets(f, 4, 1, 1, (int[]){3, 2, 1, 0}, 4);                /* one layer each */
    /* the first bucket has its own cap: 40 + 40 + 40 >= 100, then 40 >= 40 */
    size_t g[] = {10, 10, 10, 10};
    expect_buckets(g, 4, 40, 100, (int[]){1, 0, 0, 0}, 2);
    expect_buckets(g, 4, 40, 120, (int[]){1, 0, 0, 0}, 2); /* exactly the cap closes it */
    /* a layer larger than the cap is not split: it overfills the bucket it joins; and the
     * first layer never leaves an empty bucket behind it */
    size_t h[] = {1000, 1};
    expect_buckets(h, 2, 8, 8, (int[]){0, 0}, 1);
    size_t i[] = {1, 1000};
    expect_buckets(i, 2, 8, 8, (int[]){1, 0}, 2);
    expect_buckets(h, 1, 8, 8, (int[]){0}, 1);
}

/* ---------------------------------------------------------------- training, in ranks */

typedef struct Setup {
    Dataset train, test;
    int hidden[2];
    int batch, epochs;
    float lr;
    size_t cap;     /* bucket cap in bytes */
    long die_at;    /* > 0: rank 1 aborts at this message */
    int hold;       /* 1: hold backward until the first bucket's all-reduce has begun */
    float *out;     /* shared: rank 0's final weights */
    int *buckets;   /* shared: how many buckets rank 0 used */
    int *early;     /* shared: sends seen while backward was held */
    const char *trace; /* every rank appends its timeline here, or NULL */
} Setup;

static Setup setup;

static void load(void)
{
    load_synthetic(600, &setup.train, &setup.test);
    setup.hidden[0] = 24;
    setup.hidden[1] = 16;
    setup.lr = 0.1f;
    setup.batch = 10;
    setup.epochs = 2;
    setup.buckets = shared_zeroed(sizeof(int));
    setup.early = shared_zeroed(sizeof(int));
}

static size_t n_params(void)
{
    return (size_t)setup.train.features * 24 + 24 + 24 * 16 + 16 + 16 * 10 + 10;
}

/* One device with the global batch, the same model and seed. */
static void reference(int batch, float *out)
{
    OneDevice o = {.train = &setup.train, .test = &setup.test, .hidden = setup.hidden,
                   .n_hidden = 2, .batch = batch, .epochs = setup.epochs, .lr = setup.lr,
                   .seed = 7, .n = n_params()};
    one_device_weights(&o, out);
}

/* Wraps the bucketed strategy's grads_ready: after the first bucket is posted, backward
 * waits (up to 30 s) until the communication thread has sent something. */
typedef struct Held {
    Strategy inner; /* first: wrapped_sum_stats (train_setup.h) passes sum_stats on to it */
    Watched *w;
} Held;

static int held_ready(Strategy *s, Model *m, int layer, char *err)
{
    Held *h = s->state;
    BucketState *st = h->inner.state;
    int before = st->posted;
    if (h->inner.grads_ready(&h->inner, m, layer, err))
        return -1;
    if (before == 0 && st->posted == 1 && layer > 0) {
        double t0 = now_seconds();
        while (__atomic_load_n(&h->w->sends, __ATOMIC_SEQ_CST) == 0 && now_seconds() - t0 < 30)
            usleep(100);
        if (__atomic_load_n(&h->w->sends, __ATOMIC_SEQ_CST) > 0)
            __atomic_add_fetch(setup.early, 1, __ATOMIC_SEQ_CST); /* ranks count at once */
        else
            return error_set(err, "bucket 0 was posted at layer %d but nothing was sent while "
                             "backward waited", layer);
    }
    return 0;
}
static int held_sync(Strategy *s, Model *m, Timers *t, char *err)
{
    Held *h = s->state;
    /* once sync_gradients returns, the communication thread is idle: only then is the count
     * of the next step's sends started from zero */
    int rc = h->inner.sync_gradients(&h->inner, m, t, err);
    __atomic_store_n(&h->w->sends, 0, __ATOMIC_SEQ_CST);
    return rc;
}

static int bucket_rank(int rank, int size, void *arg, char *err)
{
    (void)arg;
    (void)size;
    const Device *dev;
    Comm *host;
    Model m;
    Comm *inner = rank_with_model(rank, &setup.train, setup.hidden, 2, setup.batch, 7, &dev,
                                  &host, &m, err);
    if (!inner)
        return -1;
    Watched w;
    Comm *c = watch(&w, inner, rank == 1 ? setup.die_at : 0);
    Held h = {.w = &w};
    BucketState st;
    if (bucket_strategy(&h.inner, &st, c, host, &m, setup.cap, err))
        return -1;
    Strategy s = h.inner;
    if (setup.hold) {
        s.grads_ready = held_ready;
        s.sync_gradients = held_sync;
        s.sum_stats = wrapped_sum_stats;
        s.state = &h;
    }
    TrainConfig cfg = {.batch_size = setup.batch, .epochs = setup.epochs, .lr = setup.lr,
                       .seed = 7, .quiet = true};
    TrainResult res;
    if (setup.trace)
        trace_start(rank);
    if (train_run(&cfg, &m, &setup.train, &setup.test, &s, &res, err))
        return -1;
    if (setup.trace && trace_write(setup.trace, err))
        return -1;
    uint64_t hash;
    if (replicas_agree(host, &m, &hash, err))
        return -1;
    if (rank == 0) {
        dev->download(setup.out, m.params, m.n_params * sizeof(float));
        *setup.buckets = st.n;
    }
    bucket_strategy_free(&st);
    model_free(&m);
    return 0;
}

Test(buckets, n_ranks_equal_one_device_for_any_cap)
{
    load();
    size_t n = n_params();
    setup.out = shared_zeroed(n * sizeof(float));
    float *ref = xcalloc(n, sizeof *ref);
    /* 1 byte: one bucket per layer; 2 KiB: the last two layers, then the first; 25 MiB: one */
    size_t caps[] = {1, 2 << 10, 25u << 20};
    int expect[] = {3, 2, 1};
    for (int N = 1; N <= 4; N++) {
        reference(setup.batch * N, ref);
        for (int k = 0; k < 3; k++) {
            setup.cap = caps[k];
            char err[ERR_LEN];
            cr_assert(run_ranks(N, 0, 30, bucket_rank, NULL, 120, err) == 0, "N = %d: %s", N,
                      err);
            cr_assert(*setup.buckets == expect[k], "cap %zu: %d buckets, expected %d", caps[k],
                      *setup.buckets, expect[k]);
            double gap = weight_gap(setup.out, ref, n);
            cr_assert(gap <= 1e-5, "N = %d, cap %zu: the weights differ by %g from one "
                      "device's with batch %d", N, caps[k], gap, setup.batch * N);
        }
    }
    free(ref);
}

Test(buckets, communication_starts_while_backward_runs)
{
    load();
    setup.out = shared_zeroed(n_params() * sizeof(float));
    setup.cap = 1; /* three buckets: the first is posted after the last layer */
    setup.hold = 1;
    char err[ERR_LEN];
    cr_assert(run_ranks(2, 0, 30, bucket_rank, NULL, 120, err) == 0, "%s", err);
    long steps = train_steps_per_epoch(setup.train.n, setup.batch, 2) * setup.epochs;
    cr_assert(*setup.early == 2 * steps, "sends during backward in %d of %ld rank-steps",
              *setup.early, 2 * steps);
    setup.hold = 0;
}

/* The same held run, traced: the timeline each rank writes shows, at every step, the
 * all-reduce of bucket 0 (the last layer's) begun on the communication lane before backward
 * of layer 0 has ended on the training lane, and the waits for the buckets on the third. */
Test(buckets, the_trace_shows_communication_overlapping_backward)
{
    load();
    setup.out = shared_zeroed(n_params() * sizeof(float));
    setup.cap = 1;
    setup.hold = 1;
    char dir[] = "/tmp/dps-trace-XXXXXX", path[64], err[ERR_LEN];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/buckets.json", dir);
    cr_assert(trace_create(path, err) == 0, "%s", err);
    setup.trace = path;
    cr_assert(run_ranks(2, 0, 30, bucket_rank, NULL, 120, err) == 0, "%s", err);
    setup.trace = NULL;
    setup.hold = 0;
    cr_assert(trace_close(path, err) == 0, "%s", err);
    Span *s;
    int n = trace_read(path, &s);
    long steps = train_steps_per_epoch(setup.train.n, setup.batch, 2) * setup.epochs;
    for (int rank = 0; rank < 2; rank++) {
        const Span *reduce[256], *backward[256];
        int nr = 0, nb = 0;
        for (int i = 0; i < n && nr < 256 && nb < 256; i++)
            if (s[i].pid == rank && s[i].tid == LANE_COMM &&
                strcmp(s[i].name, "all-reduce bucket 0") == 0)
                reduce[nr++] = &s[i];
            else if (s[i].pid == rank && s[i].tid == LANE_TRAIN &&
                     strcmp(s[i].name, "backward 0") == 0)
                backward[nb++] = &s[i];
        cr_assert(nr == steps && nb == steps, "rank %d: %d all-reduces of bucket 0 and %d "
                  "backwards of layer 0 for %ld steps", rank, nr, nb, steps);
        for (int k = 0; k < nr; k++)
            cr_assert(reduce[k]->ts < backward[k]->ts + backward[k]->dur, "rank %d, step %d: "
                      "the all-reduce of bucket 0 began %.1f us after backward ended", rank,
                      k + 1, reduce[k]->ts - backward[k]->ts - backward[k]->dur);
        cr_assert(trace_count(s, n, rank, LANE_WAIT, "wait for all-reduce bucket") > 0,
                  "rank %d: no wait on the third lane", rank);
    }
    free(s);
    unlink(path);
    rmdir(dir);
}

/* As in chapters 3 and 5: peers and launcher would wait 600 s, the test 30. */
Test(buckets, a_dying_rank_ends_the_run_with_its_name, .timeout = 30)
{
    load();
    setup.out = shared_zeroed(n_params() * sizeof(float));
    setup.cap = 1;
    setup.die_at = 9;
    char err[ERR_LEN];
    cr_assert(run_ranks(3, 0, 600, bucket_rank, NULL, 600, err) != 0, "the run succeeded");
    cr_assert(strstr(err, "rank 1 was killed by signal 6"), "message: %s", err);
    setup.die_at = 0;
}

/* ---------------------------------------------------------------- DataParallel */

static int build(Model *m, void *arg, char *err)
{
    (void)arg;
    return model_init(m, device_cpu(), setup.train.features, setup.hidden, 2,
                      setup.train.classes, setup.batch, 7, err);
}

Test(data_parallel, n_replicas_equal_one_device)
{
    load();
    size_t n = n_params();
    float *ref = xcalloc(n, sizeof *ref), *got = xcalloc(n, sizeof *got);
    for (int N = 1; N <= 4; N++) {
        reference(setup.batch * N, ref);
        TrainConfig cfg = {.batch_size = setup.batch, .epochs = setup.epochs, .lr = setup.lr,
                           .seed = 7, .quiet = true};
        Model master;
        TrainResult res;
        char err[ERR_LEN];
        cr_assert(data_parallel_run(&cfg, N, &setup.train, &setup.test, build, NULL, &master,
                                    &res, err) == 0, "N = %d: %s", N, err);
        cr_assert(res.steps == train_steps_per_epoch(setup.train.n, setup.batch, N));
        master.dev->download(got, master.params, n * sizeof(float));
        model_free(&master);
        double gap = weight_gap(got, ref, n);
        cr_assert(gap <= 1e-5, "N = %d: the weights differ by %g from one device's with "
                  "batch %d", N, gap, setup.batch * N);
    }
    free(ref);
    free(got);
}

/* ---------------------------------------------------------------- ./train */

static void trains_like_mlp(char **args, const char *batch)
{
    static Run a, b;
    char *argv[32] = {"./train"};
    int k = 1;
    for (int i = 0; args[i]; i++)
        argv[k++] = args[i];
    /* a fifth of the default training set: the same comparison, five times sooner */
    char *tail[] = {"--epochs", "2", "--train_size", "4096", "--quiet", "--device", "cpu", NULL};
    for (int i = 0; tail[i]; i++)
        argv[k++] = tail[i];
    argv[k] = NULL;
    char *mlp[] = {"./mlp", "--batch_size", (char *)batch, "--epochs", "2", "--train_size",
                   "4096", "--quiet", "--device", "cpu", NULL};
    run_program(argv, &a);
    run_program(mlp, &b);
    cr_assert(a.status == 0, "./train %s %s: exit %d: %s", args[0], args[1], a.status, a.err);
    double la = final_loss(a.out), lb = final_loss(b.out);
    cr_assert(fabs(la - lb) < 1e-3, "./train %s %s: loss %g, ./mlp --batch_size %s: %g",
              args[0], args[1], la, batch, lb);
}

Test(train_program, every_cpu_strategy_ends_with_mlps_loss, .timeout = 120)
{
    trains_like_mlp((char *[]){"--strategy", "single", "--batch_size", "128", NULL}, "128");
    trains_like_mlp((char *[]){"--strategy", "ring", "--n_gpus", "2", NULL}, "128");
    trains_like_mlp((char *[]){"--strategy", "ring_bucketed", "--n_gpus", "3", "--bucket_mb",
                               "0.001", NULL}, "192");
    trains_like_mlp((char *[]){"--strategy", "param_server", "--n_gpus", "3", NULL}, "128");
    trains_like_mlp((char *[]){"--strategy", "data_parallel", "--n_gpus", "4", NULL}, "256");
}

Test(train_program, the_breakdown_says_how_much_was_hidden)
{
    static Run r;
    char *argv[] = {"./train", "--strategy", "ring_bucketed", "--n_gpus", "2", "--bucket_mb",
                    "0.001", "--epochs", "1", "--device", "cpu", NULL};
    run_program(argv, &r);
    cr_assert(r.status == 0, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.out, "bucket wait") && strstr(r.out, "overlap: 2 buckets") &&
              strstr(r.out, "hidden behind backward") && strstr(r.out, "identical"),
              "output: %s", r.out);
}

Test(train_program, refuses_what_cannot_run)
{
    struct { char *args[8]; const char *says; } bad[] = {
        {{"--strategy", "fastest"}, "--strategy: expected one of single|param_server"},
        {{"--strategy", "single", "--n_gpus", "2"}, "trains on one device"},
        {{"--strategy", "param_server", "--n_gpus", "1"}, "at least one worker"},
        {{"--strategy", "ring", "--bucket_mb", "1"}, "ring_bucketed only"},
        {{"--strategy", "ring_bucketed", "--bucket_mb", "0"}, "--bucket_mb: expected a number"},
        {{"--strategy", "mpi", "--transport", "shm"}, "needs the MPI transport"},
        {{"--strategy", "param_server", "--transport", "mpi"}, "over --transport mpi use"},
        {{"--strategy", "data_parallel", "--device", "cuda"}, "one GPU per process"},
        {{"--strategy", "nccl", "--device", "cpu"}, "NCCL moves GPU memory"},
        {{"--strategy", "nccl", "--n_gpus", "65"}, "--n_gpus: expected an integer in [1, 64]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        static Run r;
        char *argv[12] = {"./train"};
        int k = 1;
        for (int j = 0; bad[i].args[j]; j++)
            argv[k++] = bad[i].args[j];
        argv[k] = NULL;
        run_program(argv, &r);
        cr_assert(r.status == 2, "%s %s: exit %d, expected 2 (%s)", argv[1], argv[2], r.status,
                  r.err);
        cr_assert(strstr(r.err, bad[i].says) && count_lines(r.err) == 1,
                  "%s %s: stderr '%s' should be one line saying '%s'", argv[1], argv[2], r.err,
                  bad[i].says);
    }
}

/* NCCL on more ranks than GPUs is refused before any rank starts, in one line that suggests
 * what can run: with no GPU visible (CUDA_VISIBLE_DEVICES empty), the ring, and not a
 * --n_gpus that cannot help; with at most one visible (CUDA_VISIBLE_DEVICES=0), one rank,
 * where a GPU answers. So both run on any machine, with or without GPUs. */
Test(train_program, nccl_without_enough_gpus_is_refused_before_any_rank_starts)
{
    static Run r;
    char *none[] = {"/usr/bin/env", "CUDA_VISIBLE_DEVICES=", "./train", "--strategy", "nccl",
                    "--n_gpus", "1", NULL};
    run_program(none, &r);
    cr_assert(r.status == 2 && count_lines(r.err) == 1 && strstr(r.err, "no GPU answered") &&
                  strstr(r.err, "use --strategy ring") && !strstr(r.err, "--n_gpus"),
              "no GPU: exit %d: %s", r.status, r.err);
    char *one[] = {"/usr/bin/env", "CUDA_VISIBLE_DEVICES=0", "./train", "--strategy", "nccl",
                   "--n_gpus", "2", NULL};
    run_program(one, &r);
    cr_assert(r.status == 2 && count_lines(r.err) == 1, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "no GPU answered") ||
                  (strstr(r.err, "2 ranks but 1 GPU answered: NCCL needs one GPU per rank") &&
                   strstr(r.err, "use --n_gpus 1 or --strategy ring")),
              "one GPU at most: %s", r.err);
}

/* ---------------------------------------------------------------- --trace */

/* Every training program writes a timeline that parses: ./mlp one process, with each layer's
 * forward and backward at every step; ./ring's phases on each rank; ./train --strategy fsdp
 * its gathers and reduce-scatters on the communication lane of every rank, one reduce-scatter
 * per layer and step. Nothing here depends on timing: only on what ran. */
Test(trace, every_training_program_writes_a_timeline, .timeout = 120)
{
    char dir[] = "/tmp/dps-trace-XXXXXX", path[64];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.json", dir);
    struct {
        char *argv[16];
        int ranks, steps, layers;
        const char *train_lane[3], *comm_lane[2];
    } runs[] = {
        {{"./mlp", "--train_size", "1024", "--epochs", "1", "--quiet", "--trace", path, NULL},
         1, 16, 2, {"forward 1", "backward 0", "update"}, {NULL, NULL}},
        {{"./ring", "--n_gpus", "2", "--train_size", "1024", "--epochs", "1", "--quiet",
          "--trace", path, NULL},
         2, 8, 2, {"backward 1", "share-reduce", "share-only"}, {NULL, NULL}},
        {{"./train", "--strategy", "fsdp", "--n_gpus", "2", "--hidden", "32,16", "--train_size",
          "1024", "--epochs", "1", "--quiet", "--trace", path, NULL},
         2, 8, 3, {"backward 2", "forward 0", "update"}, {"gather layer", "reduce-scatter layer"}},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        Run r;
        run_program(runs[k].argv, &r);
        cr_assert(r.status == 0, "%s --trace: exit %d: %s", runs[k].argv[0], r.status, r.err);
        Span *s;
        int n = trace_read(path, &s);
        for (int rank = 0; rank < runs[k].ranks; rank++) {
            for (int j = 0; j < 3; j++)
                cr_assert(trace_count(s, n, rank, LANE_TRAIN, runs[k].train_lane[j]) > 0,
                          "%s: rank %d has no '%s' on its training lane", runs[k].argv[0], rank,
                          runs[k].train_lane[j]);
            int backward = trace_count(s, n, rank, LANE_TRAIN, "backward 0");
            cr_assert(backward == runs[k].steps, "%s: rank %d did %d backwards of layer 0, "
                      "expected one per step (%d)", runs[k].argv[0], rank, backward,
                      runs[k].steps);
            if (!runs[k].comm_lane[0])
                continue;
            int scatters = trace_count(s, n, rank, LANE_COMM, runs[k].comm_lane[1]);
            cr_assert(trace_count(s, n, rank, LANE_COMM, runs[k].comm_lane[0]) > 0 &&
                      scatters == runs[k].steps * runs[k].layers,
                      "%s: rank %d: %d reduce-scatters, expected %d", runs[k].argv[0], rank,
                      scatters, runs[k].steps * runs[k].layers);
        }
        cr_assert(trace_count(s, n, runs[k].ranks, LANE_TRAIN, "") == 0,
                  "%s: events of a rank %d that does not exist", runs[k].argv[0], runs[k].ranks);
        free(s);
        unlink(path);
    }
    rmdir(dir);
}

