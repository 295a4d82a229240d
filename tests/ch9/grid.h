/* The harness of the tests of chapter 9's exercises, public and hidden: ranks launched with a
 * watched communicator on the CPU and buffers of their own; a grid's rows, columns and the
 * bytes each may carry. */
#ifndef DPS_TEST_GRID_H
#define DPS_TEST_GRID_H

#include "../ch8/windows.h"

/* What a rank of a test does with its communicator (the CPU's, watched in *w), buf and
 * scratch (`floats` floats each, its own memory): 0, or -1 with err. */
typedef int (*GridBody)(Comm *c, const Watched *w, float *buf, float *scratch, char *err);

typedef struct GridJob {
    GridBody body;
    size_t floats;
} GridJob;

static inline int grid_main(int rank, int size, void *arg, char *err)
{
    (void)size;
    const GridJob *job = arg;
    Watched w;
    Comm *c = cpu_watched(rank, &w, err);
    if (!c)
        return -1;
    float *buf = xcalloc(job->floats + 1, sizeof(float));
    float *scratch = xcalloc(job->floats + 1, sizeof(float));
    int rc = job->body(c, &w, buf, scratch, err);
    free(buf), free(scratch);
    if (rc == 0)
        c->close(c);
    return rc;
}

/* Run body on n ranks whose channels hold chan bytes (0: the default), each with buf and
 * scratch of `floats` floats (waits of WAIT_S, limit s in all); a failure fails the test
 * with the rank's message. */
static inline void grid_run(int n, size_t chan, GridBody body, size_t floats, double limit)
{
    GridJob job = {body, floats};
    char err[ERR_LEN];
    cr_assert(run_ranks(n, chan, WAIT_S, grid_main, &job, limit, err) == 0, "%s", err);
}

/* The ranks of a mask, as "0, 2, 3" (or "none"), into s. */
static inline const char *grid_ranks(unsigned long long mask, char *s, size_t cap)
{
    size_t at = 0;
    s[0] = 0;
    for (int q = 0; q < 64 && at < cap; q++)
        if (mask >> q & 1)
            at += (size_t)snprintf(s + at, cap - at, "%s%d", at ? ", " : "", q);
    if (!mask)
        snprintf(s, cap, "none");
    return s;
}

/* Rough data that move with the call: win_rough(q, i + call). */
static inline float grid_rough(int q, size_t i, int call)
{
    return win_rough(q, i + (size_t)call);
}

/* ---------------------------------------------------------------- the grid */

/* The grid of a run: rows x cols ranks, rank = row * cols + col. */
typedef struct Grid {
    int rows, cols;
} Grid;

/* The ranks next to r in its row (columns col +- 1 mod cols), as a mask, r left out. */
static inline unsigned long long grid_row_mask(Grid g, int r)
{
    int row = r / g.cols, col = r % g.cols;
    unsigned long long m = 1ull << (row * g.cols + (col + 1) % g.cols) |
                           1ull << (row * g.cols + (col + g.cols - 1) % g.cols);
    return m & ~(1ull << r);
}

/* The ranks next to r in its column (rows row +- 1 mod rows), as a mask, r left out. */
static inline unsigned long long grid_col_mask(Grid g, int r)
{
    int row = r / g.cols, col = r % g.cols;
    unsigned long long m = 1ull << ((row + 1) % g.rows * g.cols + col) |
                           1ull << ((row + g.rows - 1) % g.rows * g.cols + col);
    return m & ~(1ull << r);
}

/* Bytes w sent to the ranks of mask, so far. */
static inline size_t grid_bytes_to(const Watched *w, unsigned long long mask)
{
    size_t b = 0;
    for (int q = 0; q < 64; q++)
        if (mask >> q & 1)
            b += w->bytes_to[q];
    return b;
}

/* The most bytes a rank may send along its row, and down its column, for count floats. */
static inline size_t grid_row_most(Grid g, size_t count)
{
    return 2 * (size_t)(g.cols - 1) * chunk_max(count, g.cols) * sizeof(float);
}
static inline size_t grid_col_most(Grid g, size_t count)
{
    return 2 * (size_t)(g.rows - 1) * chunk_max(chunk_max(count, g.cols), g.rows) *
           sizeof(float);
}

#endif
