/* Hidden tests of exercise 9.3, unequal_hosts_all_reduce: eight ranks as 5+3 and 1+2+5, a
 * large buffer, and back-to-back calls with random delays on 2+1+3 (not in the students'
 * handout). */
#include "ch9.h"
#include "ch8/windows.h"
#include "helpers.h"

enum { N = 100003, MAX_NODES = 8 };

static int sizes_of_run[MAX_NODES], nodes_of_run, calls_of_run, delay_of_run;

static int run(Comm *c, const Watched *w, float *buf, char *err)
{
    (void)w;
    int rank = c->rank, size = c->size;
    float *scratch = xcalloc(N, 4);
    Rng g;
    rng_seed(&g, 9, (uint64_t)rank);
    const size_t counts[] = {0, 1, 3, 4099, N};
    for (int call = 0; call < calls_of_run; call++) {
        size_t n = counts[call % 5];
        win_fill(buf, n, rank, call);
        if (delay_of_run)
            win_delay(&g, delay_of_run);
        if (unequal_hosts_all_reduce(c, sizes_of_run, nodes_of_run, buf, n, scratch, err))
            return -1;
        for (size_t i = 0; i < n; i++) {
            float want = win_sum(win_value, call, size, i);
            if (buf[i] != want)
                return error_set(err,
                                 "N = %d, %d nodes (the first of %d ranks), call %d, %zu "
                                 "floats: rank %d has %g at %zu, expected %g",
                                 size, nodes_of_run, sizes_of_run[0], call, n, rank, buf[i], i,
                                 want);
        }
    }
    free(scratch);
    return 0;
}

/* Run on the layout {sizes[1], ..., sizes[sizes[0]]}. */
static void run_layout(const int *sizes, int calls, int delay)
{
    int n = 0;
    nodes_of_run = sizes[0], calls_of_run = calls, delay_of_run = delay;
    for (int j = 0; j < nodes_of_run; j++)
        n += sizes_of_run[j] = sizes[j + 1];
    win_run(n, run, N, 60);
}

Test(hidden_unequal_hosts_all_reduce, eight_ranks_as_five_three_and_one_two_five)
{
    const int a[] = {2, 5, 3}, b[] = {3, 1, 2, 5};
    run_layout(a, 5, 0);
    run_layout(b, 5, 0);
}

Test(hidden_unequal_hosts_all_reduce, back_to_back_calls_with_delays)
{
    const int a[] = {3, 2, 1, 3};
    run_layout(a, 30, 50);
}
