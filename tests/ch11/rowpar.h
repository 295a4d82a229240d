/* The harness of the tests of exercise 11.1, public and hidden: a layer's slice of random
 * data, and floats compared bit for bit. It computes no answer: the public tests check
 * hand-worked cases and what must hold between the exercise's own results (a row of slices is
 * the whole layer; dead units get no gradient; twice the error, twice every gradient); the
 * book's own backward, which they are compared with bit for bit, is among the hidden tests. */
#ifndef DPS_TEST_ROWPAR_H
#define DPS_TEST_ROWPAR_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ch11.h"
#include "helpers.h"
#include "rng.h"

/* A layer's slice: act (B x h, after ReLU: a third of it 0), W (h x m), delta (B x m). */
typedef struct RowPar {
    int B, h, m;
    float *act, *W, *delta;
} RowPar;

static inline RowPar rowpar_make(int B, int h, int m, uint64_t seed)
{
    RowPar p = {B, h, m, xcalloc((size_t)B * h + 1, 4), xcalloc((size_t)h * m + 1, 4),
                xcalloc((size_t)B * m + 1, 4)};
    Rng r;
    rng_seed(&r, 11, seed);
    for (size_t i = 0; i < (size_t)B * h; i++)
        p.act[i] = rng_below(&r, 3) ? rng_uniform(&r) * 2 : 0.0f;
    for (size_t i = 0; i < (size_t)h * m; i++)
        p.W[i] = rng_normal(&r) * 0.3f;
    for (size_t i = 0; i < (size_t)B * m; i++)
        p.delta[i] = rng_normal(&r) * 0.1f;
    return p;
}

static inline void rowpar_free(RowPar *p)
{
    free(p->act), free(p->W), free(p->delta);
}

/* Compare n floats bit for bit; what names the case. */
static inline void rowpar_same(const char *what, const char *name, const float *got,
                               const float *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cr_assert(memcmp(&got[i], &want[i], sizeof *got) == 0,
                  "%s: %s[%zu] is %.9g, expected %.9g (each sum's products in double, in "
                  "the order of its index, rounded to float once)",
                  what, name, i, (double)got[i], (double)want[i]);
}

/* The student's backward on p into fresh buffers, each one float longer, whose last float
 * (past the end) holds `fill`, as do the rest when fill is not 0. */
typedef struct RowParOut {
    float *dW, *db, *dX;
} RowParOut;

static inline RowParOut rowpar_run(const RowPar *p, const float *act, const float *delta,
                                   bool first, float fill)
{
    size_t nw = (size_t)p->h * p->m, nx = (size_t)p->B * p->h;
    RowParOut o = {xcalloc(nw + 1, 4), xcalloc((size_t)p->m + 1, 4), xcalloc(nx + 1, 4)};
    for (size_t i = 0; i <= nw; i++)
        o.dW[i] = i == nw || fill != 0 ? fill : 0.0f;
    for (size_t i = 0; i <= (size_t)p->m; i++)
        o.db[i] = i == (size_t)p->m || fill != 0 ? fill : 0.0f;
    for (size_t i = 0; i <= nx; i++)
        o.dX[i] = i == nx || fill != 0 ? fill : 0.0f;
    row_parallel_backward(act, p->W, delta, p->B, p->h, p->m, first, o.dW, o.db, o.dX);
    return o;
}

static inline void rowpar_out_free(RowParOut *o)
{
    free(o->dW), free(o->db), free(o->dX);
}

#endif
