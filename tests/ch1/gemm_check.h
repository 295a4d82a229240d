/* The GEMM check shared by the book's test (test_gemm.c) and exercise 1.1's
 * (ex_gemm_blocked.c): a function against a naive triple loop in double, on odd shapes, both
 * transposes and several alpha and beta. */
#ifndef DPS_GEMM_CHECK_H
#define DPS_GEMM_CHECK_H

#include <math.h>

#include "helpers.h"
#include "rng.h"

/** A GEMM with gemm_plain()'s contract, on host pointers. */
typedef void (*GemmFn)(bool, bool, int, int, int, float, const float *, const float *, float,
                       float *);

/* op(X)[r][c] of a stored row-major X whose op is rows x cols. */
static inline double gemm_op(const float *X, bool t, int rows, int cols, int r, int c)
{
    return t ? X[(size_t)c * rows + r] : X[(size_t)r * cols + c];
}

/* Check `gemm` (host pointers) or, when it is NULL, dev->gemm (device pointers).
 * integer: entries are small integers, so every sum is exact in float and the result must
 * match bit for bit whatever the order of summation; otherwise random normals within float
 * rounding. When beta is 0, C starts as NaN, which must not leak into the result. */
static inline void gemm_check(const char *name, GemmFn gemm, const Device *dev, bool integer)
{
    static const int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {64, 10, 128},
                                    {65, 130, 129}, {3, 300, 2}, {1, 40, 9}, {131, 1, 1}};
    static const float scalars[][2] = {{1, 0}, {0.5f, 2}, {-1, 1}, {2, -0.5f}};
    Rng r;
    rng_seed(&r, 42, integer);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 4; t++)
            for (size_t ab = 0; ab < sizeof scalars / sizeof scalars[0]; ab++) {
                int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
                bool ta = t & 1, tb = t & 2;
                float alpha = scalars[ab][0], beta = scalars[ab][1];
                size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
                float *A = xcalloc(na, 4), *B = xcalloc(nb, 4), *C0 = xcalloc(nc, 4),
                      *C = xcalloc(nc, 4);
                for (size_t i = 0; i < na; i++)
                    A[i] = integer ? (float)((int)rng_below(&r, 9) - 4) : rng_normal(&r);
                for (size_t i = 0; i < nb; i++)
                    B[i] = integer ? (float)((int)rng_below(&r, 9) - 4) : rng_normal(&r);
                for (size_t i = 0; i < nc; i++)
                    C0[i] = beta == 0 ? NAN : integer ? (float)((int)rng_below(&r, 9) - 4)
                                                      : rng_normal(&r);
                memcpy(C, C0, nc * 4);
                if (gemm) {
                    gemm(ta, tb, m, n, k, alpha, A, B, beta, C);
                } else {
                    float *dA = dev->alloc(na * 4), *dB = dev->alloc(nb * 4),
                          *dC = dev->alloc(nc * 4);
                    dev->upload(dA, A, na * 4);
                    dev->upload(dB, B, nb * 4);
                    dev->upload(dC, C, nc * 4);
                    dev->gemm(ta, tb, m, n, k, alpha, dA, dB, beta, dC);
                    dev->download(C, dC, nc * 4);
                    dev->release(dA);
                    dev->release(dB);
                    dev->release(dC);
                }
                for (int i = 0; i < m; i++)
                    for (int j = 0; j < n; j++) {
                        double sum = 0, mag = 0;
                        for (int p = 0; p < k; p++) {
                            double x = gemm_op(A, ta, m, k, i, p) * gemm_op(B, tb, k, n, p, j);
                            sum += x;
                            mag += fabs(x);
                        }
                        double c0 = beta == 0 ? 0 : C0[(size_t)i * n + j];
                        double want = alpha * sum + beta * c0;
                        double tol = integer ? 0
                                             : 1e-5 * (fabs(alpha) * mag + fabs(beta * c0)) + 1e-6;
                        double got = C[(size_t)i * n + j];
                        cr_assert(fabs(got - want) <= tol,
                                  "%s: m=%d n=%d k=%d ta=%d tb=%d alpha=%g beta=%g: C[%d][%d] = "
                                  "%.7g, expected %.7g", name, m, n, k, ta, tb, alpha, beta, i, j,
                                  got, want);
                    }
                free(A);
                free(B);
                free(C0);
                free(C);
            }
}

#endif
