/* Hidden tests of exercise 8.3, hierarchical_all_reduce: eight ranks in nodes of four and of
 * two, a large buffer, and back-to-back calls with random delays (not in the students'
 * handout). */
#include "ch8.h"
#include "ch8/windows.h"
#include "helpers.h"

enum { N = 100003 };

static int node_size_of_run, calls_of_run, delay_of_run;

static int run(int rank, int size, void *arg, char *err)
{
    (void)arg;
    int node = node_size_of_run;
    Watched w;
    Comm *c = win_comm(rank, &w, err);
    if (!c)
        return -1;
    float *buf = c->alloc_shared(c, N * sizeof(float)), *scratch = xcalloc(N, 4);
    Rng g;
    rng_seed(&g, 9, (uint64_t)rank);
    const size_t counts[] = {0, 1, 3, 4099, N};
    for (int call = 0; call < calls_of_run; call++) {
        size_t n = counts[call % 5];
        for (size_t i = 0; i < n; i++)
            buf[i] = win_value(rank, i, call);
        if (delay_of_run)
            win_delay(&g, delay_of_run);
        if (hierarchical_all_reduce(c, node, buf, n, scratch, err))
            return -1;
        for (size_t i = 0; i < n; i++) {
            float want = 0;
            for (int q = 0; q < size; q++)
                want += win_value(q, i, call);
            if (buf[i] != want)
                return error_set(err, "N = %d, nodes of %d, call %d, %zu floats: rank %d has %g "
                                 "at %zu, expected %g", size, node, call, n, rank, buf[i], i,
                                 want);
        }
    }
    free(scratch);
    c->close(c);
    return 0;
}

Test(hidden_hierarchical_all_reduce, eight_ranks_in_nodes_of_four_and_of_two)
{
    const int nodes[] = {4, 2};
    for (int k = 0; k < 2; k++) {
        char err[ERR_LEN];
        node_size_of_run = nodes[k], calls_of_run = 5, delay_of_run = 0;
        cr_assert(run_ranks(8, 0, WAIT_S, run, NULL, 60, err) == 0, "%s", err);
    }
}

Test(hidden_hierarchical_all_reduce, back_to_back_calls_with_delays)
{
    char err[ERR_LEN];
    node_size_of_run = 2, calls_of_run = 30, delay_of_run = 50;
    cr_assert(run_ranks(4, 0, WAIT_S, run, NULL, 60, err) == 0, "%s", err);
}
