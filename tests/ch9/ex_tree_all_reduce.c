/* Tests of exercise 9.1, tree_all_reduce. */
#include "ch9.h"
#include "ch9/grid.h"
#include "helpers.h"

enum { MOST = 6007, ROUGH = 1001 };

/* Exact sums for counts 0, 1, 5 and 6007, twice each, every rank sleeping a random few
 * microseconds before each call; the messages of every call, and to whom. */
static int sums(Comm *c, const Watched *w, float *buf, float *scratch, char *err)
{
    int rank = c->rank, size = c->size;
    const size_t counts[] = {0, 1, 5, MOST};
    Rng g;
    rng_seed(&g, 91, (uint64_t)rank);
    for (int call = 0; call < 8; call++) {
        size_t n = counts[call % 4];
        win_fill(buf, n, rank, call);
        win_delay(&g, 40);
        long sends = w->sends;
        size_t bytes = w->bytes;
        if (tree_all_reduce(c, buf, n, scratch, err) ||
            tree_messages_ok(w, rank, size, n, sends, bytes, err))
            return -1;
        for (size_t i = 0; i < n; i++) {
            float want = win_sum(win_value, call, size, i);
            if (buf[i] != want)
                return error_set(err, "N = %d, %zu floats: rank %d has %g at %zu, expected %g",
                                 size, n, rank, buf[i], i, want);
        }
    }
    return 0;
}

Test(ex_tree_all_reduce, exact_sums_and_the_tree_s_messages_on_one_to_seven_ranks)
{
    for (int n = 1; n <= 7; n++)
        grid_run(n, 0, sums, MOST, 60);
}

/* Rough data, whose sums depend on the order of addition: every rank ends with the bits of
 * the sum in the tree's order, as the host forms it. */
static int bits(Comm *c, const Watched *w, float *buf, float *scratch, char *err)
{
    (void)w;
    int rank = c->rank, size = c->size;
    for (int call = 0; call < 2; call++) {
        for (size_t i = 0; i < ROUGH; i++)
            buf[i] = grid_rough(rank, i, call);
        if (tree_all_reduce(c, buf, ROUGH, scratch, err))
            return -1;
        for (size_t i = 0; i < ROUGH; i++) {
            float want = tree_sum(grid_rough, call, size, 0, size, i);
            if (memcmp(&buf[i], &want, sizeof want) != 0)
                return error_set(err,
                                 "N = %d, call %d: rank %d has %.9g at %zu, expected %.9g "
                                 "(the sum in the tree's order)",
                                 size, call, rank, buf[i], i, want);
        }
    }
    return 0;
}

Test(ex_tree_all_reduce, the_same_bits_everywhere_in_the_tree_s_order)
{
    const int sizes[] = {2, 3, 5, 6, 7};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        grid_run(sizes[k], 0, bits, ROUGH, 60);
}
