/* Tests of exercise 1.1, gemm_blocked: products on the machine of tests/ch1/fast_machine.h,
 * each checked against a sum in double and its traffic against the header's bound T. */
#include "fast_machine.h"

/* Shapes from one element up, fast memories from the smallest (3 floats) up; then a machine
 * that refuses its fifth operation, which gemm_blocked must report. */
Test(ex_gemm_blocked, small_shapes_exactly_then_a_refusal)
{
    static const int c[][4] = {{1, 1, 1, 3},    {2, 3, 4, 3},     {7, 5, 3, 8},
                               {5, 9, 13, 20}, {16, 16, 16, 48}, {33, 17, 29, 100}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        fast_check(c[i][0], c[i][1], c[i][2], c[i][3], 3, FAST_LOOSE, 0, 11 + (unsigned)i);
    fast_check(16, 16, 16, 48, 3, FAST_LOOSE, 5, 19);
}

Test(ex_gemm_blocked, random_matrices_within_rounding)
{
    fast_check(50, 40, 60, 200, 0, FAST_LOOSE, 0, 21);
}

/* The tight bound: FAST_TIGHT T. */
Test(ex_gemm_blocked, tight_on_a_square_product)
{
    fast_check(96, 96, 96, 256, 3, FAST_TIGHT, 0, 31);
}

Test(ex_gemm_blocked, tight_on_rectangles)
{
    fast_check(200, 150, 120, 1000, 3, FAST_TIGHT, 0, 41);
    fast_check(130, 100, 70, 256, 3, FAST_TIGHT, 0, 42);
}
