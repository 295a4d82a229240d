/* Tests of exercise 1.1, gemm_blocked. */
#include "ch1.h"
#include "gemm_check.h"

Test(ex_gemm_blocked, exact_on_integer_matrices)
{
    gemm_check("gemm_blocked", gemm_blocked, NULL, true);
}

Test(ex_gemm_blocked, random_matrices_within_rounding)
{
    gemm_check("gemm_blocked", gemm_blocked, NULL, false);
}

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
