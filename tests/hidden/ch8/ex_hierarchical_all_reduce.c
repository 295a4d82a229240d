/* Hidden tests of exercise 8.3, hierarchical_all_reduce: eight ranks in nodes of four and of
 * two, a large buffer, and back-to-back calls with random delays (not in the students'
 * handout). */
#include "ch8.h"
#include "ch8/windows.h"
#include "helpers.h"

enum { N = 100003 };

static int node_size_of_run, calls_of_run, delay_of_run;

static int run(Comm *c, const Watched *w, float *buf, char *err)
{
    (void)w;
    int rank = c->rank, size = c->size, node = node_size_of_run;
    float *scratch = xcalloc(N, 4);
    Rng g;
    rng_seed(&g, 9, (uint64_t)rank);
    const size_t counts[] = {0, 1, 3, 4099, N};
    for (int call = 0; call < calls_of_run; call++) {
        size_t n = counts[call % 5];
        win_fill(buf, n, rank, call);
        if (delay_of_run)
            win_delay(&g, delay_of_run);
        if (hierarchical_all_reduce(c, node, buf, n, scratch, err))
            return -1;
        for (size_t i = 0; i < n; i++) {
            float want = win_sum(win_value, call, size, i);
            if (buf[i] != want)
                return error_set(err, "N = %d, nodes of %d, call %d, %zu floats: rank %d has %g "
                                 "at %zu, expected %g", size, node, call, n, rank, buf[i], i,
                                 want);
        }
    }
    free(scratch);
    return 0;
}

Test(hidden_hierarchical_all_reduce, eight_ranks_in_nodes_of_four_and_of_two)
{
    const int nodes[] = {4, 2};
    for (int k = 0; k < 2; k++) {
        node_size_of_run = nodes[k], calls_of_run = 5, delay_of_run = 0;
        win_run(8, run, N, 60);
    }
}

Test(hidden_hierarchical_all_reduce, back_to_back_calls_with_delays)
{
    node_size_of_run = 2, calls_of_run = 30, delay_of_run = 50;
    win_run(4, run, N, 60);
}
