/* Wrong on purpose: each row all-reduces the whole buffer, then each column all-reduces the
 * whole buffer again, not only the chunk its rank owns. The sums are right, and the messages
 * go only to row and column neighbours, but every rank sends C times the bytes it should
 * down its column, the slow direction of a pod.
 * Fails: ex_torus_all_reduce::bytes_along_rows_and_down_columns
 */
/* Otherwise a copy of the reference solution of exercise 9.2. */
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
    int cols = c->size / rows;
    Comm *row, *col;
    if (open_grid(c, rows, cols, &row, &col, err))
        return -1;
    int rc = ring_all_reduce(row, buf, count, scratch, 1.0f, err) ||
             ring_all_reduce(col, buf, count, scratch, 1.0f, err);
    col->close(col);
    row->close(row);
    return rc ? -1 : 0;
}
