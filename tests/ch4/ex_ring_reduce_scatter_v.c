/* Tests of exercise 4.1, ring_reduce_scatter_v. */
#include "counts_v.h"
#include "ch4.h"
#include "helpers.h"

static int rank_main(int rank, int size, void *arg, char *err)
{
    (void)size;
    const VCase *k = arg;
    return v_reduce_scatter_rank(rank, ring_reduce_scatter_v, k->counts, err);
}

static void check(VCase k)
{
    v_run(&k, rank_main);
}

Test(ex_ring_reduce_scatter_v, equal_counts)
{
    for (int n = 1; n <= 5; n++) {
        VCase k = {n, {0}};
        for (int q = 0; q < n; q++)
            k.counts[q] = 1000;
        check(k);
    }
}

Test(ex_ring_reduce_scatter_v, uneven_and_empty_chunks)
{
    check((VCase){2, {3, 0}});
    check((VCase){3, {0, 5, 0}});
    check((VCase){4, {1, 0, 999, 17}});
    check((VCase){5, {4096, 1, 0, 33, 70000}});
}

Test(ex_ring_reduce_scatter_v, one_rank_owns_everything)
{
    check((VCase){4, {0, 0, 5000, 0}});
    check((VCase){3, {0, 0, 0}});
}
