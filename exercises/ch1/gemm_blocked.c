/* Exercise 1.1: a blocked GEMM on a machine with a small fast memory (3 stars, 30 points).
 * Read the end of chapter 1. Replace the body below; `make test` runs your tests once this
 * file has changed. */
#include "ch1.h"

int gemm_blocked(Fast *f, int m, int n, int k)
{
    /* TODO: C = A B, through f's fast memory, moving as few floats as you can. */
    (void)f, (void)m, (void)n, (void)k;
    return 0;
}
