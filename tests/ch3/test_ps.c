/* The parameter server: N-rank training equals one device with the global batch, step by
 * step; a dead worker ends the run with a clear error; --n_gpus 1 is refused. */
#include <math.h>
#include <unistd.h>

#include "../ch2/ranks.h"
#include "data.h"
#include "helpers.h"
#include "train_ref.h"
#include "train_setup.h"
#include "model.h"
#include "param_server.h"
#include "train.h"

/* One small training setup shared by the ranks (inherited through fork) and the test. */
typedef struct Setup {
    Dataset train, test;
    int hidden[1];
    int batch;      /* per worker */
    int epochs;
    float lr;
    int die_after;  /* > 0: worker 2 aborts at its die_after-th push */
    float *out;     /* shared: worker 1's final weights */
} Setup;

static Setup setup;

static int ps_rank(int rank, int size, void *arg, char *err)
{
    (void)arg;
    const Device *dev;
    Comm *host;
    Model m;
    Comm *c = rank_with_model(rank, &setup.train, setup.hidden, 1, setup.batch, 7, &dev,
                              &host, &m, err);
    if (!c)
        return -1;
    long steps = train_steps_per_epoch(setup.train.n, setup.batch, size - 1);
    if (rank == 0) {
        PsReport rep;
        if (ps_serve(c, host, &m, setup.epochs, steps, setup.lr, &rep, err))
            return -1;
        if (rep.steps != steps * setup.epochs)
            return error_set(err, "the server served %ld steps, expected %ld", rep.steps,
                             steps * setup.epochs);
        double expect = (double)steps * setup.epochs * (size - 1) * m.n_params * 4;
        if (rep.bytes_in != expect || rep.bytes_out != expect)
            return error_set(err, "the server moved %.0f in and %.0f out, expected %.0f each",
                             rep.bytes_in, rep.bytes_out, expect);
        return 0;
    }
    Watched w; /* worker 2 aborts at its die_after-th message (a push) */
    Comm *mine = watch(&w, c, rank == 2 ? setup.die_after : 0);
    Strategy s;
    Comm *state[2];
    ps_worker(&s, mine, host, state);
    TrainConfig cfg = {.batch_size = setup.batch, .epochs = setup.epochs, .lr = setup.lr,
                       .seed = 7, .quiet = true};
    TrainResult res;
    if (train_run(&cfg, &m, &setup.train, &setup.test, &s, &res, err))
        return -1;
    if (rank == 1)
        dev->download(setup.out, m.params, m.n_params * sizeof(float));
    return 0;
}

static void load(long train_size)
{
    load_synthetic(train_size, &setup.train, &setup.test);
    setup.hidden[0] = 24;
    setup.lr = 0.1f;
}

/* Train through the server with N ranks, then one device; compare the weights. */
static void compare(int N, long train_size, int batch, int epochs)
{
    load(train_size);
    setup.batch = batch;
    setup.epochs = epochs;
    setup.die_after = 0;
    size_t n = params_of_24(&setup.train);
    setup.out = shared_zeroed(n * sizeof(float));
    char err[ERR_LEN];
    cr_assert(run_ranks(N, 0, 30, ps_rank, NULL, 120, err) == 0, "N = %d: %s", N, err);
    expect_one_device(&setup.train, &setup.test, setup.lr, setup.out, n, N, batch * (N - 1),
                      epochs);
    data_free(&setup.train);
    data_free(&setup.test);
}

Test(ps, one_step_equals_one_device_with_the_global_batch)
{
    for (int N = 2; N <= 4; N++)
        compare(N, 16L * (N - 1), 16, 1); /* the training set is one global batch */
}

Test(ps, many_steps_equal_one_device_with_the_global_batch)
{
    for (int N = 2; N <= 4; N++)
        compare(N, 600, 10, 2);
}

/* The peers would wait 600 s for a silent rank and the launcher's limit is as long: only the
 * launcher seeing the death can end the run before the test's own time-out (30 s) fails it.
 * How long the end took is never asserted (a loaded machine says nothing about the code). */
Test(ps, a_dying_worker_ends_the_run_with_its_name, .timeout = 30)
{
    load(600);
    setup.batch = 10;
    setup.epochs = 2;
    setup.die_after = 5;
    setup.out = shared_zeroed(1 << 20);
    char err[ERR_LEN];
    cr_assert(run_ranks(4, 0, 600, ps_rank, NULL, 600, err) != 0, "the run succeeded");
    cr_assert(strstr(err, "rank 2 was killed by signal 6") &&
              strstr(err, "pushing the gradient"), "message: %s", err);
}

Test(ps_cli, one_rank_is_refused)
{
    static Run r;
    char *argv[] = {"./ps", "--n_gpus", "1", NULL};
    run_program(argv, &r);
    cr_assert(r.status == 2 && count_lines(r.err) == 1 &&
              strstr(r.err, "--n_gpus 1: a parameter server needs rank 0 as the server"),
              "exit %d: %s", r.status, r.err);
}

Test(ps_cli, a_global_batch_larger_than_the_data_is_refused)
{
    static Run r;
    char *argv[] = {"./ps", "--n_gpus", "4", "--batch_size", "400", "--train_size", "1000",
                    NULL};
    run_program(argv, &r);
    cr_assert(r.status == 2 && count_lines(r.err) == 1 &&
              strstr(r.err, "a global batch of 1200 samples"), "exit %d: %s", r.status, r.err);
}

/* ./ps --n_gpus 3 with batch 32 per worker reaches ./mlp's accuracy with batch 64. */
Test(ps_cli, trains_like_mlp_with_the_same_global_batch)
{
    static Run a, b;
    const char *dev = test_on_cuda() ? "cuda" : "cpu";
    char *ps[] = {"./ps", "--n_gpus", "3", "--batch_size", "32", "--epochs", "2", "--quiet",
                  "--device", (char *)dev, NULL};
    char *mlp[] = {"./mlp", "--batch_size", "64", "--epochs", "2", "--quiet", "--device",
                   (char *)dev, NULL};
    run_program(ps, &a);
    run_program(mlp, &b);
    cr_assert(a.status == 0 && b.status == 0, "ps: %s / mlp: %s", a.err, b.err);
    double la, ta, aa, lb, tb, ab;
    cr_assert(sscanf(a.out, "final: loss %lf train_acc %lf test_acc %lf", &la, &ta, &aa) == 3,
              "%s", a.out);
    cr_assert(sscanf(b.out, "final: loss %lf train_acc %lf test_acc %lf", &lb, &tb, &ab) == 3,
              "%s", b.out);
    cr_assert(fabs(la - lb) < 1e-3 && fabs(aa - ab) < 0.005,
              "ps: loss %.4f test %.4f; mlp: loss %.4f test %.4f", la, aa, lb, ab);
}

/* The server counts what it moved: 2 workers x the 784-16-10 model's 12,730 floats (50,920
 * bytes) in and out per step: 101,840 bytes = 99.5 KiB each way. */
Test(ps_cli, the_server_reports_the_bytes_it_counted)
{
    static Run r;
    char *argv[] = {"./ps", "--n_gpus", "3", "--hidden", "16", "--epochs", "1",
                    "--train_size", "640", "--device", test_on_cuda() ? "cuda" : "cpu", NULL};
    run_program(argv, &r);
    cr_assert(r.status == 0, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.out, "server: 99.5 KiB in, 99.5 KiB out per step (counted)"), "%s",
              r.out);
}
