/* Tests of exercise 9.1, tree_all_reduce: sums on hosts of every size that divides one to
 * seven ranks, the steps and the messages between hosts of every call (tests/ch9/hosts_tree.h). */
#include "ch9/hosts_tree.h"

enum { MOST = 6007 };

/* Exact sums for counts 0, 1, 5 and 6007, twice each, every rank sleeping a random few
 * microseconds before each call. */
Test(ex_tree_all_reduce, exact_sums_on_hosts_of_every_size)
{
    static const int layout[][2] = {{1, 1}, {2, 1}, {2, 2}, {3, 3}, {4, 1}, {4, 2},
                                    {4, 4}, {5, 1}, {6, 2}, {6, 3}, {7, 7}};
    for (size_t j = 0; j < sizeof layout / sizeof *layout; j++)
        tree_run(layout[j][0], layout[j][1], 0,
                 (TreeRun){.calls = 8, .counts = {0, 1, 5, MOST}, .most = MOST, .delay_us = 40});
}

/* Data whose sums depend on the order of addition: every rank ends with the same bits. */
Test(ex_tree_all_reduce, the_same_bits_everywhere)
{
    static const int layout[][2] = {{3, 1}, {5, 5}, {6, 2}, {6, 3}, {7, 1}};
    for (size_t j = 0; j < sizeof layout / sizeof *layout; j++)
        tree_run(layout[j][0], layout[j][1], 0,
                 (TreeRun){.calls = 2, .rough = 1, .counts = {1001, 33}, .most = 1001});
}

/* Hosts that do not divide the ranks, or of no rank, are refused before anything is sent. */
static int refused(Comm *c, const Watched *w, float *buf, float *scratch, char *err)
{
    const int L[] = {0, 4, -1, 7};
    for (size_t j = 0; j < sizeof L / sizeof *L; j++) {
        char why[ERR_LEN] = "";
        if (tree_all_reduce(c, L[j], buf, 16, scratch, why) == 0)
            return error_set(err, "N = %d, L = %d: rank %d returned 0, expected a refusal",
                             c->size, L[j], c->rank);
        if (!strstr(why, "host"))
            return error_set(err, "N = %d, L = %d: rank %d refused with \"%s\", which does not "
                             "say \"host\"", c->size, L[j], c->rank, why);
        if (w->sends)
            return error_set(err, "N = %d, L = %d: rank %d sent %ld messages before refusing",
                             c->size, L[j], c->rank, w->sends);
    }
    return 0;
}

Test(ex_tree_all_reduce, hosts_that_do_not_divide_the_ranks_are_refused)
{
    grid_run(6, 0, refused, 16, 30);
}
