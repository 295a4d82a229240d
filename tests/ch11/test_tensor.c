/* Chapter 11: the tensor strategy and the grid against one device. Ranks train with
 * --strategy tensor on T ranks a row and N/T rows; rank 0's weights at the end (the whole
 * model, put back together from the shares) are compared with one device's after the same
 * steps with the global batch, within float tolerance: the split sums each product in
 * another order. Shapes: one pair (784-24-10), a pair and a whole classifier (784-24-12-10),
 * two pairs with widths that T does not divide (784-13-11-7-10); one step, then 2 epochs.
 * Each rank's share is counted against the formula; the run refuses what the split cannot
 * do. */
#include <math.h>
#include <sys/mman.h>

#include "collectives.h"
#include "comm_mpi.h"
#include "strategy.h"
#include "train_setup.h"

static struct {
    Dataset train, test;
    int hidden[MAX_HIDDEN], n_hidden, batch, epochs, tp;
    uint64_t seed;
    float *out;      /* rank 0's whole weights at the end (shared) */
    size_t *kept;    /* each rank's parameters while it trains (shared) */
} run;

static int train_rank(int rank, int size, void *arg, char *err)
{
    (void)arg, (void)size;
    const Device *dev;
    Comm *host;
    Model m;
    Comm *c = rank_with_model(rank, &run.train, run.hidden, run.n_hidden, run.batch,
                              run.seed, &dev, &host, &m, err);
    if (!c)
        return -1;
    Strategy s;
    StrategyEnv env = {.c = c, .host = host, .m = &m, .tp = run.tp};
    if (strategy_tensor.open(&s, &env, err))
        return -1;
    run.kept[rank] = m.n_params;
    TrainConfig cfg = {.batch_size = run.batch, .epochs = run.epochs, .lr = 0.05f,
                       .seed = run.seed, .quiet = true};
    TrainResult res;
    int rc = train_run(&cfg, &m, &run.train, &run.test, &s, &res, err);
    if (rc == 0 && rank == 0)
        dev->download(run.out, m.params, m.n_params * sizeof(float));
    strategy_tensor.close(&s);
    model_free(&m);
    c->close(c);
    return rc;
}

/* One device's weights after the same epochs with the global batch (D rows of b). */
static void one_device(int global, float *w, size_t n)
{
    char err[ERR_LEN];
    Model m;
    cr_assert(model_init(&m, device_cpu(), run.train.features, run.hidden, run.n_hidden,
                         run.train.classes, global, run.seed, err) == 0, "%s", err);
    cr_assert(m.n_params == n);
    TrainConfig cfg = {.batch_size = global, .epochs = run.epochs, .lr = 0.05f,
                       .seed = run.seed, .quiet = true};
    TrainResult res;
    cr_assert(train_run(&cfg, &m, &run.train, &run.test, NULL, &res, err) == 0, "%s", err);
    m.dev->download(w, m.params, n * sizeof(float));
    model_free(&m);
}

static size_t params_of(const int *width, int L)
{
    size_t n = 0;
    for (int l = 0; l < L; l++)
        n += (size_t)width[l] * width[l + 1] + width[l + 1];
    return n;
}

/* The parameters rank t of a row of T keeps: its share of each split width (odd k < L, cut
 * as chunk_start cuts), the other widths whole. */
static size_t share_params(const int *width, int L, int T, int t)
{
    int w[MAX_LAYERS + 1];
    for (int k = 0; k <= L; k++)
        w[k] = k % 2 == 1 && k < L && T > 1
                   ? (int)(chunk_start((size_t)width[k], T, t + 1) - chunk_start((size_t)width[k], T, t))
                   : width[k];
    return params_of(w, L);
}

