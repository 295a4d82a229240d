/* Tests of exercise 11.1, row_parallel_backward: a slice worked by hand, and what must hold
 * between the exercise's own results. The comparison with the book's backward, bit for bit, is
 * among the hidden tests. */
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

/* A layer of width H split along a row of T ranks as the tensor strategy splits it
 * (chunk_start): each rank's backward on its slice of act and its rows of W must be the
 * exercise's own backward of the whole layer, cut the same way: the slices' dW side by side,
 * each rank's dX its columns, and the ranks' db added up (the first rank's alone). */
static void split_is_whole(int B, int H, int m, int T, uint64_t seed)
{
    RowPar p = rowpar_make(B, H, m, seed);
    RowParOut w = rowpar_run(&p, p.act, p.delta, true, 0.0f);
    bool some = false;
    for (size_t i = 0; i < (size_t)H * m; i++)
        some |= w.dW[i] != 0;
    cr_assert(some, "the whole layer (B = %d, H = %d, m = %d): dW is all zeros for random act and "
              "delta (is the exercise written?)", B, H, m);
    float *sb = xcalloc((size_t)m + 1, 4);
    for (int t = 0; t < T; t++) {
        int lo = (int)chunk_start((size_t)H, T, t), h = (int)chunk_start((size_t)H, T, t + 1) - lo;
        RowPar s = {B, h, m, xcalloc((size_t)B * h + 1, 4), p.W + (size_t)lo * m, p.delta};
        for (int b = 0; b < B; b++)
            memcpy(s.act + (size_t)b * h, p.act + (size_t)b * H + lo, (size_t)h * 4);
        RowParOut o = rowpar_run(&s, s.act, s.delta, t == 0, 0.0f);
        char at[160];
        snprintf(at, sizeof at, "rank %d of a row of %d, units [%d, %d) of %d (B = %d, m = %d)",
                 t, T, lo, lo + h, H, B, m);
        rowpar_same(at, "dW (rows of the whole layer's)", o.dW, w.dW + (size_t)lo * m,
                    (size_t)h * m);
        for (int b = 0; b < B; b++)
            rowpar_same(at, "dX (columns of the whole layer's)", o.dX + (size_t)b * h,
                        w.dX + (size_t)b * H + lo, (size_t)h);
        for (int j = 0; j < m; j++)
            sb[j] += o.db[j];
        free(s.act);
        rowpar_out_free(&o);
    }
    rowpar_same("the ranks' db added up", "db", sb, w.db, (size_t)m);
    free(sb);
    rowpar_out_free(&w);
    rowpar_free(&p);
}

Test(ex_row_parallel_backward, a_row_of_slices_is_the_whole_layer)
{
    split_is_whole(8, 10, 3, 2, 21);
    split_is_whole(5, 10, 4, 3, 22);
    split_is_whole(16, 64, 10, 4, 23);
}

/* On random slices, what holds whatever the sums' order: a dead unit (act 0) gets no dX;
 * twice the error gives exactly twice every gradient (a power of two scales each product and
 * each sum exactly); the row's other ranks leave db at 0; nothing is written past the ends. */
Test(ex_row_parallel_backward, dead_units_twice_the_error_and_the_bias_on_random_slices)
{
    const int Bs[] = {1, 3, 17}, hs[] = {1, 5, 33}, ms[] = {1, 4, 10};
    uint64_t seed = 100;
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++)
            for (int z = 0; z < 3; z++, seed++) {
                RowPar p = rowpar_make(Bs[x], hs[y], ms[z], seed);
                size_t nw = (size_t)p.h * p.m, nx = (size_t)p.B * p.h, nd = (size_t)p.B * p.m;
                char at[96];
                snprintf(at, sizeof at, "B = %d, h = %d, m = %d", p.B, p.h, p.m);
                RowParOut o = rowpar_run(&p, p.act, p.delta, true, -3.0f);
                for (size_t i = 0; i < nx; i++)
                    cr_assert(p.act[i] > 0 || o.dX[i] == 0, "%s: dX[%zu] is %g where the unit is "
                              "dead (act 0): ReLU passes no gradient there", at, i, (double)o.dX[i]);
                cr_assert(o.dW[nw] == -3.0f && o.db[p.m] == -3.0f && o.dX[nx] == -3.0f,
                          "%s: a float past the end of dW, db or dX was written", at);
                float *twice = xcalloc(nd + 1, 4);
                for (size_t i = 0; i < nd; i++)
                    twice[i] = 2 * p.delta[i];
                RowParOut d = rowpar_run(&p, p.act, twice, true, 0.0f);
                for (size_t i = 0; i < nw; i++)
                    o.dW[i] *= 2;
                for (size_t i = 0; i < nx; i++)
                    o.dX[i] *= 2;
                for (int j = 0; j < p.m; j++)
                    o.db[j] *= 2;
                rowpar_same(at, "dW with twice the error", d.dW, o.dW, nw);
                rowpar_same(at, "db with twice the error", d.db, o.db, (size_t)p.m);
                rowpar_same(at, "dX with twice the error", d.dX, o.dX, nx);
                RowParOut n = rowpar_run(&p, p.act, p.delta, false, 5.0f);
                for (int j = 0; j < p.m; j++)
                    cr_assert(n.db[j] == 0, "%s, not the row's first rank: db[%d] is %g, expected 0 "
                              "(the bias is the first rank's)", at, j, (double)n.db[j]);
                free(twice);
                rowpar_out_free(&o), rowpar_out_free(&d), rowpar_out_free(&n);
                rowpar_free(&p);
            }
}
