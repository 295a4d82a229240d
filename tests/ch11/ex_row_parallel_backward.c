/* Tests of exercise 11.1, row_parallel_backward. */
#include "ch11.h"
#include "ch11/rowpar.h"
#include "helpers.h"

/* Two samples, two units of the rank's slice (the second dead in sample 1), two outputs:
 * worked by hand. */
Test(ex_row_parallel_backward, a_hand_worked_slice)
{
    const float act[] = {1, 2, /**/ 3, 0};
    const float W[] = {1, -1, /**/ 0.5f, 2};
    const float delta[] = {0.5f, 1, /**/ -1, 2};
    float dW[4] = {0}, db[2] = {0}, dX[4] = {0};
    row_parallel_backward(act, W, delta, 2, 2, 2, true, dW, db, dX);
    /* dW = act^T delta: [1*0.5 + 3*-1, 1*1 + 3*2; 2*0.5 + 0, 2*1 + 0] */
    const float wW[] = {-2.5f, 7, 1, 2}, wb[] = {-0.5f, 3};
    /* delta W^T: sample 0 [0.5 - 1, 0.25 + 2], sample 1 [-1 - 2, -0.5 + 4], unit 1 of
     * sample 1 dead */
    const float wX[] = {-0.5f, 2.25f, -3, 0};
    for (int i = 0; i < 4; i++)
        cr_assert(dW[i] == wW[i] && dX[i] == wX[i],
                  "at %d: dW %g and dX %g, expected %g and %g", i, dW[i], dX[i], wW[i], wX[i]);
    cr_assert(db[0] == wb[0] && db[1] == wb[1], "db is [%g, %g], expected [%g, %g]", db[0],
              db[1], wb[0], wb[1]);
    memset(dW, 0, sizeof dW), memset(db, 0, sizeof db), memset(dX, 0, sizeof dX);
    row_parallel_backward(act, W, delta, 2, 2, 2, false, dW, db, dX);
    cr_assert(db[0] == 0 && db[1] == 0,
              "not the row's first rank: db is [%g, %g], expected zeros (the bias is the first "
              "rank's)", db[0], db[1]);
    cr_assert(dW[1] == 7 && dX[1] == 2.25f, "not the row's first rank: dW and dX changed");
}

Test(ex_row_parallel_backward, bit_for_bit_with_the_book_on_random_slices)
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

Test(ex_row_parallel_backward, a_row_of_slices_is_the_whole_layer)
{
    rowpar_split(8, 10, 3, 2, 21, 0.0f);
    rowpar_split(5, 10, 4, 3, 22, 0.0f);
    rowpar_split(16, 64, 10, 4, 23, 0.0f);
}
