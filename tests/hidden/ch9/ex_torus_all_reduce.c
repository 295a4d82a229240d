/* Hidden tests of exercise 9.2, torus_all_reduce: 2 x 4 and 4 x 2 with a large buffer,
 * chunks larger than the channels, back-to-back calls with random delays (not in the
 * students' handout). */
#include "ch9.h"
#include "ch9/grid.h"
#include "helpers.h"

enum { N = 100003 };

static Grid grid;
static int calls_of_run, delay_of_run;
static size_t most_of_run;

/* Counts 1, 3, 4099 and most_of_run in turn; exact sums. */
static int run(Comm *c, const Watched *w, float *buf, float *scratch, char *err)
{
    (void)w;
    int rank = c->rank, size = c->size;
    const size_t counts[] = {1, 3, 4099, most_of_run};
    Rng g;
    rng_seed(&g, 29, (uint64_t)rank);
    for (int call = 0; call < calls_of_run; call++) {
        size_t n = counts[call % 4];
        win_fill(buf, n, rank, call);
        if (delay_of_run)
            win_delay(&g, delay_of_run);
        if (torus_all_reduce(c, grid.rows, buf, n, scratch, err))
            return -1;
        for (size_t i = 0; i < n; i++) {
            float want = win_sum(win_value, call, size, i);
            if (buf[i] != want)
                return error_set(err,
                                 "%d x %d grid, call %d, %zu floats: rank %d has %g at %zu, "
                                 "expected %g",
                                 grid.rows, grid.cols, call, n, rank, buf[i], i, want);
        }
    }
    return 0;
}

static void run_grid(int rows, int cols, size_t chan, int calls, int delay, size_t most)
{
    grid = (Grid){rows, cols};
    calls_of_run = calls, delay_of_run = delay, most_of_run = most;
    grid_run(rows * cols, chan, run, most, 60);
}

Test(hidden_torus_all_reduce, two_by_four_and_four_by_two_a_large_buffer)
{
    run_grid(2, 4, 0, 4, 0, N);
    run_grid(4, 2, 0, 4, 0, N);
}

Test(hidden_torus_all_reduce, chunks_larger_than_the_channels)
{
    run_grid(2, 3, 4096, 4, 0, 30011);
    run_grid(1, 5, 4096, 4, 0, 30011);
}

Test(hidden_torus_all_reduce, back_to_back_calls_with_delays)
{
    run_grid(3, 2, 0, 30, 50, 5003);
}
