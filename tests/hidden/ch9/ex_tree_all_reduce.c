/* Hidden tests of exercise 9.1, tree_all_reduce (not in the students' handout): eight to
 * twelve ranks on hosts of 2, 3 and 4, a large buffer on small channels, and thirty calls back
 * to back with random delays. */
#include "ch9/hosts_tree.h"

enum { N = 100003 };

Test(hidden_tree_all_reduce, eight_to_twelve_ranks_a_large_buffer_small_channels)
{
    TreeRun t = {.calls = 4, .rough = 1, .counts = {1, 2, 3001, N}, .most = N};
    tree_run(8, 4, 0, t);
    tree_run(8, 2, 0, t);
    tree_run(9, 3, 4096, t);
    tree_run(12, 3, 0, t);
}

Test(hidden_tree_all_reduce, back_to_back_calls_with_delays)
{
    tree_run(6, 2, 0, (TreeRun){.calls = 30, .counts = {7, 1, 5003, 2}, .most = 5003,
                                .delay_us = 50});
    tree_run(6, 3, 0, (TreeRun){.calls = 30, .rough = 1, .counts = {7, 1, 5003, 2},
                                .most = 5003, .delay_us = 50});
}
