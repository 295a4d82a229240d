/* Tests of exercise 9.3, unequal_hosts_all_reduce. */
#include "ch9.h"
#include "ch8/windows.h"
#include "helpers.h"

enum { MOST = 6007, MAX_NODES = 8 };

/* The layout of a run: node sizes, in the order of the ranks. */
static int sizes_of_run[MAX_NODES], nodes_of_run;

/* Node j's first rank, and the node of rank r (its first rank and size in *first, *size). */
static int node_of(int r, int *first, int *size)
{
    int f = 0;
    for (int j = 0; j < nodes_of_run; f += sizes_of_run[j++])
        if (r < f + sizes_of_run[j]) {
            *first = f, *size = sizes_of_run[j];
            return j;
        }
    return -1;
}

/* The largest node's size: the number of chunks. */
static int chunks_of_run(void)
{
    int G = 0;
    for (int j = 0; j < nodes_of_run; j++)
        G = sizes_of_run[j] > G ? sizes_of_run[j] : G;
    return G;
}

/* The other ranks of rank r's node, as a mask. */
static unsigned long long node_mask(int r)
{
    int first = 0, size = 1;
    node_of(r, &first, &size);
    return ((1ull << size) - 1) << first & ~(1ull << r);
}

/* The ranks of other nodes that own a chunk rank r owns (chunk k: local rank k % size of
 * each node), as a mask. */
static unsigned long long owners_mask(int r)
{
    int first = 0, size = 1, G = chunks_of_run();
    int node = node_of(r, &first, &size);
    unsigned long long m = 0;
    for (int k = r - first; k < G; k += size)
        for (int j = 0, f = 0; j < nodes_of_run; f += sizes_of_run[j++])
            if (j != node)
                m |= 1ull << (f + k % sizes_of_run[j]);
    return m;
}

/* The layout, as "3+1", for the messages. */
static const char *layout(void)
{
    static char s[64];
    int at = 0;
    for (int j = 0; j < nodes_of_run; j++)
        at += snprintf(s + at, sizeof s - (size_t)at, "%s%d", j ? "+" : "", sizes_of_run[j]);
    return s;
}

/* Exact sums for counts 0, 1, 5 and 6007, twice each, every rank sleeping a random few
 * microseconds before each call; what each rank read and sent. */
static int sums(Comm *c, const Watched *w, float *buf, char *err)
{
    int rank = c->rank, size = c->size;
    float *scratch = xcalloc(MOST, 4);
    const size_t counts[] = {0, 1, 5, MOST};
    Rng g;
    rng_seed(&g, 83, (uint64_t)rank);
    for (int call = 0; call < 8; call++) {
        size_t n = counts[call % 4];
        win_fill(buf, n, rank, call);
        win_delay(&g, 40);
        if (unequal_hosts_all_reduce(c, sizes_of_run, nodes_of_run, buf, n, scratch, err))
            return -1;
        for (size_t i = 0; i < n; i++) {
            float want = win_sum(win_value, call, size, i);
            if (buf[i] != want)
                return error_set(err,
                                 "N = %d, nodes %s, %zu floats: rank %d has %g at %zu, "
                                 "expected %g",
                                 size, layout(), n, rank, buf[i], i, want);
        }
    }
    if (w->to & ~owners_mask(rank))
        return error_set(err,
                         "N = %d, nodes %s: rank %d sent to ranks %llx; only the ranks of "
                         "other nodes that own a chunk it owns (%llx) may get a message",
                         size, layout(), rank, w->to, owners_mask(rank));
    if (w->read & ~node_mask(rank))
        return error_set(err,
                         "N = %d, nodes %s: rank %d read the buffers of ranks %llx; only its "
                         "node's (%llx) may be read",
                         size, layout(), rank, w->read, node_mask(rank));
    free(scratch);
    return 0;
}

Test(ex_unequal_hosts_all_reduce, nodes_of_unequal_sizes)
{
    /* the number of nodes, then their sizes */
    const int runs[][MAX_NODES + 1] = {{2, 3, 1},    {2, 1, 3},       {2, 2, 2}, {3, 1, 1, 2},
                                       {1, 4},       {4, 1, 1, 1, 1}, {2, 2, 3}, {2, 1, 4},
                                       {3, 3, 2, 1}, {4, 1, 2, 1, 2}, {2, 1, 1}, {1, 1}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        int n = 0;
        nodes_of_run = runs[k][0];
        for (int j = 0; j < nodes_of_run; j++)
            n += sizes_of_run[j] = runs[k][j + 1];
        win_run(n, sums, MOST, 60);
    }
}

/* Layouts that are not one of 4 ranks: refused, "node" in the message; then 1+3 runs. */
static int refused(Comm *c, const Watched *w, float *buf, char *err)
{
    float scratch[16];
    const int bad[][5] = {
        /* the number of nodes, then their sizes */
        {1, 3}, {2, 2, 3}, {3, 2, 0, 2}, {3, 3, -1, 2}, {2, -4, 8}, {0}, {-1},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err[0] = 0;
        if (unequal_hosts_all_reduce(c, bad[k] + 1, bad[k][0], buf, 16, scratch, err) == 0 ||
            !strstr(err, "node"))
            return error_set(err,
                             "rank %d: %d node sizes (%d, %d, %d ...) for 4 ranks were "
                             "not refused by name (%s)",
                             c->rank, bad[k][0], bad[k][1], bad[k][2], bad[k][3], err);
    }
    if (w->sends)
        return error_set(err,
                         "rank %d sent %ld messages during the refused calls: refuse "
                         "before anything is sent",
                         c->rank, w->sends);
    for (size_t i = 0; i < 16; i++) /* and 1+3 is a layout */
        buf[i] = (float)c->rank;
    const int good[] = {1, 3};
    if (unequal_hosts_all_reduce(c, good, 2, buf, 16, scratch, err))
        return -1;
    for (size_t i = 0; i < 16; i++)
        if (buf[i] != 6.0f)
            return error_set(err,
                             "after the refusals, nodes 1+3: rank %d has %g at %zu, "
                             "expected 6",
                             c->rank, buf[i], i);
    return 0;
}

Test(ex_unequal_hosts_all_reduce, node_sizes_that_are_not_a_layout_are_refused_others_run)
{
    win_run(4, refused, 16, 30);
}
