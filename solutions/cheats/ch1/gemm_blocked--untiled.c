/* Cheat: 1.1 as the book's gemm_plain computes it, carried over to the machine: each element
 * of C a dot product of a row of A and a column of B, loaded a float at a time. Correct, but
 * not blocked: 2mnk + mn floats moved, which every test's bound of 2.5 T refuses (the machine
 * stops it there). */
#include "ch1.h"

int gemm_blocked(Fast *f, int m, int n, int k)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            if (f->zero(f, 0, 1))
                return -1;
            for (int p = 0; p < k; p++)
                if (f->load(f, 1, FAST_A, i, p, 1, 1) || f->load(f, 2, FAST_B, p, j, 1, 1) ||
                    f->multiply_add(f, 0, 1, 2, 1, 1, 1))
                    return -1;
            if (f->store(f, 0, i, j, 1, 1))
                return -1;
        }
    return 0;
}
