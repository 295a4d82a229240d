/* Chapter 9 on one machine: views of a communicator, the hierarchical all-reduce on forked
 * ranks grouped into pretend hosts (--ranks_per_host), the strategy against one device, and
 * the same algorithm under mpirun over MPI's shared windows, bit for bit. */
#include <math.h>

#include "../ch2/ranks.h"
#include "../ch8/windows.h"
#include "collectives.h"
#include "comm_mpi.h"
#include "comm_view.h"
#include "helpers.h"
#include "hierarchy.h"
#include "strategy.h"
#include "train.h"
#include "train_ref.h"
#include "train_setup.h"

/* ---------------------------------------------------------------- views */

/* In a world of 4, rank r's view is {3, 1} or {0, 2}, in that order: view rank 0 of the
 * first is world rank 3. A message round the view, a barrier, and the translation. */
static int view_rank(int rank, int size, void *arg, char *err)
{
    (void)size, (void)arg;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!c)
        return -1;
    static const int odd[] = {3, 1}, even[] = {0, 2};
    Comm *v = comm_view(c, rank % 2 ? odd : even, 2, err);
    if (!v)
        return -1;
    int want = rank % 2 ? (rank == 3 ? 0 : 1) : rank / 2;
    if (v->rank != want || v->size != 2)
        return error_set(err, "world rank %d is view rank %d of %d, expected %d of 2", rank,
                         v->rank, v->size, want);
    int mine = rank * 10, got = -1;
    if (v->sendrecv(v, 1 - v->rank, &mine, sizeof mine, 1 - v->rank, &got, sizeof got, err) ||
        v->barrier(v, err))
        return -1;
    int peer = rank % 2 ? 4 - rank : 2 - rank;
    if (got != peer * 10)
        return error_set(err, "world rank %d received %d from its view's peer, expected %d",
                         rank, got, peer * 10);
    v->close(v);
    c->close(c);
    return 0;
}

Test(view, ranks_translate_and_messages_stay_within_the_view)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(4, 0, 10, view_rank, NULL, 60, err) == 0, "%s", err);
}

/* Members that are not distinct ranks of the parent, or leave this rank out, are refused. */
static int bad_view_rank(int rank, int size, void *arg, char *err)
{
    (void)size, (void)arg;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!c)
        return -1;
    static const struct {
        int members[3], n;
        const char *says;
    } bad[] = {{{0, 1, 1}, 3, "twice"},
               {{0, 1, 5}, 3, "not a rank"},
               {{-1, 0, 1}, 3, "not a rank"}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char why[ERR_LEN] = "";
        Comm *v = comm_view(c, bad[k].members, bad[k].n, why);
        if (v || !strstr(why, bad[k].says))
            return error_set(err, "case %zu: %s, said '%s'", k, v ? "accepted" : "refused",
                             why);
    }
    int other = 1 - rank;
    char why[ERR_LEN] = "";
    if (comm_view(c, &other, 1, why) || !strstr(why, "not in its own view"))
        return error_set(err, "a view without this rank: '%s'", why);
    c->close(c);
    return 0;
}

Test(view, members_that_are_not_distinct_ranks_are_refused)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(2, 0, 10, bad_view_rank, NULL, 60, err) == 0, "%s", err);
}

/* ---------------------------------------------------------------- the all-reduce */

static const size_t counts[] = {0, 1, 2, 3, 5, 1000, 6007};
#define N_COUNTS (sizeof counts / sizeof *counts)
#define MOST 6007

/* What a rank of a sums test leaves: its last rough result, for the others to compare. */
static float *results;

/* In rank r with hosts of K = *arg ranks: integer data (exact sums, and x 1/N) on every
 * count; then rough data, whose result every rank publishes for a bit-for-bit comparison;
 * then 30 calls with data that change and random delays. */
