/* Hidden tests of exercise 11.1, row_parallel_backward, against the book's own backward bit
 * for bit: empty batches and slices over buffers that held garbage, one output, values whose
 * products overflow float, a wide layer split four ways, random slices, and a row of slices
 * against the book's whole layer (not in the students' handout). */
#include "ch11.h"
#include "rowpar_reference.h"
#include "helpers.h"

/* B = 0: dW and db are sums of nothing, 0, whatever the buffers held; h = 0: only db. */
Test(hidden_row_parallel_backward, empty_batches_and_slices_over_garbage)
{
    RowPar p = rowpar_make(0, 6, 3, 31);
    rowpar_check("no samples, over garbage", &p, true, 12345.0f);
    rowpar_check("no samples, over garbage", &p, false, NAN);
    rowpar_free(&p);
    RowPar q = rowpar_make(4, 0, 3, 32);
    rowpar_check("no units, over garbage", &q, true, -7.0f);
    rowpar_free(&q);
    RowPar r = rowpar_make(5, 7, 2, 33);
    rowpar_check("a slice over garbage", &r, true, 99.0f);
    rowpar_check("a slice over garbage", &r, false, NAN);
    rowpar_free(&r);
}

Test(hidden_row_parallel_backward, one_output_not_the_first_rank)
{
    RowPar p = rowpar_make(9, 4, 1, 34);
    rowpar_check("one output", &p, false, 3.0f);
    rowpar_check("one output", &p, true, 3.0f);
    rowpar_free(&p);
}

/* Products of 1e20 by 2e19 are 2e39, past float's largest; the sums cancel in double. */
Test(hidden_row_parallel_backward, products_past_float_cancel_in_double)
{
    RowPar p = rowpar_make(4, 3, 2, 35);
    for (int b = 0; b < 4; b++)
        for (int k = 0; k < 3; k++)
            p.act[b * 3 + k] = k == 2 && b == 1 ? 0.0f : 1e20f;
    for (int b = 0; b < 4; b++)
        for (int j = 0; j < 2; j++)
            p.delta[b * 2 + j] = (b % 2 ? -2e19f : 2e19f) + (float)j;
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 2; j++)
            p.W[k * 2 + j] = j ? -3e20f : 3e20f;
    rowpar_check("products past float", &p, true, 0.0f);
    rowpar_free(&p);
}

Test(hidden_row_parallel_backward, a_wide_layer_split_four_ways_over_garbage)
{
    rowpar_split(64, 257, 33, 4, 36, -1.0f);
    rowpar_split(3, 7, 5, 7, 37, 8.0f);
}

Test(hidden_row_parallel_backward, bit_for_bit_with_the_book_on_random_slices)
{
    const int Bs[] = {1, 3, 17}, hs[] = {1, 5, 33}, ms[] = {1, 4, 10};
    uint64_t seed = 1;
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++)
            for (int z = 0; z < 3; z++, seed++) {
                RowPar p = rowpar_make(Bs[x], hs[y], ms[z], seed);
                rowpar_check("random slice", &p, seed % 2 == 1, 0.0f);
                rowpar_free(&p);
            }
}

Test(hidden_row_parallel_backward, a_row_of_slices_is_the_book_s_whole_layer)
{
    rowpar_split(8, 10, 3, 2, 21, 0.0f);
    rowpar_split(5, 10, 4, 3, 22, 0.0f);
    rowpar_split(16, 64, 10, 4, 23, 0.0f);
}
