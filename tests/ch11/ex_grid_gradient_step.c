/* Tests of exercise 11.2, grid_gradient_step. */
#include "ch11.h"
#include "ch11/grid_step.h"
#include "helpers.h"

/* Nothing; a bias and a shared float; a layer's worth, unclipped, at the norm, clipped. */
static const StepCase cases[] = {
    {0, 0, 0, 0, 0, false},       {5, 1, 2, 1, 0, false},      {1001, 100, 50, 30, 0, false},
    {1001, 100, 50, 30, 1, true}, {1001, 0, 10, 91, 0.5, true}, {64, 60, 4, 0, 1e-3, false},
};

Test(ex_grid_gradient_step, two_by_two_one_row_one_column)
{
    step_run(2, 2, cases, 6, 1.0f);
    step_run(1, 4, cases, 6, 1.0f);
    step_run(4, 1, cases, 6, 1.0f);
}

/* T that is not a row of a grid of 6 ranks, and layouts that do not fit: refused, nothing
 * sent; then T = 3 runs. */
static int refused(Comm *c, const Watched *w, float *buf, float *scratch, char *err)
{
    const int bad[] = {4, 0, -2, 12, 5};
    double norm;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        err[0] = 0;
        if (grid_gradient_step(c, bad[k], buf, 16, 0, 0, 0, 0, scratch, &norm, err) == 0 ||
            !strstr(err, "T"))
            return error_set(err, "rank %d: T = %d of 6 ranks was not refused by name (%s)",
                             c->rank, bad[k], err);
    }
    const size_t layout[][3] = {{0, 0, 17}, {10, 7, 0}, {10, 4, 3}, {17, 0, 0}};
    for (size_t k = 0; k < sizeof layout / sizeof *layout; k++) {
        err[0] = 0;
        if (grid_gradient_step(c, 3, buf, 16, layout[k][0], layout[k][1], layout[k][2], 0,
                               scratch, &norm, err) == 0 ||
            !strstr(err, "count"))
            return error_set(err,
                             "rank %d: count 16 with a bias of %zu at %zu and %zu shared was "
                             "not refused, \"count\" in the message (%s)",
                             c->rank, layout[k][1], layout[k][0], layout[k][2], err);
    }
    if (w->sends)
        return error_set(err,
                         "rank %d sent %ld messages during the refused calls: refuse before "
                         "anything is sent",
                         c->rank, w->sends);
    for (size_t i = 0; i < 16; i++) /* and 2 rows of 3 are a grid: the column's mean */
        buf[i] = (float)c->rank;
    if (grid_gradient_step(c, 3, buf, 16, 0, 0, 0, 0, scratch, &norm, err))
        return -1;
    float want = (float)(c->rank % 3 * 2 + 3) * 0.5f;
    for (size_t i = 0; i < 16; i++)
        if (buf[i] != want)
            return error_set(err,
                             "after the refusals, T = 3: rank %d has %g at %zu, expected %g",
                             c->rank, buf[i], i, want);
    return 0;
}

Test(ex_grid_gradient_step, a_t_or_a_layout_that_does_not_fit_is_refused)
{
    grid_run(6, 0, refused, 16, 30);
}