static int sums_rank(int rank, int size, void *arg, char *err)
{
    int K = *(const int *)arg;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err), *host;
    Hierarchy h;
    if (!c || !(host = comm_shm_host(c, err)) || hierarchy_open(&h, c, host, K, err))
        return -1;
    float *buf = h.local->alloc_shared(h.local, MOST * sizeof(float));
    float *scratch = xcalloc(hierarchy_scratch(&h, MOST) + 1, sizeof(float));
    if (!buf || h.hosts != size / K || h.per_host != K)
        return error_set(err, "rank %d: %s, %d hosts of %d", rank, buf ? "window" : "no window",
                         h.hosts, h.per_host);
    for (size_t k = 0; k < N_COUNTS; k++)
        for (int scaled = 0; scaled < 2; scaled++) {
            size_t n = counts[k];
            float scale = scaled ? 1.0f / (float)size : 1.0f;
            for (size_t i = 0; i < n; i++)
                buf[i] = collective_value(rank, i);
            if (hierarchical_all_reduce(&h, buf, n, scratch, scale, err))
                return -1;
            for (size_t i = 0; i < n; i++)
                if (buf[i] != (float)collective_sum(size, i) * scale)
                    return error_set(err, "%d hosts of %d, %zu floats%s: rank %d has %g at %zu, "
                                     "expected %g", h.hosts, K, n, scaled ? ", x 1/N" : "", rank,
                                     buf[i], i, (float)collective_sum(size, i) * scale);
        }
    for (size_t i = 0; i < MOST; i++)
        buf[i] = win_rough(rank, i);
    if (hierarchical_all_reduce(&h, buf, MOST, scratch, 1.0f / (float)size, err))
        return -1;
    memcpy(results + (size_t)rank * MOST, buf, MOST * sizeof(float));
    Rng g;
    rng_seed(&g, 99, (uint64_t)rank);
    for (int call = 0; call < 30; call++) { /* a rank that reads or returns too soon is caught */
        win_fill(buf, MOST, rank, call);
        win_delay(&g, 300);
        if (hierarchical_all_reduce(&h, buf, MOST, scratch, 1.0f, err))
            return -1;
        for (size_t i = 0; i < MOST; i++)
            if (buf[i] != win_sum(win_value, call, size, i))
                return error_set(err, "call %d of 30, %d hosts of %d: rank %d has %g at %zu, "
                                 "expected %g", call + 1, h.hosts, K, rank, buf[i], i,
                                 win_sum(win_value, call, size, i));
    }
    free(scratch);
    hierarchy_close(&h);
    c->close(c);
    return 0;
}

/* Every layout of up to 6 ranks that the test machine can hold: hosts of 1, 2, 3, 4, 6. */
Test(hierarchy, sums_exactly_on_every_layout_and_every_rank_holds_the_same_bits, .timeout = 120)
{
    static const int layouts[][2] = {{1, 1}, {2, 1}, {2, 2}, {3, 3}, {4, 1},
                                     {4, 2}, {4, 4}, {6, 2}, {6, 3}};
    for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
        int N = layouts[l][0], K = layouts[l][1];
        char err[ERR_LEN];
        results = shared_zeroed((size_t)N * MOST * sizeof(float));
        cr_assert(run_ranks(N, 0, 30, sums_rank, &K, 120, err) == 0, "%d ranks, hosts of %d: %s",
                  N, K, err);
        for (int r = 1; r < N; r++)
            cr_assert(memcmp(results, results + (size_t)r * MOST, MOST * sizeof(float)) == 0,
                      "%d ranks, hosts of %d: rank %d's rough result differs from rank 0's", N,
                      K, r);
        munmap(results, (size_t)N * MOST * sizeof(float));
    }
}

/* ---------------------------------------------------------------- the strategy */

static struct {
    Dataset train, test;
    float *out;
    int per_host;
} setup;

static int train_rank(int rank, int size, void *arg, char *err)
{
    (void)arg, (void)size;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err), *host;
    if (!c || !(host = comm_shm_host(c, err)))
        return -1;
    Model m;
    int hidden[1] = {24};
    if (model_init(&m, device_cpu(), setup.train.features, hidden, 1, setup.train.classes, 10,
                   7, err))
        return -1;
    Strategy s;
    StrategyEnv env = {.c = c, .host = host, .m = &m, .accum = 1,
                       .ranks_per_host = setup.per_host};
    if (strategy_hierarchical.open(&s, &env, err))
        return -1;
    TrainConfig cfg = {.batch_size = 10, .epochs = 2, .lr = 0.1f, .seed = 7, .quiet = true};
    TrainResult res;
    if (train_run(&cfg, &m, &setup.train, &setup.test, &s, &res, err))
        return -1;
    if (rank == 0)
        memcpy(setup.out, m.params, m.n_params * sizeof(float));
    strategy_hierarchical.close(&s);
    model_free(&m);
    c->close(c);
    return 0;
}

