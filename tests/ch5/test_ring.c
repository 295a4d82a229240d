/* Ring training: N ranks with batch b equal one device with batch N b, step by step; every
 * rank holds bit-identical weights after every step; the test accuracy is exact for any N; a
 * dying rank ends the run; the programs ./ring and ./collectives. */
#include <math.h>

#include "../ch2/ranks.h"
#include "collectives.h"
#include "data.h"
#include "helpers.h"
#include "train_ref.h"
#include "train_setup.h"
#include "model.h"
#include "ring_strategy.h"
#include "train.h"

/* One small training setup shared by the ranks (inherited through fork) and the test. */
typedef struct Setup {
    Dataset train, test;
    int hidden[1];
    int batch;      /* per rank */
    int epochs;
    float lr;
    long die_at;    /* > 0: rank 1 aborts at this message */
    float *out;     /* shared: rank 0's final weights */
    long *steps;    /* shared: steps at which rank 0 compared the replicas */
    double *test_acc; /* shared, if set: rank 0's test accuracy after the last epoch */
} Setup;

static Setup setup;

/* FNV-1a of the weights, computed here. */
static uint64_t fingerprint(const Model *m)
{
    float *w = xcalloc(m->n_params, sizeof *w);
    m->dev->download(w, m->params, m->n_params * sizeof *w);
    uint64_t h = 14695981039346656037ull;
    const unsigned char *p = (const unsigned char *)w;
    for (size_t i = 0; i < m->n_params * sizeof *w; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    free(w);
    return h;
}

/* Rank 0 receives every rank's fingerprint over the host communicator and compares. */
static int compare_replicas(Comm *host, const Model *m, long step, char *err)
{
    uint64_t mine = fingerprint(m), theirs;
    if (host->rank != 0)
        return host->send(host, 0, &mine, sizeof mine, err);
    for (int q = 1; q < host->size; q++) {
        if (host->recv(host, q, &theirs, sizeof theirs, err))
            return -1;
        if (theirs != mine)
            return error_set(err, "before step %ld the weights of rank %d differ from rank 0's",
                             step, q);
    }
    ++*setup.steps;
    return 0;
}

/* The ring strategy, with the replicas compared before every step's all-reduce. */
typedef struct Checked {
    Strategy inner; /* first: wrapped_sum_stats (train_setup.h) passes sum_stats on to it */
    Comm *host;
    long step;
} Checked;

static int checked_sync(Strategy *s, Model *m, Timers *t, char *err)
{
    Checked *k = s->state;
    if (compare_replicas(k->host, m, ++k->step, err))
        return -1;
    return k->inner.sync_gradients(&k->inner, m, t, err);
}

static int ring_rank(int rank, int size, void *arg, char *err)
{
    (void)arg;
    (void)size;
    const Device *dev;
    Comm *host;
    Model m;
    Comm *inner = rank_with_model(rank, &setup.train, setup.hidden, 1, setup.batch, 7, &dev,
                                  &host, &m, err);
    if (!inner)
        return -1;
    Watched w;
    Comm *c = watch(&w, inner, rank == 1 ? setup.die_at : 0);
    Checked k = {.host = host};
    RingState st;
    ring_strategy(&k.inner, &st, c, host, m.n_params);
    Strategy s = k.inner;
    s.sync_gradients = checked_sync;
    s.sum_stats = wrapped_sum_stats;
    s.state = &k;
    TrainConfig cfg = {.batch_size = setup.batch, .epochs = setup.epochs, .lr = setup.lr,
                       .seed = 7, .quiet = true};
    TrainResult res;
    if (train_run(&cfg, &m, &setup.train, &setup.test, &s, &res, err))
        return -1;
    if (compare_replicas(host, &m, k.step + 1, err))
        return -1;
    if (rank == 0)
        dev->download(setup.out, m.params, m.n_params * sizeof(float));
    if (rank == 0 && setup.test_acc)
        *setup.test_acc = res.last.test_acc;
    ring_strategy_free(&st);
    model_free(&m);
    return 0;
}

static void load(long train_size)
{
    load_synthetic(train_size, &setup.train, &setup.test);
    setup.hidden[0] = 24;
    setup.lr = 0.1f;
    setup.steps = shared_zeroed(sizeof *setup.steps);
}

/* Train on the ring with N ranks, then on one device; compare the weights. */
static void compare(int N, long train_size, int batch, int epochs)
{
    load(train_size);
    setup.batch = batch;
    setup.epochs = epochs;
    setup.die_at = 0;
    size_t n = params_of_24(&setup.train);
    setup.out = shared_zeroed(n * sizeof(float));
    char err[ERR_LEN];
    cr_assert(run_ranks(N, 0, 30, ring_rank, NULL, 120, err) == 0, "N = %d: %s", N, err);
    long steps = train_steps_per_epoch(setup.train.n, batch, N) * epochs;
    cr_assert(*setup.steps == steps + 1, "N = %d: the replicas were compared %ld times, "
              "expected %ld", N, *setup.steps, steps + 1);
    expect_one_device(&setup.train, &setup.test, setup.lr, setup.out, n, N, batch * N,
                      epochs);
    data_free(&setup.train);
    data_free(&setup.test);
}

Test(ring, one_step_equals_one_device_with_the_global_batch)
{
    for (int N = 1; N <= 4; N++)
        compare(N, 16L * N, 16, 1); /* the training set is one global batch */
}

Test(ring, many_steps_equal_one_device_and_replicas_stay_identical)
{
    for (int N = 1; N <= 4; N++)
        compare(N, 600, 10, 2);
}

/* Each rank classifies its slice of the test set and the ranks sum the counts, so the accuracy
 * reported is that of the final weights on the whole set, exactly, even when N does not divide
 * its size: no sample is left out and none is counted twice (PyTorch's DistributedSampler pads
 * the shards with repeated samples instead). Checked against one device that classifies the
 * whole set with rank 0's final weights. */
Test(ring, test_accuracy_is_exact_when_n_does_not_divide_the_test_set)
{
    for (int N = 2; N <= 4; N++) {
        load(600);
        setup.test.n = 997; /* prime: no N > 1 divides it */
        setup.batch = 10;
        setup.epochs = 1;
        setup.die_at = 0;
        size_t n = params_of_24(&setup.train);
        setup.out = shared_zeroed(n * sizeof(float));
        setup.test_acc = shared_zeroed(sizeof(double));
        char err[ERR_LEN];
        cr_assert(run_ranks(N, 0, 30, ring_rank, NULL, 120, err) == 0, "N = %d: %s", N, err);
        OneDevice shape = {.train = &setup.train, .test = &setup.test, .hidden = setup.hidden,
                           .n_hidden = 1, .batch = 64, .seed = 7, .n = n};
        double right = one_device_right(&shape, setup.out);
        double reported = *setup.test_acc * setup.test.n;
        cr_assert(fabs(reported - right) < 1e-6, "N = %d, 997 test samples: the ranks reported "
                  "%.6f right, one device counts %.0f with the same weights", N, reported, right);
        setup.test_acc = NULL;
        data_free(&setup.train);
        data_free(&setup.test);
    }
}

/* As for the parameter server: peers and launcher would wait 600 s, the test 30. */
Test(ring, a_dying_rank_ends_the_run_with_its_name, .timeout = 30)
{
    load(600);
    setup.batch = 10;
    setup.epochs = 2;
    setup.die_at = 7; /* rank 1's 7th message: step 2's share-reduce at N = 4 */
    setup.out = shared_zeroed(1 << 20);
    char err[ERR_LEN];
    cr_assert(run_ranks(4, 0, 600, ring_rank, NULL, 600, err) != 0, "the run succeeded");
    cr_assert(strstr(err, "rank 1 was killed by signal 6") && strstr(err, "share-reduce"),
              "message: %s", err);
}

/* The figures of the epoch are summed in rank order, the same bits on every rank. */
static int sums(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!c)
        return -1;
    double v[3] = {0.1 * rank, 1e16, -1e16 + rank}, expect[3] = {0, 0, 0};
    for (int q = 0; q < size; q++) {
        expect[0] += 0.1 * q;
        expect[1] += 1e16;
        expect[2] += -1e16 + q;
    }
    if (ring_sum_doubles(c, v, 3, err))
        return -1;
    for (int i = 0; i < 3; i++)
        if (memcmp(&v[i], &expect[i], sizeof v[i]) != 0)
            return error_set(err, "rank %d: sum %d is %.17g, expected %.17g (rank order)",
                             rank, i, v[i], expect[i]);
    c->close(c);
    return 0;
}

