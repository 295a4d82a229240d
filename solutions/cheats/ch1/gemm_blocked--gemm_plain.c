/* Cheat: 1.1 by a call of the book's own GEMM, which the exercise is to replace. Refused: an
 * exercise calls nothing of the book's library that its header does not give it. */
#include "ch1.h"

void gemm_plain(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                const float *B, float beta, float *C);

void gemm_blocked(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                  const float *B, float beta, float *C)
{
    gemm_plain(ta, tb, m, n, k, alpha, A, B, beta, C);
}
