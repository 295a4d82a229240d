/* Hidden tests of exercise 4.1, ring_reduce_scatter_v: chunks of one element, chunks larger
 * than the transport's channel, and two calls in a row on the same ranks with different
 * counts (not in the students' handout). */
#include "ch4/counts_v.h"
#include "ch4.h"
#include "helpers.h"

/* Seconds a rank waits for a peer before it gives up: a schedule that deadlocks fails in
 * this time instead of hanging. */
#define WAIT_S 2.0

typedef struct Case {
    int n, calls;        /* ranks, and calls made one after the other (1 or 2) */
    size_t channel;      /* bytes of each channel of the shared memory (0: the default) */
    size_t counts[2][5]; /* the counts of each call */
} Case;

/* The values of call `call` are case_value's, 7 elements further on a call. */
static int rank_main(int rank, int size, void *arg, char *err)
{
    const Case *k = arg;
    (void)size;
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    for (int call = 0; call < k->calls; call++)
        if (v_reduce_scatter(inner, ring_reduce_scatter_v, k->counts[call], call, 1, err))
            return -1;
    inner->close(inner);
    return 0;
}

static void check(Case k)
{
    char err[ERR_LEN];
    char what[300];
    int at = snprintf(what, sizeof what, "N = %d", k.n);
    for (int call = 0; call < k.calls; call++) {
        at += snprintf(what + at, sizeof what - (size_t)at, ", counts");
        for (int q = 0; q < k.n; q++)
            at += snprintf(what + at, sizeof what - (size_t)at, " %zu", k.counts[call][q]);
    }
    if (k.channel)
        snprintf(what + at, sizeof what - (size_t)at, ", channels of %zu bytes (a send of more "
                 "must overlap the receive: sendrecv)", k.channel);
    cr_assert(run_ranks(k.n, k.channel, WAIT_S, rank_main, &k, 20, err) == 0, "%s: %s", what,
              err);
}

/* One rank alone, and rings of 2 to 5 ranks whose chunks hold one element or none. */
Test(hidden_ring_reduce_scatter_v, single_elements_and_tiny_rings)
{
    check((Case){1, 1, 0, {{1}}});
    check((Case){1, 1, 0, {{0}}});
    check((Case){2, 1, 0, {{1, 1}}});
    check((Case){2, 1, 0, {{0, 1}}});
    check((Case){4, 1, 0, {{1, 0, 1, 0}}});
    check((Case){5, 1, 0, {{1, 1, 1, 1, 1}}});
    check((Case){5, 1, 0, {{0, 0, 0, 0, 1}}});
    check((Case){5, 1, 0, {{997, 101, 13, 2, 0}}});
}

/* Chunks of up to 20000 bytes through channels of 4096: a rank's send can only finish while
 * its neighbour receives, so a schedule that sends first and receives after deadlocks. */
Test(hidden_ring_reduce_scatter_v, chunks_larger_than_the_channel)
{
    check((Case){2, 1, 4096, {{2048, 2048}}});
    check((Case){3, 1, 4096, {{5000, 1, 3000}}});
    check((Case){4, 1, 4096, {{1500, 0, 1200, 7}}});
}

/* Two share-reduces one after the other on the same ranks, the second with other counts:
 * nothing of the first call (a message, a cached offset) may leak into the second. */
Test(hidden_ring_reduce_scatter_v, two_calls_with_different_counts)
{
    check((Case){3, 2, 0, {{7, 0, 2}, {1, 1000, 3}}});
    check((Case){4, 2, 0, {{0, 0, 9, 0}, {250, 250, 250, 250}}});
    check((Case){5, 2, 0, {{3, 1, 4, 1, 5}, {9, 2, 6, 5, 3}}});
}
