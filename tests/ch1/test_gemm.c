/* Chapter 1: the GEMMs (plain C, and the device's: OpenBLAS or cuBLAS) against a naive
 * triple loop in double, on odd shapes, both transposes, and several alpha and beta. */
#include <math.h>

#include "helpers.h"
#include "rng.h"

typedef void (*GemmFn)(bool, bool, int, int, int, float, const float *, const float *, float,
                       float *);

/* op(A)[i][p] and op(B)[p][j] of the stored row-major matrices. */
static double at_a(const float *A, bool ta, int m, int k, int i, int p)
{
    return ta ? A[(size_t)p * m + i] : A[(size_t)i * k + p];
}
static double at_b(const float *B, bool tb, int k, int n, int p, int j)
{
    return tb ? B[(size_t)j * k + p] : B[(size_t)p * n + j];
}

static const int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {64, 10, 128},
                                {3, 129, 2}, {1, 40, 9}, {31, 1, 1}};
static const float scalars[][2] = {{1, 0}, {0.5f, 2}, {-1, 1}, {2, -0.5f}};

/* integer: entries are small integers, so every sum is exact in float and the result must
 * match bit for bit whatever the order of summation; otherwise random normals. */
static void check(const char *name, GemmFn gemm, const Device *dev, bool integer)
{
    Rng r;
    rng_seed(&r, 42, integer);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 4; t++)
            for (size_t ab = 0; ab < sizeof scalars / sizeof scalars[0]; ab++) {
                int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
                bool ta = t & 1, tb = t & 2;
                float alpha = scalars[ab][0], beta = scalars[ab][1];
                size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
                float *A = xcalloc(na, 4), *Bm = xcalloc(nb, 4), *Cm = xcalloc(nc, 4),
                      *got = xcalloc(nc, 4);
                for (size_t i = 0; i < na; i++)
                    A[i] = integer ? (float)((int)rng_below(&r, 7) - 3) : rng_normal(&r);
                for (size_t i = 0; i < nb; i++)
                    Bm[i] = integer ? (float)((int)rng_below(&r, 7) - 3) : rng_normal(&r);
                for (size_t i = 0; i < nc; i++)
                    Cm[i] = beta == 0 ? NAN : integer ? (float)((int)rng_below(&r, 7) - 3)
                                                      : rng_normal(&r);
                if (dev) {
                    float *dA = dev->alloc(na * 4), *dB = dev->alloc(nb * 4),
                          *dC = dev->alloc(nc * 4);
                    dev->upload(dA, A, na * 4);
                    dev->upload(dB, Bm, nb * 4);
                    dev->upload(dC, Cm, nc * 4);
                    dev->gemm(ta, tb, m, n, k, alpha, dA, dB, beta, dC);
                    dev->download(got, dC, nc * 4);
                    dev->release(dA);
                    dev->release(dB);
                    dev->release(dC);
                } else {
                    memcpy(got, Cm, nc * 4);
                    gemm(ta, tb, m, n, k, alpha, A, Bm, beta, got);
                }
                for (int i = 0; i < m; i++)
                    for (int j = 0; j < n; j++) {
                        double sum = 0, mag = 0;
                        for (int p = 0; p < k; p++) {
                            double x = at_a(A, ta, m, k, i, p) * at_b(Bm, tb, k, n, p, j);
                            sum += x;
                            mag += fabs(x);
                        }
                        double c0 = beta == 0 ? 0 : Cm[(size_t)i * n + j];
                        double want = alpha * sum + beta * c0;
                        double tol = integer ? 0 : 1e-5 * (fabs(alpha) * mag + fabs(beta * c0)) + 1e-6;
                        double g = got[(size_t)i * n + j];
                        cr_assert(fabs(g - want) <= tol,
                                  "%s: m=%d n=%d k=%d ta=%d tb=%d alpha=%g beta=%g: C[%d][%d] = "
                                  "%.7g, expected %.7g", name, m, n, k, ta, tb, alpha, beta, i, j,
                                  g, want);
                    }
                free(A);
                free(Bm);
                free(Cm);
                free(got);
            }
}

Test(ch1_gemm, plain_c_exact_on_integers) { check("gemm_plain", gemm_plain, NULL, true); }
Test(ch1_gemm, plain_c_random) { check("gemm_plain", gemm_plain, NULL, false); }
Test(ch1_gemm, device_exact_on_integers)
{
    const Device *d = test_device();
    check(d->description, NULL, d, true);
}
Test(ch1_gemm, device_random)
{
    const Device *d = test_device();
    check(d->description, NULL, d, false);
}
