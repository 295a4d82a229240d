/* Tests of exercise 5.1, ring_all_gather_v. */
#include "../ch4/counts_v.h"
#include "ch5.h"
#include "helpers.h"

static int rank_main(int rank, int size, void *arg, char *err)
{
    (void)size;
    const VCase *k = arg;
    return v_all_gather_rank(rank, ring_all_gather_v, k->counts, 0, 1, err);
}

static void check(VCase k)
{
    v_run(&k, rank_main);
}

Test(ex_ring_all_gather_v, equal_counts)
{
    for (int n = 1; n <= 5; n++) {
        VCase k = {n, {0}};
        for (int q = 0; q < n; q++)
            k.counts[q] = 1000;
        check(k);
    }
}

Test(ex_ring_all_gather_v, uneven_and_empty_chunks)
{
    check((VCase){2, {3, 0}});
    check((VCase){3, {0, 5, 0}});
    check((VCase){4, {1, 0, 999, 17}});
    check((VCase){5, {4096, 1, 0, 33, 70000}});
}

Test(ex_ring_all_gather_v, one_rank_owns_everything)
{
    check((VCase){4, {0, 0, 5000, 0}});
    check((VCase){3, {0, 0, 0}});
}
