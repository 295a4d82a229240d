/* Hidden tests of exercise 1.1, gemm_blocked: shapes that straddle the usual tile sizes, a
 * long k that crosses many k-blocks, alpha = 0, and dot and outer products (not in the
 * students' handout). Every reference is a plain loop in double. */
#include <math.h>

#include "ch1.h"
#include "helpers.h"
#include "rng.h"

/* op(X)[r][c] of a stored row-major X whose op is rows x cols. */
static double op_at(const float *X, bool t, int rows, int cols, int r, int c)
{
    return t ? X[(size_t)c * rows + r] : X[(size_t)r * cols + c];
}

/* Fill n floats: small integers in [-lim, lim] when lim > 0, else random normals. */
static void fill(Rng *r, float *x, size_t n, int lim)
{
    for (size_t i = 0; i < n; i++)
        x[i] = lim > 0 ? (float)((int)rng_below(r, 2 * (uint32_t)lim + 1) - lim) : rng_normal(r);
}

/* Run gemm_blocked on one case and compare every element with a double loop: exactly when
 * the entries are small integers (exact), else within float rounding. C0 is C's value
 * before the call (NaN where beta is 0). */
static void check_case(const char *what, bool ta, bool tb, int m, int n, int k, float alpha,
                       float beta, bool exact, Rng *r)
{
    size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    float *A = xcalloc(na, 4), *B = xcalloc(nb, 4), *C0 = xcalloc(nc, 4), *C = xcalloc(nc, 4);
    fill(r, A, na, exact ? 3 : 0);
    fill(r, B, nb, exact ? 3 : 0);
    fill(r, C0, nc, exact ? 4 : 0);
    if (beta == 0)
        for (size_t i = 0; i < nc; i++)
            C0[i] = NAN;
    memcpy(C, C0, nc * 4);
    gemm_blocked(ta, tb, m, n, k, alpha, A, B, beta, C);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0, mag = 0;
            for (int p = 0; p < k; p++) {
                double x = op_at(A, ta, m, k, i, p) * op_at(B, tb, k, n, p, j);
                sum += x;
                mag += fabs(x);
            }
            double c0 = beta == 0 ? 0 : C0[(size_t)i * n + j];
            double want = alpha * sum + beta * c0;
            double tol = exact ? 0 : 1e-5 * (fabs(alpha) * mag + fabs(beta * c0)) + 1e-6;
            double got = C[(size_t)i * n + j];
            cr_assert(fabs(got - want) <= tol,
                      "%s: m=%d n=%d k=%d ta=%d tb=%d alpha=%g beta=%g: C[%d][%d] = %.7g, "
                      "expected %.7g", what, m, n, k, ta, tb, alpha, beta, i, j, got, want);
        }
    free(A);
    free(B);
    free(C0);
    free(C);
}

/* Sizes one above and one below the powers of two that tiles are usually made of, so that
 * every edge tile is partial in some dimension; integer entries, exact. */
Test(hidden_gemm_blocked, shapes_across_tile_edges_all_transposes)
{
    static const int shapes[][3] = {{17, 33, 65}, {63, 129, 31}, {127, 65, 257}, {257, 17, 129}};
    Rng r;
    rng_seed(&r, 1101, 0);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 4; t++)
            check_case("tile edges", t & 1, t & 2, shapes[s][0], shapes[s][1], shapes[s][2],
                       3.0f, -1.0f, true, &r);
}

/* k = 1500 crosses several k-blocks of any reasonable size: beta must scale C once, not
 * once per k-block, and with beta = 0 the sums of the first blocks must not be wiped. */
Test(hidden_gemm_blocked, long_k_applies_beta_once)
{
    Rng r;
    rng_seed(&r, 1102, 0);
    for (int t = 0; t < 4; t++) {
        check_case("long k, beta 2", t & 1, t & 2, 3, 5, 1500, 1.0f, 2.0f, true, &r);
        check_case("long k, beta 0 over NaN", t & 1, t & 2, 4, 3, 1500, 0.5f, 0.0f, true, &r);
    }
}

/* alpha = 0 leaves beta C (A and B are finite), and alpha = beta = 0 writes zeros over a
 * C that holds NaN. */
Test(hidden_gemm_blocked, alpha_zero_leaves_beta_c)
{
    Rng r;
    rng_seed(&r, 1103, 0);
    check_case("alpha 0, beta -1.5", false, false, 9, 7, 5, 0.0f, -1.5f, true, &r);
    check_case("alpha 0, beta -1.5", true, true, 70, 3, 11, 0.0f, -1.5f, true, &r);
    check_case("alpha 0, beta 0 over NaN", false, true, 6, 66, 4, 0.0f, 0.0f, true, &r);
}

/* m = n = 1 (a dot product over a long k) and k = 1 (an outer product), every transpose;
 * random normals, within float rounding. */
Test(hidden_gemm_blocked, dot_and_outer_products)
{
    Rng r;
    rng_seed(&r, 1104, 0);
    for (int t = 0; t < 4; t++) {
        check_case("dot product", t & 1, t & 2, 1, 1, 4097, 1.0f, 0.5f, false, &r);
        check_case("outer product", t & 1, t & 2, 200, 150, 1, -2.0f, 0.0f, false, &r);
        check_case("one column", t & 1, t & 2, 300, 1, 70, 0.25f, 1.0f, false, &r);
    }
}
