/* Tests of exercise 1.1, gemm_blocked. */
#include <math.h>

#include "ch1.h"
#include "helpers.h"
#include "rng.h"

static const int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {65, 130, 129},
                                {3, 300, 2}, {1, 40, 9}, {131, 1, 1}};
static const float scalars[][2] = {{1, 0}, {0.5f, 2}, {-1, 1}, {2, -0.5f}};

static double op(const float *X, bool t, int rows, int cols, int r, int c)
{
    return t ? X[(size_t)c * rows + r] : X[(size_t)r * cols + c];
}

static void check(bool integer)
{
    Rng r;
    rng_seed(&r, 5, integer);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 4; t++)
            for (size_t ab = 0; ab < sizeof scalars / sizeof scalars[0]; ab++) {
                int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
                bool ta = t & 1, tb = t & 2;
                float alpha = scalars[ab][0], beta = scalars[ab][1];
                float *A = xcalloc((size_t)m * k, 4), *B = xcalloc((size_t)k * n, 4),
                      *C0 = xcalloc((size_t)m * n, 4), *C = xcalloc((size_t)m * n, 4);
                for (size_t i = 0; i < (size_t)m * k; i++)
                    A[i] = integer ? (float)((int)rng_below(&r, 9) - 4) : rng_normal(&r);
                for (size_t i = 0; i < (size_t)k * n; i++)
                    B[i] = integer ? (float)((int)rng_below(&r, 9) - 4) : rng_normal(&r);
                for (size_t i = 0; i < (size_t)m * n; i++)
                    C0[i] = C[i] = integer ? (float)((int)rng_below(&r, 9) - 4) : rng_normal(&r);
                gemm_blocked(ta, tb, m, n, k, alpha, A, B, beta, C);
                for (int i = 0; i < m; i++)
                    for (int j = 0; j < n; j++) {
                        double sum = 0, mag = 0;
                        for (int p = 0; p < k; p++) {
                            double x = op(A, ta, m, k, i, p) * op(B, tb, k, n, p, j);
                            sum += x;
                            mag += fabs(x);
                        }
                        double c0 = C0[(size_t)i * n + j], want = alpha * sum + beta * c0;
                        double tol = integer ? 0 : 1e-5 * (fabs(alpha) * mag + fabs(beta * c0)) + 1e-6;
                        double got = C[(size_t)i * n + j];
                        cr_assert(fabs(got - want) <= tol,
                                  "m=%d n=%d k=%d ta=%d tb=%d alpha=%g beta=%g: C[%d][%d] = %.7g, "
                                  "expected %.7g", m, n, k, ta, tb, alpha, beta, i, j, got, want);
                    }
                free(A);
                free(B);
                free(C0);
                free(C);
            }
}

Test(ex_gemm_blocked, exact_on_integer_matrices) { check(true); }
Test(ex_gemm_blocked, random_matrices_within_rounding) { check(false); }

Test(ex_gemm_blocked, beta_zero_ignores_nan_in_c)
{
    float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {1, 0, 0, 1, 1, 1}, C[4] = {NAN, NAN, NAN, NAN};
    const float want[4] = {4, 5, 10, 11}; /* [1 2 3; 4 5 6] x [1 0; 0 1; 1 1] */
    gemm_blocked(false, false, 2, 2, 3, 1.0f, A, B, 0.0f, C);
    for (int i = 0; i < 4; i++)
        cr_assert(C[i] == want[i], "C[%d] = %g, expected %g (C held NaN and beta was 0)", i, C[i],
                  want[i]);
}

/* A product too big for the cache, against the book's gemm_plain; prints both speeds. */
Test(ex_gemm_blocked, large_product_matches_and_speed, .timeout = 60)
{
    enum { M = 256, N = 300, K = 280, REPS = 5 };
    Rng r;
    rng_seed(&r, 9, 0);
    float *A = xcalloc(M * K, 4), *B = xcalloc(K * N, 4), *C1 = xcalloc(M * N, 4),
          *C2 = xcalloc(M * N, 4);
    for (int i = 0; i < M * K; i++)
        A[i] = rng_normal(&r);
    for (int i = 0; i < K * N; i++)
        B[i] = rng_normal(&r);
    double t0 = now_seconds();
    for (int rep = 0; rep < REPS; rep++)
        gemm_plain(false, false, M, N, K, 1.0f, A, B, 0.0f, C1);
    double t1 = now_seconds();
    for (int rep = 0; rep < REPS; rep++)
        gemm_blocked(false, false, M, N, K, 1.0f, A, B, 0.0f, C2);
    double t2 = now_seconds();
    for (int i = 0; i < M * N; i++)
        cr_assert(fabs(C1[i] - C2[i]) <= 1e-3 * (1 + fabs(C1[i])),
                  "256x300x280: C[%d] = %g, gemm_plain gives %g", i, C2[i], C1[i]);
    double flop = 2.0 * M * N * K * REPS;
    fprintf(stderr, "info: 256x300x280 GEMM: book gemm_plain %.2f GFLOP/s, gemm_blocked %.2f GFLOP/s\n",
            flop / (t1 - t0) / 1e9, flop / (t2 - t1) / 1e9);
    free(A);
    free(B);
    free(C1);
    free(C2);
}