static void expect_one_device(int N, int T, const int *hidden, int n_hidden, int epochs)
{
    load_synthetic(epochs == 1 ? 8L * (N / T) : 240, &run.train, &run.test);
    run.test.n = 100;
    memcpy(run.hidden, hidden, n_hidden * sizeof(int));
    run.n_hidden = n_hidden, run.batch = 8, run.epochs = epochs, run.tp = T, run.seed = 5;
    int width[MAX_LAYERS + 1] = {run.train.features};
    for (int k = 0; k < n_hidden; k++)
        width[k + 1] = hidden[k];
    width[n_hidden + 1] = run.train.classes;
    size_t n = params_of(width, n_hidden + 1);
    run.out = shared_zeroed(n * sizeof(float));
    run.kept = shared_zeroed(LAUNCH_MAX_RANKS * sizeof(size_t));
    char err[ERR_LEN];
    cr_assert(run_ranks(N, 0, 30, train_rank, NULL, 120, err) == 0, "N = %d, T = %d: %s", N,
              T, err);
    for (int r = 0; r < N; r++)
        cr_assert(run.kept[r] == share_params(width, n_hidden + 1, T, r % T),
                  "N = %d, T = %d: rank %d keeps %zu parameters, its share is %zu", N, T, r,
                  run.kept[r], share_params(width, n_hidden + 1, T, r % T));
    float *want = xcalloc(n, sizeof(float));
    one_device(run.batch * (N / T), want, n);
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)run.out[i] - want[i]) / (1e-3 + fabs(want[i]));
        if (d > worst)
            worst = d, at = i;
    }
    cr_assert(worst < 1e-4, "N = %d, T = %d, %d hidden, %d epoch(s): weight %zu is %.9g, one "
              "device %.9g", N, T, n_hidden, epochs, at, run.out[at], want[at]);
    free(want);
    munmap(run.out, n * sizeof(float));
    munmap(run.kept, LAUNCH_MAX_RANKS * sizeof(size_t));
    data_free(&run.train);
    data_free(&run.test);
}

Test(tensor, one_pair_split_across_the_row_is_one_device, .timeout = 120)
{
    for (int e = 1; e <= 2; e++)
        for (int T = 2; T <= 3; T++)
            expect_one_device(T, T, (int[]){24}, 1, e);
}

Test(tensor, a_pair_and_a_whole_classifier, .timeout = 120)
{
    for (int e = 1; e <= 2; e++)
        expect_one_device(2, 2, (int[]){24, 12}, 2, e);
}

Test(tensor, two_pairs_whose_widths_the_row_does_not_divide, .timeout = 120)
{
    for (int e = 1; e <= 2; e++)
        expect_one_device(3, 3, (int[]){13, 11, 7}, 3, e);
}

Test(grid, rows_split_the_layers_and_columns_the_batch, .timeout = 120)
{
    for (int e = 1; e <= 2; e++) {
        expect_one_device(4, 2, (int[]){24}, 1, e);   /* 2 rows of 2 */
        expect_one_device(4, 1, (int[]){24}, 1, e);   /* 4 rows of 1: the ring */
        expect_one_device(4, 2, (int[]){24, 12}, 2, e);
    }
}

/* What the split cannot do, refused in one line before any rank starts. */
Test(tensor, train_refuses_what_the_split_cannot_do)
{
    expect_refused((char *[]){"./train", "--strategy", "ring", "--tp", "2", NULL},
                   "--tp splits the layers of --strategy tensor only", "--tp with the ring");
    expect_refused((char *[]){"./train", "--strategy", "tensor", "--n_gpus", "4", "--tp", "3",
                              NULL},
                   "--tp 3 does not divide --n_gpus 4", "--tp 3 of 4");
    expect_refused((char *[]){"./train", "--strategy", "tensor", "--n_gpus", "4", "--hidden",
                              "3", NULL},
                   "--tp 4: hidden layer 1 has only 3 units to split", "a layer of 3 on 4");
    expect_refused((char *[]){"./train", "--strategy", "tensor", "--n_gpus", "2", "--hidden",
                              "0", NULL},
                   "--hidden 0 has none", "no hidden layer");
    expect_refused((char *[]){"./train", "--strategy", "tensor", "--grad_dtype", "bf16", NULL},
                   "the codecs code whole gradients", "a codec");
    expect_refused((char *[]){"./train", "--strategy", "tensor", "--checkpoint", "/tmp/x.ck",
                              NULL},
                   "--checkpoint", "a checkpoint");
}

/* The state line and the log count rank 0's share: 784-32-10 on a row of 2 keeps
 * 784 x 16 + 16 + 16 x 10 + 10 = 12,730 parameters, and as many gradients; with 2 rows of
 * 2 the same. The training line says the global batch is a row's batch times the rows. */
