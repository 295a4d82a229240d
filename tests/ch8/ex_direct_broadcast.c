/* Tests of exercise 8.1, direct_broadcast. */
#include "ch8.h"
#include "ch8/windows.h"
#include "helpers.h"

enum { MOST = 4099 };

/* Every rank as root in turn, three counts; the data change from call to call. */
static int every_root(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Watched w;
    Comm *c = win_comm(rank, &w, err);
    if (!c)
        return -1;
    float *buf = c->alloc_shared(c, MOST * sizeof(float));
    const size_t counts[] = {0, 1, MOST};
    int call = 0;
    for (int root = 0; root < size; root++)
        for (size_t k = 0; k < 3; k++, call++) {
            size_t n = counts[k];
            for (size_t i = 0; i < n; i++)
                buf[i] = win_value(rank, i, call);
            if (direct_broadcast(c, buf, n, root, err))
                return -1;
            for (size_t i = 0; i < n; i++)
                if (buf[i] != win_value(root, i, call))
                    return error_set(err, "N = %d, root %d, %zu floats: rank %d has %g at %zu, "
                                     "the root's is %g", size, root, n, rank, buf[i], i,
                                     win_value(root, i, call));
        }
    if (w.sends != 0)
        return error_set(err, "rank %d sent %ld messages: a direct broadcast reads", rank,
                         w.sends);
    c->close(c);
    return 0;
}

Test(ex_direct_broadcast, every_root_on_one_to_five_ranks)
{
    for (int n = 1; n <= 5; n++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(n, 0, WAIT_S, every_root, NULL, 60, err) == 0, "%s", err);
    }
}

/* Forty calls, the root turning, every rank sleeping a random few microseconds first: a root
 * that returned before its readers had read would see its next data read by them. */
static int back_to_back(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Watched w;
    Comm *c = win_comm(rank, &w, err);
    if (!c)
        return -1;
    enum { N = 3001 };
    float *buf = c->alloc_shared(c, N * sizeof(float));
    Rng g;
    rng_seed(&g, 3, (uint64_t)rank);
    for (int call = 0; call < 40; call++) {
        int root = call % size;
        for (size_t i = 0; i < N; i++)
            buf[i] = win_value(rank, i, call);
        win_delay(&g, 40);
        if (direct_broadcast(c, buf, N, root, err))
            return -1;
        for (size_t i = 0; i < N; i++)
            if (buf[i] != win_value(root, i, call))
                return error_set(err, "call %d, root %d: rank %d has %g at %zu, the root's is "
                                 "%g", call, root, rank, buf[i], i, win_value(root, i, call));
    }
    c->close(c);
    return 0;
}

Test(ex_direct_broadcast, back_to_back_calls_with_delays)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(3, 0, WAIT_S, back_to_back, NULL, 60, err) == 0, "%s", err);
}

static int bad_root(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Watched w;
    Comm *c = win_comm(rank, &w, err);
    if (!c)
        return -1;
    float *buf = c->alloc_shared(c, 16 * sizeof(float));
    int roots[] = {-1, size};
    for (int k = 0; k < 2; k++)
        if (direct_broadcast(c, buf, 16, roots[k], err) == 0 || !strstr(err, "root"))
            return error_set(err, "root %d of %d ranks was not refused by name (%s)", roots[k],
                             size, err);
    c->close(c);
    return 0;
}

Test(ex_direct_broadcast, a_root_outside_the_ranks_is_refused)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(2, 0, WAIT_S, bad_root, NULL, 30, err) == 0, "%s", err);
}
