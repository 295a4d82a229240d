/* Wrong on purpose: each rank's squares are added in float, not in double. On grids of one,
 * two or four rows every average of the tests' small integers is dyadic and every sum of
 * squares exact in float, so the public tests pass; three or six rows' averages are not,
 * and squares of 2^62 overflow float.
 * Fails: hidden_grid_gradient_step::three_rows_rows_of_three_a_column_of_six
 * Fails: hidden_grid_gradient_step::fewer_floats_than_ranks
 * Fails: hidden_grid_gradient_step::squares_past_float
 */
/* Otherwise a copy of the reference solution of exercise 11.2. */
#include <math.h>
#include <stdlib.h>

#include "ch11.h"

/* The view of c's n ranks from `first`, `stride` apart; NULL with err. */
static Comm *line_view(Comm *c, int first, int stride, int n, char *err)
{
    int *members = xcalloc((size_t)n, sizeof *members);
    for (int i = 0; i < n; i++)
        members[i] = first + i * stride;
    Comm *v = comm_view(c, members, n, err);
    free(members);
    return v;
}

int grid_gradient_step(Comm *c, int T, float *grad, size_t count, size_t bias, size_t n_bias,
                       size_t shared, double max_norm, float *scratch, double *norm,
                       char *err)
{
    if (T < 1 || c->size % T)
        return error_set(err, "grid_gradient_step: T = %d: not a row of a grid of %d ranks", T,
                         c->size);
    if (shared > count || n_bias > count - shared || bias > count - shared - n_bias)
        return error_set(err, "grid_gradient_step: a bias of %zu at %zu and %zu shared floats "
                         "do not fit in count = %zu", n_bias, bias, shared, count);
    int D = c->size / T, t = c->rank % T, d = c->rank / T;
    if (t != 0)
        for (size_t i = bias; i < bias + n_bias; i++)
            grad[i] = 0.0f;
    Comm *col = line_view(c, t, T, D, err);
    Comm *row = col ? line_view(c, d * T, 1, T, err) : NULL;
    double *sums = xcalloc((size_t)T, sizeof *sums);
    int rc = row ? ring_all_reduce(col, grad, count, scratch, 1.0f / (float)D, err) : -1;
    if (rc == 0) {
        float own = 0;
        size_t upto = t == 0 ? count : count - shared;
        for (size_t i = 0; i < upto; i++)
            own += grad[i] * grad[i];
        sums[t] = own; /* chunk t of T elements of one double: this rank's */
        rc = ring_all_gather(row, sums, (size_t)T, sizeof *sums, err);
    }
    if (rc == 0) {
        double total = 0;
        for (int q = 0; q < T; q++)
            total += sums[q];
        *norm = sqrt(total);
        if (max_norm > 0 && *norm > max_norm) {
            float f = (float)(max_norm / (*norm + 1e-6));
            for (size_t i = 0; i < count; i++)
                grad[i] *= f;
        }
    }
    free(sums);
    if (row)
        row->close(row);
    if (col)
        col->close(col);
    return rc ? -1 : 0;
}
