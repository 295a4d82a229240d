/* Tests of exercise 6.3, local_sgd_sync: schedules worked by hand (tests/ch6/local_sgd_cases.h
 * runs them and checks the weights, the traffic and the bits of each group). */
#include "local_sgd_cases.h"

/* Four ranks; pairs every 2 steps, all four every 4, after a warm-up of 3 steps: steps 0 to 2
 * average nothing, 4 and 8 all four ranks (4 divides them; 2 too, but the larger period
 * wins), 6 the pairs, the odd steps nothing. */
Test(ex_local_sgd_sync, two_levels_worked_by_hand)
{
    lsgd_check(4, (LsgdCase){1009, 0, 3, 2, {2, 4}, {2, 4}, 10,
                             {{0, QUIET}, {1, QUIET}, {2, QUIET}, {3, QUIET}, {4, 4},
                              {5, QUIET}, {6, 2}, {7, QUIET}, {8, 4}, {9, QUIET}}});
}

/* One level, every step, one to four ranks, on non-integer weights: the mean within rounding,
 * the same bits on every rank, at most 2 (N - 1) chunk_max(n, N) floats sent by each. */
Test(ex_local_sgd_sync, every_step_on_one_to_four_ranks)
{
    for (int N = 1; N <= 4; N++)
        lsgd_check(N, (LsgdCase){999, 1, 0, 1, {1}, {N}, 2, {{0, N}, {1, N}}});
}

/* Levels that are not a hierarchy are refused, with nothing sent. */
Test(ex_local_sgd_sync, bad_levels_are_refused)
{
    lsgd_check(4, (LsgdCase){10, 0, 0, 2, {4, 2}, {2, 4}, 1, {{4, REFUSE}}}); /* periods fall */
    lsgd_check(4, (LsgdCase){10, 0, 0, 1, {1}, {2}, 1, {{2, REFUSE}}});       /* not every rank */
    lsgd_check(4, (LsgdCase){10, 0, 0, 2, {1, 2}, {3, 4}, 1, {{2, REFUSE}}}); /* 3 into 4 */
    lsgd_check(4, (LsgdCase){10, 0, -1, 1, {1}, {4}, 1, {{2, REFUSE}}});      /* warm-up < 0 */
}
