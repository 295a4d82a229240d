/* Wrong on purpose: the textbook's blocking, three square tiles of b x b (a block of C, one
 * of A and one of B, 3 b^2 <= S), each block of C accumulated over k in steps of b. It is
 * correct, and blocked: every float loaded serves b multiply-adds, not 1. But a block of C of
 * side b costs 2 k b loads per b^2 results whatever the depth of the tiles of A and B, so the
 * floats that fast memory spends on them are taken from C's block: b = sqrt(S/3) where
 * sqrt(S) - 1 fits, about 1.7 times the tight schedule's traffic.
 * Fails: ex_gemm_blocked::tight_on_a_square_product
 * Fails: ex_gemm_blocked::tight_on_rectangles
 * Fails: hidden_gemm_blocked::tight_with_a_long_k
 * Fails: hidden_gemm_blocked::tight_on_fast_memories_that_are_not_squares
 */
#include "ch1.h"

int gemm_blocked(Fast *f, int m, int n, int k)
{
    int b = 1;
    while (3 * (b + 1) * (b + 1) <= f->capacity)
        b++;
    const int ta = b * b, tb = 2 * b * b; /* fast memory: C's tile, A's, B's */
    for (int i0 = 0; i0 < m; i0 += b)
        for (int j0 = 0; j0 < n; j0 += b) {
            int rows = m - i0 < b ? m - i0 : b, cols = n - j0 < b ? n - j0 : b;
            if (f->zero(f, 0, rows * cols))
                return -1;
            for (int p0 = 0; p0 < k; p0 += b) {
                int depth = k - p0 < b ? k - p0 : b;
                if (f->load(f, ta, FAST_A, i0, p0, rows, depth) ||
                    f->load(f, tb, FAST_B, p0, j0, depth, cols) ||
                    f->multiply_add(f, 0, ta, tb, rows, cols, depth))
                    return -1;
            }
            if (f->store(f, 0, i0, j0, rows, cols))
                return -1;
        }
    return 0;
}
