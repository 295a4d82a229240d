/* Exercise 9.2, reference solution. */
#include "ch9.h"

#include <stdlib.h>

/* The views of this rank's row and column of a grid of rows x cols ranks; 0, or -1 with err. */
static int open_grid(Comm *c, int rows, int cols, Comm **row, Comm **col, char *err)
{
    int r = c->rank / cols, k = c->rank % cols;
    int *members = xcalloc((size_t)(rows > cols ? rows : cols), sizeof *members);
    for (int j = 0; j < cols; j++)
        members[j] = r * cols + j;
    *row = comm_view(c, members, cols, err);
    for (int i = 0; i < rows; i++)
        members[i] = i * cols + k;
    *col = *row ? comm_view(c, members, rows, err) : NULL;
    free(members);
    if (*row && !*col)
        (*row)->close(*row);
    return *col ? 0 : -1;
}

int torus_all_reduce(Comm *c, int rows, float *buf, size_t count, float *scratch, char *err)
{
    if (rows < 1 || c->size % rows)
        return error_set(err, "torus_all_reduce: %d rows are not a grid of %d ranks", rows,
                         c->size);
    int cols = c->size / rows, k = c->rank % cols;
    Comm *row, *col;
    if (open_grid(c, rows, cols, &row, &col, err))
        return -1;
    size_t lo = chunk_start(count, cols, k), hi = chunk_start(count, cols, k + 1);
    int rc = ring_reduce_scatter(row, buf, count, scratch, err) ||
             ring_all_reduce(col, buf + lo, hi - lo, scratch, 1.0f, err) ||
             ring_all_gather(row, buf, count, sizeof(float), err);
    col->close(col);
    row->close(row);
    return rc ? -1 : 0;
}
