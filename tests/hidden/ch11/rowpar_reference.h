/* The book's own backward of a row-parallel layer's share, for the hidden tests of exercise
 * 11.1: written apart from the reference solution (the batch's rows outermost, every sum held
 * in a double of its own until the end), and the checks of a share's gradients against it,
 * bit for bit (not in the students' handout). */
#ifndef DPS_TEST_ROWPAR_REFERENCE_H
#define DPS_TEST_ROWPAR_REFERENCE_H

#include "ch11/rowpar.h"

/* Exercise 11.1's contract (exercises/ch11/ch11.h), computed another way. */
static inline void rowpar_reference(const float *act, const float *W, const float *delta,
                                    int B, int h, int m, bool first, float *dW, float *db,
                                    float *dX)
{
    double *gw = xcalloc((size_t)h * m + 1, sizeof *gw), *gb = xcalloc((size_t)m + 1, sizeof *gb);
    for (int b = 0; b < B; b++) {
        const float *a = act + (size_t)b * h, *e = delta + (size_t)b * m;
        for (int k = 0; k < h; k++)
            for (int j = 0; j < m; j++)
                gw[(size_t)k * m + j] += (double)a[k] * (double)e[j];
        for (int j = 0; j < m; j++)
            gb[j] += first ? (double)e[j] : 0.0;
        for (int k = 0; k < h; k++) {
            double s = 0;
            for (int j = 0; j < m; j++)
                s += (double)e[j] * (double)W[(size_t)k * m + j];
            dX[(size_t)b * h + k] = a[k] > 0 ? (float)s : 0.0f;
        }
    }
    for (size_t i = 0; i < (size_t)h * m; i++)
        dW[i] = (float)gw[i];
    for (int j = 0; j < m; j++)
        db[j] = (float)gb[j];
    free(gw), free(gb);
}

/* Run the student's backward on p, its buffers filled with `fill` first, and check dW, db and
 * dX against the reference bit for bit. */
static inline void rowpar_check(const char *what, const RowPar *p, bool first, float fill)
{
    size_t nw = (size_t)p->h * p->m, nx = (size_t)p->B * p->h;
    float *dW = xcalloc(nw + 1, 4), *db = xcalloc((size_t)p->m + 1, 4), *dX = xcalloc(nx + 1, 4);
    float *rW = xcalloc(nw + 1, 4), *rb = xcalloc((size_t)p->m + 1, 4), *rX = xcalloc(nx + 1, 4);
    for (size_t i = 0; fill != 0 && i <= nw; i++)
        dW[i] = fill;
    for (size_t i = 0; fill != 0 && i <= (size_t)p->m; i++)
        db[i] = fill;
    for (size_t i = 0; fill != 0 && i <= nx; i++)
        dX[i] = fill;
    float past[3] = {dW[nw], db[p->m], dX[nx]};
    row_parallel_backward(p->act, p->W, p->delta, p->B, p->h, p->m, first, dW, db, dX);
    rowpar_reference(p->act, p->W, p->delta, p->B, p->h, p->m, first, rW, rb, rX);
    char at[160];
    snprintf(at, sizeof at, "%s (B = %d, h = %d, m = %d, %s rank)", what, p->B, p->h, p->m,
             first ? "the row's first" : "not the first");
    rowpar_same(at, "dW", dW, rW, nw);
    rowpar_same(at, "db", db, rb, (size_t)p->m);
    rowpar_same(at, "dX", dX, rX, nx);
    cr_assert(memcmp(&dW[nw], &past[0], 4) == 0 && memcmp(&db[p->m], &past[1], 4) == 0 &&
                  memcmp(&dX[nx], &past[2], 4) == 0,
              "%s: a float past the end of dW, db or dX was written", at);
    free(dW), free(db), free(dX), free(rW), free(rb), free(rX);
}

/* A layer of width H split along a row of T ranks as the tensor strategy splits it
 * (chunk_start): each rank's backward on its slice of act and its rows of W. The slices'
 * dW, side by side, are the whole layer's, the rank's dX its columns of the whole dX, and
 * the ranks' db add up to the whole db: the row's split loses nothing. */
static inline void rowpar_split(int B, int H, int m, int T, uint64_t seed, float fill)
{
    RowPar p = rowpar_make(B, H, m, seed);
    float *wW = xcalloc((size_t)H * m + 1, 4), *wb = xcalloc((size_t)m + 1, 4);
    float *wX = xcalloc((size_t)B * H + 1, 4), *sb = xcalloc((size_t)m + 1, 4);
    rowpar_reference(p.act, p.W, p.delta, B, H, m, true, wW, wb, wX);
    for (int t = 0; t < T; t++) {
        int lo = (int)chunk_start((size_t)H, T, t), h = (int)chunk_start((size_t)H, T, t + 1) - lo;
        float *act = xcalloc((size_t)B * h + 1, 4), *dX = xcalloc((size_t)B * h + 1, 4);
        float *dW = xcalloc((size_t)h * m + 1, 4), *db = xcalloc((size_t)m + 1, 4);
        for (int b = 0; b < B; b++)
            memcpy(act + (size_t)b * h, p.act + (size_t)b * H + lo, (size_t)h * 4);
        for (size_t i = 0; fill != 0 && i < (size_t)h * m; i++)
            dW[i] = fill;
        for (size_t i = 0; fill != 0 && i < (size_t)m; i++)
            db[i] = fill;
        row_parallel_backward(act, p.W + (size_t)lo * m, p.delta, B, h, m, t == 0, dW, db, dX);
        char at[160];
        snprintf(at, sizeof at, "rank %d of a row of %d, units [%d, %d) of %d (B = %d, m = %d)",
                 t, T, lo, lo + h, H, B, m);
        rowpar_same(at, "dW (rows of the whole layer's)", dW, wW + (size_t)lo * m,
                    (size_t)h * m);
        for (int b = 0; b < B; b++)
            rowpar_same(at, "dX (columns of the whole layer's)", dX + (size_t)b * h,
                        wX + (size_t)b * H + lo, (size_t)h);
        for (int j = 0; j < m; j++)
            sb[j] += db[j];
        free(act), free(dX), free(dW), free(db);
    }
    rowpar_same("the ranks' db added up", "db", sb, wb, (size_t)m);
    free(wW), free(wb), free(wX), free(sb);
    rowpar_free(&p);
}

#endif