Test(ring, figures_are_summed_in_rank_order)
{
    for (int N = 1; N <= 5; N++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(N, 0, 30, sums, NULL, 60, err) == 0, "N = %d: %s", N, err);
    }
}

Test(ring_cli, trains_like_mlp_with_the_global_batch)
{
    static Run a, b;
    const char *dev = test_on_cuda() ? "cuda" : "cpu";
    char *ring[] = {"./ring", "--n_gpus", "4", "--epochs", "2", "--device", (char *)dev, NULL};
    char *mlp[] = {"./mlp", "--batch_size", "256", "--epochs", "2", "--quiet", "--device",
                   (char *)dev, NULL};
    run_program(ring, &a);
    run_program(mlp, &b);
    cr_assert(a.status == 0 && b.status == 0, "ring: %s / mlp: %s", a.err, b.err);
    const char *fa = strstr(a.out, "epoch 2/2  loss "), *fb = strstr(b.out, "final: loss ");
    cr_assert(fa && fb, "no last epoch or final line: %s / %s", a.out, b.out);
    double la = atof(fa + 16), lb = atof(fb + 12);
    cr_assert(fabs(la - lb) < 1e-3, "ring loss %g, mlp loss %g", la, lb);
    cr_assert(strstr(a.out, "compute") && strstr(a.out, "share-reduce") &&
              strstr(a.out, "share-only"), "no breakdown: %s", a.out);
    cr_assert(strstr(a.out, "replicas: the weights of all 4 ranks are identical"), "%s", a.out);
    cr_assert(strstr(a.out, "each rank sends 596.3 KiB per step"), "traffic: %s", a.out);
}

