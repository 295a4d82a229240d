/* Solution 1.1: a cache-blocked GEMM. C is cut into MB x NB tiles; each tile is
 * accumulated over KB-wide slices of op(A) and op(B), which are first copied into small
 * contiguous row-major buffers, so the inner loop streams rows that stay in L1/L2 whatever
 * the transposes. */
#include <stdlib.h>
#include <string.h>

#include "ch1.h"

enum { MB = 64, NB = 256, KB = 128 };

void gemm_blocked(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                  const float *B, float beta, float *C)
{
    float a[MB * KB], b[KB * NB];
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            C[(size_t)i * n + j] = beta == 0.0f ? 0.0f : beta * C[(size_t)i * n + j];
    for (int i0 = 0; i0 < m; i0 += MB) {
        int mb = m - i0 < MB ? m - i0 : MB;
        for (int p0 = 0; p0 < k; p0 += KB) {
            int kb = k - p0 < KB ? k - p0 : KB;
            /* a[i][p] = alpha op(A)[i0+i][p0+p] */
            for (int i = 0; i < mb; i++)
                for (int p = 0; p < kb; p++)
                    a[i * KB + p] = alpha * (ta ? A[(size_t)(p0 + p) * m + i0 + i]
                                                : A[(size_t)(i0 + i) * k + p0 + p]);
            for (int j0 = 0; j0 < n; j0 += NB) {
                int nb = n - j0 < NB ? n - j0 : NB;
                /* b[p][j] = op(B)[p0+p][j0+j] */
                for (int p = 0; p < kb; p++)
                    for (int j = 0; j < nb; j++)
                        b[p * NB + j] = tb ? B[(size_t)(j0 + j) * k + p0 + p]
                                           : B[(size_t)(p0 + p) * n + j0 + j];
                for (int i = 0; i < mb; i++) {
                    float *c = C + (size_t)(i0 + i) * n + j0;
                    for (int p = 0; p < kb; p++) {
                        const float x = a[i * KB + p], *row = b + p * NB;
                        for (int j = 0; j < nb; j++)
                            c[j] += x * row[j];
                    }
                }
            }
        }
    }
}
