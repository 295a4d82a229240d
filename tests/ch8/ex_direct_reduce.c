/* Tests of exercise 8.2, direct_reduce. */
#include "ch8.h"
#include "ch8/windows.h"
#include "helpers.h"

enum { MOST = 5003 };

/* Rough data, shifted by the root of the call: win_rough(q, i) + root. */
static float rough_plus(int q, size_t i, int root)
{
    return win_rough(q, i) + (float)root;
}

/* Every rank as root in turn, counts 0, 1, N - 1 and 5003, rough data: the root's sums are
 * the host's, added in rank order, to the bit; every other buffer is as it was. */
static int every_root(Comm *c, const Watched *w, float *buf, char *err)
{
    (void)w;
    int rank = c->rank, size = c->size;
    const size_t counts[] = {0, 1, (size_t)size - 1, MOST};
    for (int root = 0; root < size; root++)
        for (size_t k = 0; k < 4; k++) {
            size_t n = counts[k];
            for (size_t i = 0; i < n; i++)
                buf[i] = rough_plus(rank, i, root);
            if (direct_reduce(c, buf, n, root, err))
                return -1;
            for (size_t i = 0; i < n; i++) {
                float want = win_reduced(rough_plus, root, rank, root, size, i);
                if (memcmp(&buf[i], &want, sizeof want) != 0)
                    return error_set(err, "N = %d, root %d, %zu floats: rank %d has %.9g at "
                                     "%zu, expected %.9g (%s)", size, root, n, rank, buf[i], i,
                                     want, rank == root ? "the sum in rank order"
                                                        : "its own data, untouched");
            }
        }
    return 0;
}

Test(ex_direct_reduce, every_root_on_one_to_five_ranks)
{
    for (int n = 1; n <= 5; n++)
        win_run(n, every_root, MOST, 60);
}

/* Forty calls with random delays: a rank that returned while a peer still read or wrote its
 * buffer would find the next call's data spoiled. */
static int back_to_back(Comm *c, const Watched *w, float *buf, char *err)
{
    (void)w;
    return win_back_to_back(c, buf, direct_reduce, 2999, 7, 5, win_value_reduced,
                            "expected", err);
}

Test(ex_direct_reduce, back_to_back_calls_with_delays)
{
    win_run(4, back_to_back, 2999, 60);
}
