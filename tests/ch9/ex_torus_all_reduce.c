/* Tests of exercise 9.2, torus_all_reduce. */
#include "ch9.h"
#include "ch9/grid.h"
#include "helpers.h"

enum { MOST = 6007 };

/* The grid of the run. */
static Grid grid;

/* Exact sums for counts 0, 1, 5 and 6007, twice each, every rank sleeping a random few
 * microseconds before each call; messages only to the rank's row and column neighbours. */
static int sums(Comm *c, const Watched *w, float *buf, float *scratch, char *err)
{
    int rank = c->rank, size = c->size;
    const size_t counts[] = {0, 1, 5, MOST};
    Rng g;
    rng_seed(&g, 92, (uint64_t)rank);
    for (int call = 0; call < 8; call++) {
        size_t n = counts[call % 4];
        win_fill(buf, n, rank, call);
        win_delay(&g, 40);
        if (torus_all_reduce(c, grid.rows, buf, n, scratch, err))
            return -1;
        for (size_t i = 0; i < n; i++) {
            float want = win_sum(win_value, call, size, i);
            if (buf[i] != want)
                return error_set(err,
                                 "%d x %d grid, %zu floats: rank %d has %g at %zu, expected %g",
                                 grid.rows, grid.cols, n, rank, buf[i], i, want);
        }
    }
    unsigned long long near = grid_row_mask(grid, rank) | grid_col_mask(grid, rank);
    char to[200], may[200];
    if (w->to & ~near)
        return error_set(err,
                         "%d x %d grid: rank %d sent to ranks %s; only the ranks next to it "
                         "in its row and its column (%s) may get a message",
                         grid.rows, grid.cols, rank, grid_ranks(w->to, to, sizeof to),
                         grid_ranks(near, may, sizeof may));
    return 0;
}

Test(ex_torus_all_reduce, exact_sums_on_grids_messages_to_neighbours_only)
{
    const Grid grids[] = {{1, 1}, {1, 4}, {4, 1}, {2, 2}, {2, 3}, {3, 2}};
    for (size_t k = 0; k < sizeof grids / sizeof *grids; k++) {
        grid = grids[k];
        grid_run(grid.rows * grid.cols, 0, sums, MOST, 60);
    }
}

/* The bytes of one call, along the row and down the column: the row's share-reduce and
 * share-only carry chunks of count / C, the column's ring only the chunk the rank owns. */
static int bytes(Comm *c, const Watched *w, float *buf, float *scratch, char *err)
{
    int rank = c->rank;
    const size_t counts[] = {5, MOST};
    unsigned long long row = grid_row_mask(grid, rank), col = grid_col_mask(grid, rank);
    for (int call = 0; call < 2; call++) {
        size_t n = counts[call];
        win_fill(buf, n, rank, call);
        size_t along = grid_bytes_to(w, row), down = grid_bytes_to(w, col);
        if (torus_all_reduce(c, grid.rows, buf, n, scratch, err))
            return -1;
        along = grid_bytes_to(w, row) - along, down = grid_bytes_to(w, col) - down;
        if (along > grid_row_most(grid, n) || down > grid_col_most(grid, n))
            return error_set(err,
                             "%d x %d grid, %zu floats: rank %d sent %zu bytes along its row "
                             "and %zu down its column; at most %zu and %zu",
                             grid.rows, grid.cols, n, rank, along, down, grid_row_most(grid, n),
                             grid_col_most(grid, n));
        for (size_t i = 0; i < n; i++) {
            float want = win_sum(win_value, call, c->size, i);
            if (buf[i] != want)
                return error_set(err,
                                 "%d x %d grid, %zu floats: rank %d has %g at %zu, expected %g",
                                 grid.rows, grid.cols, n, rank, buf[i], i, want);
        }
    }
    return 0;
}

Test(ex_torus_all_reduce, bytes_along_rows_and_down_columns)
{
    const Grid grids[] = {{2, 2}, {2, 3}, {3, 2}};
    for (size_t k = 0; k < sizeof grids / sizeof *grids; k++) {
        grid = grids[k];
        grid_run(grid.rows * grid.cols, 0, bytes, MOST, 60);
    }
}

/* Rows that are not a grid of 6 ranks: refused, "rows" in the message, nothing sent; then
 * 3 rows run. */
static int refused(Comm *c, const Watched *w, float *buf, float *scratch, char *err)
{
    const int bad[] = {4, 0, -2, 12, 5};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        err[0] = 0;
        if (torus_all_reduce(c, bad[k], buf, 16, scratch, err) == 0 || !strstr(err, "rows"))
            return error_set(err, "rank %d: %d rows of 6 ranks were not refused by name (%s)",
                             c->rank, bad[k], err);
    }
    if (w->sends)
        return error_set(err,
                         "rank %d sent %ld messages during the refused calls: refuse before "
                         "anything is sent",
                         c->rank, w->sends);
    for (size_t i = 0; i < 16; i++) /* and 3 rows of 2 are a grid */
        buf[i] = (float)c->rank;
    if (torus_all_reduce(c, 3, buf, 16, scratch, err))
        return -1;
    for (size_t i = 0; i < 16; i++)
        if (buf[i] != 15.0f)
            return error_set(err,
                             "after the refusals, 3 rows: rank %d has %g at %zu, expected 15",
                             c->rank, buf[i], i);
    return 0;
}

Test(ex_torus_all_reduce, rows_that_are_not_a_grid_are_refused_others_run)
{
    grid_run(6, 0, refused, 16, 30);
}
