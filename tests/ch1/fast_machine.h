/* The machine of exercise 1.1 (exercises/ch1/ch1.h), as its tests build it, and the check of
 * one product on it. Slow memory (A, B, C) and the counts live here, in the test's process,
 * out of the reach of the Fast the exercise is handed; in the autograder the exercise runs
 * in a process of its own and each operation it asks for is carried out here. */
#ifndef DPS_TEST_FAST_MACHINE_H
#define DPS_TEST_FAST_MACHINE_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ch1.h"
#include "helpers.h"
#include "rng.h"

/* The bounds of the tests, in units of T: every test's, and the tight tests'. The machine
 * stops a schedule at its test's bound. */
#define FAST_LOOSE 2.5
#define FAST_TIGHT 1.3

static struct {
    float *mat[3], *fast; /* A, B, C; fast memory */
    long long dim[3][2];  /* each matrix's rows and columns */
    long long moved, limit, ops, refuse_at;
    double bar, t; /* the test's bound, in units of T; T */
    char why[256]; /* the first refusal */
} fm;

static int fm_refuse(const char *fmt, ...)
{
    if (!fm.why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(fm.why, sizeof fm.why, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Operation `what`'s span of fast memory, count floats from at: inside, or a refusal. */
static int fm_span(Fast *f, const char *what, long long at, long long count)
{
    if (at < 0 || count < 1 || at + count > f->capacity)
        return fm_refuse("%s: floats %lld..%lld of a fast memory of %d", what, at,
                         at + count - 1, f->capacity);
    return 0;
}

/* Every operation first: one that refused before, the test's planted refusal, the limit. */
static int fm_begin(const char *what, long long moves)
{
    if (fm.why[0])
        return -1;
    if (++fm.ops == fm.refuse_at)
        return fm_refuse("%s: refused on purpose (operation %lld)", what, fm.ops);
    if (fm.moved + moves > fm.limit)
        return fm_refuse("%s, which would take the schedule past %lld floats moved, %g T "
                         "(T = %.0f)", what, fm.limit, fm.bar, fm.t);
    fm.moved += moves;
    return 0;
}

static int fm_block(int which, long long row, long long col, long long rows, long long cols,
                    const char *what)
{
    static const char *name = "ABC";
    if (which < 0 || which > 2)
        return fm_refuse("%s: no matrix %d", what, which);
    if (rows < 1 || cols < 1 || row < 0 || col < 0 || row + rows > fm.dim[which][0] ||
        col + cols > fm.dim[which][1])
        return fm_refuse("%s: rows %lld..%lld, columns %lld..%lld of %c, which is %lld x %lld",
                         what, row, row + rows - 1, col, col + cols - 1, name[which],
                         fm.dim[which][0], fm.dim[which][1]);
    return 0;
}

static int fm_load(Fast *f, int at, FastMatrix which, int row, int col, int rows, int cols)
{
    long long n = (long long)rows * cols;
    if (fm_block((int)which, row, col, rows, cols, "load") || fm_span(f, "load", at, n) ||
        fm_begin("load", n))
        return -1;
    for (long long i = 0; i < rows; i++)
        for (long long j = 0; j < cols; j++)
            fm.fast[at + i * cols + j] = fm.mat[which][(row + i) * fm.dim[which][1] + col + j];
    return 0;
}

static int fm_store(Fast *f, int at, int row, int col, int rows, int cols)
{
    long long n = (long long)rows * cols;
    if (fm_block(FAST_C, row, col, rows, cols, "store") || fm_span(f, "store", at, n) ||
        fm_begin("store", n))
        return -1;
    for (long long i = 0; i < rows; i++)
        for (long long j = 0; j < cols; j++)
            fm.mat[FAST_C][(row + i) * fm.dim[FAST_C][1] + col + j] = fm.fast[at + i * cols + j];
    return 0;
}

static int fm_zero(Fast *f, int at, int count)
{
    if (fm_span(f, "zero", at, count) || fm_begin("zero", 0))
        return -1;
    for (int i = 0; i < count; i++)
        fm.fast[at + i] = 0;
    return 0;
}

static int fm_multiply_add(Fast *f, int c, int a, int b, int rows, int cols, int depth)
{
    long long nc = (long long)rows * cols, na = (long long)rows * depth,
              nb = (long long)depth * cols;
    if (rows < 1 || cols < 1 || depth < 1)
        return fm_refuse("multiply_add: a block of %d x %d x %d", rows, cols, depth);
    if (fm_span(f, "multiply_add's c", c, nc) || fm_span(f, "multiply_add's a", a, na) ||
        fm_span(f, "multiply_add's b", b, nb))
        return -1;
    if ((c < a + na && a < c + nc) || (c < b + nb && b < c + nc))
        return fm_refuse("multiply_add: c (floats %d..%lld) overlaps a (%d..%lld) or b "
                         "(%d..%lld)", c, c + nc - 1, a, a + na - 1, b, b + nb - 1);
    if (fm_begin("multiply_add", 0))
        return -1;
    float *C = fm.fast + c;
    const float *A = fm.fast + a, *B = fm.fast + b;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            float s = C[i * cols + j];
            for (int p = 0; p < depth; p++)
                s += A[i * depth + p] * B[p * cols + j];
            C[i * cols + j] = s;
        }
    return 0;
}

/* T of the header: mn + max(2mnk / sqrt(S), mk + kn) floats. */
static double fast_t(int m, int n, int k, int S)
{
    double mn = (double)m * n, read = 2.0 * m * n * k / sqrt((double)S),
           once = (double)m * k + (double)k * n;
    return mn + (read > once ? read : once);
}

/* One product C = A B of m x k by k x n on a machine of S floats: entries small integers in
 * [-lim, lim] (exact in float) or, with lim = 0, normals; C starts as NaN. The exercise must
 * return 0, refuse nothing, leave the exact product (or within float rounding) and move at
 * most bar T floats (FAST_LOOSE, or FAST_TIGHT where the test asks for the tight schedule).
 * With refuse_at > 0 the machine refuses that operation and the exercise must return -1. */
static void fast_check(int m, int n, int k, int S, int lim, double bar, long long refuse_at,
                       unsigned seed)
{
    Rng r;
    rng_seed(&r, seed, 0);
    long long dims[3][2] = {{m, k}, {k, n}, {m, n}};
    for (int x = 0; x < 3; x++) {
        fm.dim[x][0] = dims[x][0], fm.dim[x][1] = dims[x][1];
        fm.mat[x] = xcalloc((size_t)(dims[x][0] * dims[x][1]), 4);
        for (long long i = 0; i < dims[x][0] * dims[x][1]; i++)
            fm.mat[x][i] = x == 2 ? NAN
                           : lim > 0
                               ? (float)((int)rng_below(&r, 2 * (uint32_t)lim + 1) - lim)
                               : rng_normal(&r);
    }
    fm.fast = xcalloc((size_t)S, 4);
    double t = fast_t(m, n, k, S);
    fm.moved = fm.ops = 0, fm.why[0] = 0, fm.refuse_at = refuse_at;
    fm.bar = bar, fm.t = t, fm.limit = (long long)(bar * t);
    Fast f = {S, fm_load, fm_store, fm_zero, fm_multiply_add};
    int rc = gemm_blocked(&f, m, n, k);
    if (refuse_at > 0) {
        cr_assert(fm.ops >= refuse_at, "%d x %d x %d on %d floats: the machine was told to refuse "
                  "operation %lld, and gemm_blocked asked for %lld", m, n, k, S, refuse_at, fm.ops);
        cr_assert(rc == -1, "gemm_blocked(f, %d, %d, %d) = %d, expected -1: the machine refused "
                  "its operation %lld", m, n, k, rc, refuse_at);
        goto done;
    }
    cr_assert(!fm.why[0], "%d x %d x %d on %d floats: the machine refused %s", m, n, k, S, fm.why);
    cr_assert(rc == 0, "gemm_blocked(f, %d, %d, %d) = %d, expected 0 (the machine refused "
              "nothing)", m, n, k, rc);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double want = 0, mag = 0;
            for (int p = 0; p < k; p++) {
                double x = (double)fm.mat[0][(size_t)i * k + p] * fm.mat[1][(size_t)p * n + j];
                want += x, mag += fabs(x);
            }
            double got = fm.mat[2][(size_t)i * n + j];
            double tol = lim > 0 ? 0 : (k + 2) * 0x1p-23 * mag + 1e-6;
            cr_assert(fabs(got - want) <= tol, "%d x %d x %d on %d floats: C[%d][%d] = %.7g, "
                      "expected %.7g", m, n, k, S, i, j, got, want);
        }
    cr_assert(fm.moved <= bar * t, "%d x %d x %d on %d floats: the schedule moved %lld floats, "
              "above %g T = %.0f (T = %.0f)", m, n, k, S, fm.moved, bar, bar * t, t);
done:
    for (int x = 0; x < 3; x++)
        free(fm.mat[x]);
    free(fm.fast);
}

#endif
