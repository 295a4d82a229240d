/* Hidden tests of exercise 1.1, gemm_blocked (not in the students' handout): thin shapes
 * where reading A and B once is the bound, the smallest fast memory, a long k, fast memories
 * that are not squares, long sums of random floats, and a refusal of the first operation. */
#include "ch1/fast_machine.h"

Test(hidden_gemm_blocked, thin_shapes)
{
    fast_check(1, 200, 50, 100, 3, FAST_LOOSE, 0, 101);
    fast_check(200, 1, 50, 100, 3, FAST_LOOSE, 0, 102);
    fast_check(120, 120, 1, 256, 3, FAST_LOOSE, 0, 103);
    fast_check(1, 1, 300, 3, 3, FAST_LOOSE, 0, 104);
    fast_check(64, 48, 32, 64, 3, FAST_LOOSE, 0, 105);
}

Test(hidden_gemm_blocked, three_floats_then_a_first_refusal)
{
    fast_check(9, 7, 5, 3, 3, FAST_LOOSE, 0, 111);
    fast_check(40, 40, 40, 100, 3, FAST_LOOSE, 0, 112);
    fast_check(7, 5, 3, 8, 3, FAST_LOOSE, 1, 113);
}

Test(hidden_gemm_blocked, tight_with_a_long_k)
{
    fast_check(20, 20, 700, 64, 3, FAST_TIGHT, 0, 121);
}

Test(hidden_gemm_blocked, tight_on_fast_memories_that_are_not_squares)
{
    fast_check(100, 90, 80, 300, 3, FAST_TIGHT, 0, 131);
    fast_check(257, 129, 33, 4096, 3, FAST_TIGHT, 0, 132);
    fast_check(500, 40, 30, 400, 3, FAST_TIGHT, 0, 133);
}

Test(hidden_gemm_blocked, random_long_sums_within_rounding)
{
    fast_check(60, 50, 400, 500, 0, FAST_LOOSE, 0, 141);
}
