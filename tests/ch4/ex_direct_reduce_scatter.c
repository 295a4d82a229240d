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

/* Rank @p rank's side of one reduce-scatter of 3000 elements. */
static int rank_large(int rank, int size, void *arg, char *err)
{
    (void)arg;
    const size_t sizes[] = {3000};
    RsSweep s = {.fn = direct_reduce_scatter, .n = 1, .counts = sizes, .traffic = traffic};
    return rs_sweep(rank, size, &s, err);
}

/* A chunk larger than the channel between two ranks: a rank that sends its whole chunk
 * before it receives waits for a receive that no rank reaches, and the transport gives up. */
Test(ex_direct_reduce_scatter, a_chunk_larger_than_the_channel)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(2, 4096, 5, rank_large, NULL, 30, err) == 0,
              "3000 elements on 2 ranks, channels of 4096 bytes, so each chunk (6000 bytes) "
              "is larger than a channel: send and receive at once (sendrecv), or the ranks "
              "wait for each other: %s",
              err);
}