Test(ring_cli, bad_command_lines_are_refused)
{
    static Run r;
    char *big[] = {"./ring", "--n_gpus", "4", "--batch_size", "400", "--train_size", "1000",
                   NULL};
    run_program(big, &r);
    cr_assert(r.status == 2 && count_lines(r.err) == 1 &&
              strstr(r.err, "a global batch of 1600 samples"), "exit %d: %s", r.status, r.err);
    char *zero[] = {"./ring", "--n_gpus", "0", NULL};
    run_program(zero, &r);
    cr_assert(r.status == 2 && count_lines(r.err) == 1 && strstr(r.err, "--n_gpus"),
              "exit %d: %s", r.status, r.err);
    char *many[] = {"./ring", "--n_gpus", "65", NULL};
    run_program(many, &r);
    cr_assert(r.status == 2 && count_lines(r.err) == 1, "exit %d: %s", r.status, r.err);
}

Test(ring_cli, collectives_prints_a_checked_table_for_every_op)
{
    const char *ops[] = {"reduce_scatter", "all_gather", "all_reduce"};
    for (int i = 0; i < 3; i++) {
        static Run r;
        char *argv[] = {"./collectives", "--op", (char *)ops[i], "--n_gpus", "3", "-b", "0",
                        "-e", "1M", "-f", "4", "-n", "3", "-w", "1", NULL};
        run_program(argv, &r);
        cr_assert(r.status == 0, "%s: exit %d: %s", ops[i], r.status, r.err);
        size_t last = 0;
        cr_assert(table_rows(r.out, &last) == 11 && last == 1u << 20, "%s: %s", ops[i], r.out);
        cr_assert(strstr(r.out, ops[i]) && strstr(r.out, "average bus bandwidth"), "%s", r.out);
    }
}

Test(ring_cli, collectives_refuses_bad_input)
{
    static Run r;
    char *op[] = {"./collectives", "--op", "broadcast", NULL};
    run_program(op, &r);
    cr_assert(r.status == 2 && count_lines(r.err) == 1 &&
              strstr(r.err, "expected one of reduce_scatter|all_gather|all_reduce"),
              "exit %d: %s", r.status, r.err);
    char *sizes[] = {"./collectives", "-b", "1M", "-e", "1K", NULL};
    run_program(sizes, &r);
    cr_assert(r.status == 2 && count_lines(r.err) == 1 && strstr(r.err, "larger than -e"),
              "exit %d: %s", r.status, r.err);
}
