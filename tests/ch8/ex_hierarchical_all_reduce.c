/* Tests of exercise 8.3, hierarchical_all_reduce. */
#include "ch8.h"
#include "ch8/windows.h"
#include "helpers.h"

enum { MOST = 6007 };

/* The ranks that share rank r's node, and those of its place in the other nodes, as masks. */
static unsigned long long node_mask(int r, int node_size)
{
    int first = r / node_size * node_size;
    return ((1ull << node_size) - 1) << first & ~(1ull << r);
}

static unsigned long long place_mask(int r, int node_size, int size)
{
    unsigned long long m = 0;
    for (int q = r % node_size; q < size; q += node_size)
        if (q != r)
            m |= 1ull << q;
    return m;
}

static int node_size_of_run;

/* Exact sums for counts 0, 1, 5 and 6007, twice each; what each rank read and sent. */
static int sums(Comm *c, const Watched *w, float *buf, char *err)
{
    int rank = c->rank, size = c->size, node = node_size_of_run;
    float *scratch = xcalloc(MOST, 4);
    const size_t counts[] = {0, 1, 5, MOST};
    for (int call = 0; call < 8; call++) {
        size_t n = counts[call % 4];
        win_fill(buf, n, rank, call);
        if (hierarchical_all_reduce(c, node, buf, n, scratch, err))
            return -1;
        for (size_t i = 0; i < n; i++) {
            float want = win_sum(win_value, call, size, i);
            if (buf[i] != want)
                return error_set(err, "N = %d, nodes of %d, %zu floats: rank %d has %g at %zu, "
                                 "expected %g", size, node, n, rank, buf[i], i, want);
        }
    }
    if (w->to & ~place_mask(rank, node, size))
        return error_set(err,
                         "N = %d, nodes of %d: rank %d sent to ranks %llx; only the ranks "
                         "of its place in other nodes (%llx) may get a message",
                         size, node, rank, w->to, place_mask(rank, node, size));
    if (w->read & ~node_mask(rank, node))
        return error_set(
            err,
            "N = %d, nodes of %d: rank %d read the buffers of ranks %llx; only "
            "its node's (%llx) may be read",
            size, node, rank, w->read, node_mask(rank, node));
    free(scratch);
    return 0;
}

Test(ex_hierarchical_all_reduce, nodes_of_two_three_one_and_all)
{
    const int runs[][2] = {{4, 2}, {6, 3}, {4, 1}, {4, 4}, {2, 1}, {1, 1}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        node_size_of_run = runs[k][1];
        win_run(runs[k][0], sums, MOST, 60);
    }
}

static int refused(Comm *c, const Watched *w, float *buf, char *err)
{
    (void)w;
    float scratch[16];
    int bad[] = {3, 0, -2};
    for (int k = 0; k < 3; k++)
        if (hierarchical_all_reduce(c, bad[k], buf, 16, scratch, err) == 0)
            return error_set(err, "nodes of %d ranks for 4 ranks were not refused", bad[k]);
    for (size_t i = 0; i < 16; i++) /* and nodes of 2 are not */
        buf[i] = (float)c->rank;
    if (hierarchical_all_reduce(c, 2, buf, 16, scratch, err))
        return -1;
    if (buf[15] != 6.0f)
        return error_set(err, "after the refusals, nodes of 2: rank %d has %g, expected 6",
                         c->rank, buf[15]);
    return 0;
}

Test(ex_hierarchical_all_reduce, node_sizes_that_do_not_divide_are_refused_others_run)
{
    win_run(4, refused, 16, 30);
}