Test(hierarchical_strategy, n_ranks_equal_one_device_with_the_global_batch, .timeout = 120)
{
    static const int layouts[][2] = {{2, 1}, {2, 2}, {4, 2}, {4, 1}};
    load_synthetic(600, &setup.train, &setup.test);
    size_t n = params_of_24(&setup.train);
    setup.out = shared_zeroed(n * sizeof(float));
    for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
        int N = layouts[l][0];
        char err[ERR_LEN];
        setup.per_host = layouts[l][1];
        cr_assert(run_ranks(N, 0, 30, train_rank, NULL, 120, err) == 0, "N = %d: %s", N, err);
        expect_one_device(&setup.train, &setup.test, 0.1f, setup.out, n, N, 10 * N, 2);
    }
    data_free(&setup.train);
    data_free(&setup.test);
}

#define TRAIN_ARGS "--epochs", "2", "--train_size", "4096", "--device", "cpu"

Test(hierarchical_strategy, train_ends_with_mlps_loss_and_refuses_what_it_cannot_do,
     .timeout = 120)
{
    static Run a, b;
    run_program((char *[]){"./train", "--strategy", "hierarchical", "--n_gpus", "4",
                           "--ranks_per_host", "2", TRAIN_ARGS, NULL}, &a);
    run_program((char *[]){"./mlp", "--batch_size", "256", TRAIN_ARGS, "--quiet", NULL}, &b);
    cr_assert(a.status == 0 && b.status == 0, "exit %d and %d: %s %s", a.status, b.status,
              a.err, b.err);
    cr_assert(strstr(a.out, "2 host(s) (host1 .. host2) x 2 rank(s)"), "the banner: %.300s",
              a.out);
    cr_assert(strstr(a.out, "| hierarchical "), "the breakdown: %s", a.out);
    const char *last = strstr(a.out, "epoch 2/2");
    cr_assert(last && strstr(a.out, "replicas: the weights of all 4"), "%s", a.out);
    double la = strtod(strstr(last, "loss") + 4, NULL), lb = final_loss(b.out);
    cr_assert(fabs(la - lb) < 1e-3, "hierarchical: loss %g, ./mlp --batch_size 256: %g", la, lb);
    expect_refused((char *[]){"./train", "--strategy", "ring", "--ranks_per_host", "2", NULL},
                   "--ranks_per_host groups the ranks of --strategy hierarchical only",
                   "--ranks_per_host with the ring");
    expect_refused((char *[]){"./train", "--strategy", "hierarchical", "--n_gpus", "3",
                              "--ranks_per_host", "2", NULL},
                   "--ranks_per_host 2 does not divide --n_gpus 3", "hosts of 2 for 3 ranks");
    expect_refused((char *[]){"./train", "--strategy", "hierarchical", "--ranks_per_host", "0",
                              NULL},
                   "--ranks_per_host", "hosts of 0 ranks");
}

/* Under mpirun on this machine, the hierarchy's windows are MPI's shared memory: the same
 * algorithm over another transport leaves the same bits as the forked ranks. */
Test(hierarchical_strategy, under_mpirun_the_weights_are_the_forked_ranks_bit_for_bit,
     .timeout = 120)
{
    if (!comm_mpi_available() || system("command -v mpirun >/dev/null 2>&1") != 0)
        cr_skip_test("no MPI in this build (NO_MPI=1 or mpicc/mpirun not found)");
    mpirun_may_oversubscribe();
    static Run a, b;
    char ha[20], hb[20];
    run_program((char *[]){"./train", "--strategy", "hierarchical", "--n_gpus", "4",
                           "--ranks_per_host", "2", TRAIN_ARGS, NULL}, &a);
    run_program((char *[]){"/usr/bin/env", "mpirun", "-np", "4", "--mca",
                           "mpi_yield_when_idle", "1", "./train", "--transport", "mpi",
                           "--strategy", "hierarchical", "--ranks_per_host", "2", TRAIN_ARGS,
                           NULL}, &b);
    cr_assert(a.status == 0 && b.status == 0, "exit %d and %d: %s %s", a.status, b.status,
              a.err, b.err);
    replicas_hash(&a, ha, sizeof ha);
    replicas_hash(&b, hb, sizeof hb);
    cr_assert_str_eq(ha, hb, "forked ranks hash %s, mpirun's %s", ha, hb);
}
