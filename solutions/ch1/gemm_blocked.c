/* Solution 1.1: a blocked GEMM on a machine with a small fast memory. A block of C of r x c
 * stays in fast memory while the k columns of A's r rows and the k rows of B's c columns
 * stream past it, a column and a row at a time: every float of A loaded serves c
 * multiply-adds, every float of B r, and the block costs k (r + c) loads and r c stores.
 * Fast memory must hold r c + r + c floats; of those shapes, the one that moves the fewest
 * floats over the whole product is chosen (near-square blocks of side about sqrt(S) for
 * large matrices, a whole row of A for a vector times a matrix). */
#include "ch1.h"

/* The floats the schedule loads for blocks of r x c: k (m ceil(n / c) + n ceil(m / r)). */
static long long loads(int m, int n, int k, int r, int c)
{
    return (long long)k * ((long long)m * ((n + c - 1) / c) + (long long)n * ((m + r - 1) / r));
}

int gemm_blocked(Fast *f, int m, int n, int k)
{
    int r = 1, c = 1, S = f->capacity;
    for (int rr = 1; rr <= m && rr * 2 + 1 <= S; rr++) {
        int cc = (S - rr) / (rr + 1); /* the widest block that fits beside its streams */
        cc = cc < n ? cc : n;
        if (cc >= 1 && loads(m, n, k, rr, cc) < loads(m, n, k, r, c))
            r = rr, c = cc;
    }
    const int a = r * c, b = a + r; /* fast memory: C's block at 0, A's column, B's row */
    for (int i0 = 0; i0 < m; i0 += r)
        for (int j0 = 0; j0 < n; j0 += c) {
            int rows = m - i0 < r ? m - i0 : r, cols = n - j0 < c ? n - j0 : c;
            if (f->zero(f, 0, rows * cols))
                return -1;
            for (int p = 0; p < k; p++)
                if (f->load(f, a, FAST_A, i0, p, rows, 1) || f->load(f, b, FAST_B, p, j0, 1, cols) ||
                    f->multiply_add(f, 0, a, b, rows, cols, 1))
                    return -1;
            if (f->store(f, 0, i0, j0, rows, cols))
                return -1;
        }
    return 0;
}
