/* Tests of exercise 8.2, direct_reduce. */
#include "ch8.h"
#include "ch8/windows.h"
#include "helpers.h"

enum { MOST = 5003 };

/* Every rank as root in turn, counts 0, 1, N - 1 and 5003, rough data: the root's sums are
 * the host's, added in rank order, to the bit; every other buffer is as it was. */
static int every_root(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Watched w;
    Comm *c = win_comm(rank, &w, err);
    if (!c)
        return -1;
    float *buf = c->alloc_shared(c, MOST * sizeof(float));
    const size_t counts[] = {0, 1, (size_t)size - 1, MOST};
    for (int root = 0; root < size; root++)
        for (size_t k = 0; k < 4; k++) {
            size_t n = counts[k];
            for (size_t i = 0; i < n; i++)
                buf[i] = win_rough(rank, i) + (float)root;
            if (direct_reduce(c, buf, n, root, err))
                return -1;
            for (size_t i = 0; i < n; i++) {
                float want = win_rough(rank, i) + (float)root;
                if (rank == root) {
                    want = win_rough(0, i) + (float)root;
                    for (int q = 1; q < size; q++)
                        want += win_rough(q, i) + (float)root;
                }
                if (memcmp(&buf[i], &want, sizeof want) != 0)
                    return error_set(err, "N = %d, root %d, %zu floats: rank %d has %.9g at "
                                     "%zu, expected %.9g (%s)", size, root, n, rank, buf[i], i,
                                     want, rank == root ? "the sum in rank order"
                                                        : "its own data, untouched");
            }
        }
    c->close(c);
    return 0;
}

Test(ex_direct_reduce, every_root_on_one_to_five_ranks)
{
    for (int n = 1; n <= 5; n++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(n, 0, WAIT_S, every_root, NULL, 60, err) == 0, "%s", err);
    }
}

/* Forty calls with random delays: a rank that returned while a peer still read or wrote its
 * buffer would find the next call's data spoiled. */
static int back_to_back(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Watched w;
    Comm *c = win_comm(rank, &w, err);
    if (!c)
        return -1;
    enum { N = 2999 };
    float *buf = c->alloc_shared(c, N * sizeof(float));
    Rng g;
    rng_seed(&g, 5, (uint64_t)rank);
    for (int call = 0; call < 40; call++) {
        int root = (call * 7) % size;
        for (size_t i = 0; i < N; i++)
            buf[i] = win_value(rank, i, call);
        win_delay(&g, 40);
        if (direct_reduce(c, buf, N, root, err))
            return -1;
        for (size_t i = 0; i < N; i++) {
            float want = win_value(rank, i, call);
            if (rank == root) {
                want = 0;
                for (int q = 0; q < size; q++)
                    want += win_value(q, i, call);
            }
            if (buf[i] != want)
                return error_set(err, "call %d, root %d: rank %d has %g at %zu, expected %g",
                                 call, root, rank, buf[i], i, want);
        }
    }
    c->close(c);
    return 0;
}

Test(ex_direct_reduce, back_to_back_calls_with_delays)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(4, 0, WAIT_S, back_to_back, NULL, 60, err) == 0, "%s", err);
}
