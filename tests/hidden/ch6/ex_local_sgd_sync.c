/* Hidden tests of exercise 6.3, local_sgd_sync (not in the students' handout): three levels
 * with groups of one, vectors shorter than the groups, step numbers beyond the range of an
 * int, and more refusals. */
#include <limits.h>

#include "ch6/local_sgd_cases.h"

/* Groups of 1 every step (nothing to send), pairs every 2, all four every 6: step 6 and 12
 * are the whole's, 2, 4, 8, 10 the pairs', the others nobody's; a warm-up of 2. */
Test(hidden_local_sgd_sync, three_levels_and_groups_of_one)
{
    lsgd_check(4, (LsgdCase){257, 1, 2, 3, {1, 2, 6}, {1, 2, 4}, 13,
                             {{0, QUIET}, {1, QUIET}, {2, 2}, {3, 1}, {4, 2}, {5, 1}, {6, 4},
                              {7, 1}, {8, 2}, {9, 1}, {10, 2}, {11, 1}, {12, 4}}});
}

/* Fewer weights than ranks in a group (empty chunks), and none at all. */
Test(hidden_local_sgd_sync, vectors_shorter_than_the_group)
{
    const size_t ns[] = {0, 1, 3, 5};
    for (size_t j = 0; j < sizeof ns / sizeof *ns; j++)
        lsgd_check(4, (LsgdCase){ns[j], 1, 0, 2, {1, 2}, {2, 4}, 2, {{1, 2}, {2, 4}}});
}

/* step and warmup are longs: 3,000,000,000 is a multiple of 3 (an int would read it as
 * -1,294,967,296), 3,000,000,001 is not; a warm-up past 2^32 holds back step 2^32 + 3. */
Test(hidden_local_sgd_sync, step_numbers_beyond_int_range)
{
    lsgd_check(3, (LsgdCase){100, 0, 0, 1, {3}, {3}, 2,
                             {{3000000000L, 3}, {3000000001L, QUIET}}});
    lsgd_check(2, (LsgdCase){100, 0, 4294967300L, 1, {1}, {2}, 2,
                             {{4294967299L, QUIET}, {4294967300L, 2}}});
}

/* More hierarchies that are not: a period of 0, equal periods, a negative size, no level. */
Test(hidden_local_sgd_sync, more_bad_levels)
{
    lsgd_check(2, (LsgdCase){10, 0, 0, 1, {0}, {2}, 1, {{4, REFUSE}}});
    lsgd_check(4, (LsgdCase){10, 0, 0, 2, {2, 2}, {2, 4}, 1, {{4, REFUSE}}});
    lsgd_check(2, (LsgdCase){10, 0, 0, 2, {1, 2}, {-2, 2}, 1, {{4, REFUSE}}});
    lsgd_check(2, (LsgdCase){10, 0, 0, 0, {1}, {2}, 1, {{4, REFUSE}}});
    lsgd_check(2, (LsgdCase){10, 0, 0, 1, {INT_MIN}, {2}, 1, {{0, REFUSE}}});
}
