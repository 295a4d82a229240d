/* Cheat: 1.1 by OpenBLAS's GEMM, which the book links. Refused: of the libraries linked, an
 * exercise calls only the C library's and the compiler's. Needs: HAVE_BLAS */
#include "ch1.h"

enum { RowMajor = 101, NoTrans = 111, Trans = 112 };
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *A,
                 int lda, const float *B, int ldb, float beta, float *C, int ldc);

void gemm_blocked(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                  const float *B, float beta, float *C)
{
    if (m == 0 || n == 0)
        return;
    cblas_sgemm(RowMajor, ta ? Trans : NoTrans, tb ? Trans : NoTrans, m, n, k, alpha, A,
                ta ? m : k, B, tb ? k : n, beta, C, n);
}
