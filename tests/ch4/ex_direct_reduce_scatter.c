/* Tests of exercise 4.3, direct_reduce_scatter. */
#include "reduce_scatter.h"
#include "ch4.h"
#include "helpers.h"

/* One message to every other rank, one from each, and every chunk but its own once. */
static int traffic(const RsCall *k, char *err)
{
    const Watched *w = k->w;
    unsigned long long others = ((1ull << k->size) - 1) & ~bit(k->rank);
    if (w->to != others || w->from != others || w->sends != k->size - 1)
        return error_set(err,
                         "%zu elements: rank %d must send one message to every other "
                         "rank and receive one from each (sent %ld, to mask %llx, from "
                         "%llx)",
                         k->count, k->rank, w->sends, w->to, w->from);
    return rs_sent_once(k, err);
}

static int rank_main(int rank, int size, void *arg, char *err)
{
    (void)arg;
    const size_t sizes[] = {0, 1, (size_t)size - 1, (size_t)size + 1, 1009, 65536};
    RsSweep s = {.fn = direct_reduce_scatter, .n = 6, .counts = sizes, .traffic = traffic};
    return rs_sweep(rank, size, &s, err);
}

Test(ex_direct_reduce_scatter, one_to_six_ranks)
{
    for (int n = 1; n <= 6; n++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(n, 0, 30, rank_main, NULL, 60, err) == 0, "N = %d: %s", n, err);
    }
}
