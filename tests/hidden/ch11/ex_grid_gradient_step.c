/* Hidden tests of exercise 11.2, grid_gradient_step: grids of three rows or three places, a
 * column of six, one rank, a row of six, fewer floats than ranks, squares past float's
 * largest (not in the students' handout). */
#include "ch11.h"
#include "ch11/grid_step.h"
#include "helpers.h"

static const StepCase cases[] = {
    {4099, 1000, 99, 3, 0, false}, {4099, 5, 1, 400, 0.25, true}, {3, 0, 1, 1, 0, false},
    {0, 0, 0, 0, 1, false},       {1, 0, 1, 0, 0.5, true},
};

/* Averages of 3 or 6 rows are not dyadic: their squares are added as the contract says or
 * not. */
Test(hidden_grid_gradient_step, three_rows_rows_of_three_a_column_of_six)
{
    step_run(3, 2, cases, 5, 1.0f);
    step_run(2, 3, cases, 5, 1.0f);
    step_run(6, 1, cases, 5, 1.0f);
}

Test(hidden_grid_gradient_step, one_rank_and_a_row_of_six)
{
    step_run(1, 1, cases, 5, 1.0f);
    step_run(1, 6, cases, 5, 1.0f);
}

/* 1 to 5 floats on 6 ranks: empty chunks down the column; the bias or the shared floats
 * the whole gradient. */
Test(hidden_grid_gradient_step, fewer_floats_than_ranks)
{
    static const StepCase few[] = {
        {1, 0, 0, 1, 0, false}, {2, 0, 2, 0, 0.5, true}, {5, 2, 3, 0, 0, false},
        {5, 0, 0, 5, 0.9, true},
    };
    step_run(3, 2, few, 4, 1.0f);
    step_run(2, 3, few, 4, 1.0f);
}

/* Values of 2^62: their squares, 2^130 and more, are past float's largest. */
Test(hidden_grid_gradient_step, squares_past_float)
{
    step_run(2, 2, cases, 5, 0x1p62f);
    step_run(3, 2, cases, 5, 0x1p62f);
}
