/* Hidden tests of exercise 9.1, tree_all_reduce: eight and eleven ranks, a large buffer on
 * small channels, back-to-back calls with random delays (not in the students' handout). */
#include "ch9.h"
#include "ch9/grid.h"
#include "helpers.h"

enum { N = 100003 };

static int calls_of_run, delay_of_run;
static size_t most_of_run;

/* Rough data of counts 1, 2, 3001 and most_of_run in turn, compared bit for bit with the
 * sum in the tree's order; the messages of every call. */
static int run(Comm *c, const Watched *w, float *buf, float *scratch, char *err)
{
    int rank = c->rank, size = c->size;
    const size_t counts[] = {1, 2, 3001, most_of_run};
    Rng g;
    rng_seed(&g, 19, (uint64_t)rank);
    for (int call = 0; call < calls_of_run; call++) {
        size_t n = counts[call % 4];
        for (size_t i = 0; i < n; i++)
            buf[i] = grid_rough(rank, i, call);
        if (delay_of_run)
            win_delay(&g, delay_of_run);
        long sends = w->sends;
        size_t bytes = w->bytes;
        if (tree_all_reduce(c, buf, n, scratch, err) ||
            tree_messages_ok(w, rank, size, n, sends, bytes, err))
            return -1;
        for (size_t i = 0; i < n; i++) {
            float want = tree_sum(grid_rough, call, size, 0, size, i);
            if (memcmp(&buf[i], &want, sizeof want) != 0)
                return error_set(err,
                                 "N = %d, call %d, %zu floats: rank %d has %.9g at %zu, "
                                 "expected %.9g",
                                 size, call, n, rank, buf[i], i, want);
        }
    }
    return 0;
}

Test(hidden_tree_all_reduce, eight_and_eleven_ranks_a_large_buffer_small_channels)
{
    calls_of_run = 4, delay_of_run = 0, most_of_run = N;
    grid_run(8, 0, run, N, 60);
    grid_run(11, 4096, run, N, 60);
}

Test(hidden_tree_all_reduce, back_to_back_calls_with_delays)
{
    calls_of_run = 30, delay_of_run = 50, most_of_run = 5003;
    grid_run(6, 0, run, 5003, 60);
}