Test(tensor, the_state_and_the_banner_count_a_rank_s_share, .timeout = 60)
{
    const char *tps[] = {"2", "2"}, *ns[] = {"2", "4"};
    const int rows[] = {1, 2};
    for (int k = 0; k < 2; k++) {
        Run r;
        run_program((char *[]){"./train", "--strategy", "tensor", "--n_gpus", (char *)ns[k],
                               "--tp", (char *)tps[k], "--hidden", "32", "--train_size", "512",
                               "--epochs", "1", NULL}, &r);
        cr_assert(r.status == 0, "exit %d: %s", r.status, r.err);
        cr_assert(strstr(r.out, "model    784-16-10, 12,730 parameters"), "%s", r.out);
        cr_assert(strstr(r.out, "state: 99.5 KiB on rank 0 (parameters 49.7 KiB, gradients "
                                "49.7 KiB"), "%s", r.out);
        char want[64];
        snprintf(want, sizeof want, "batch 64%s", rows[k] > 1 ? " per row (global 128)" : ",");
        cr_assert(strstr(r.out, want), "no '%s' in %s", want, r.out);
        cr_assert(strstr(r.out, "tensor: a step sends from rank 0"), "%s", r.out);
        /* one rank of each row prints; the epoch line appears once */
        const char *e = strstr(r.out, "epoch 1/1");
        cr_assert(e && !strstr(e + 1, "epoch 1/1"), "%s", r.out);
    }
}

/* What a step sends, counted as it was sent, against a count by hand: 784-64-32-16-10 on a
 * grid of 2 rows of 2, a row's batch 64. Along a row of 2 a ring all-reduce of c floats
 * sends c floats from each rank: forward the partial outputs of layers 1 and 3 (64 x 32,
 * 64 x 10), backward the input gradient of layer 2 (64 x 32). Down a column of 2, the
 * rank's share, 784-32-32-8-10: 26,530 floats. */
Test(tensor, a_step_sends_what_the_shape_says, .timeout = 60)
{
    Run r;
    run_program((char *[]){"./train", "--strategy", "tensor", "--n_gpus", "4", "--tp", "2",
                           "--hidden", "64,32,16", "--train_size", "1024", "--epochs", "1",
                           NULL}, &r);
    cr_assert(r.status == 0, "exit %d: %s", r.status, r.err);
    const char *line = strstr(r.out, "tensor: a step sends from rank 0 ");
    cr_assert(line, "no report: %s", r.out);
    long row = 0, shape = 0, col = 0;
    cr_assert(sscanf(line, "tensor: a step sends from rank 0 %ld B of activations along the "
                     "row (the shape says %ld) and %ld B", &row, &shape, &col) == 3, "%s", line);
    const long want_row = 4L * 64 * (32 + 10 + 32), want_col = 4L * 26530;
    cr_assert(row == want_row && shape == want_row && col == want_col,
              "row %ld (shape %ld), column %ld; by hand %ld and %ld", row, shape, col, want_row,
              want_col);
}

/* Over MPI (mpirun's ranks, chapter 6's transport, chapter 9's views over it) the grid
 * trains as it does forked: 2 rows of 2 end with ./mlp's loss for the global batch of 128.
 * Skipped in a build without MPI. */
Test(tensor, the_grid_over_mpi_trains_like_mlp, .timeout = 120)
{
    if (!comm_mpi_available() || system("command -v mpirun >/dev/null 2>&1") != 0)
        cr_skip_test("no MPI in this build (NO_MPI=1 or mpicc/mpirun not found)");
    mpirun_may_oversubscribe();
    static Run a, b;
    char *argv[] = {"/usr/bin/env", "mpirun", "-np", "4", "./train", "--transport", "mpi",
                    "--strategy", "tensor", "--tp", "2", "--epochs", "2", "--train_size",
                    "4096", "--quiet", "--device", "cpu", NULL};
    char *mlp[] = {"./mlp", "--batch_size", "128", "--epochs", "2", "--train_size", "4096",
                   "--quiet", "--device", "cpu", NULL};
    run_program(argv, &a);
    run_program(mlp, &b);
    cr_assert(a.status == 0, "mpirun -np 4 ./train --strategy tensor --tp 2: exit %d: %s",
              a.status, a.err);
    double la = final_loss(a.out), lb = final_loss(b.out);
    cr_assert(fabs(la - lb) < 1e-3, "the grid over MPI %g, mlp with batch 128 %g", la, lb);
}
