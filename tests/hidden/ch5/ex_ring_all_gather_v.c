/* Hidden tests of exercise 5.1, ring_all_gather_v: one-element chunks, chunks larger than
 * the channel between two ranks, and every rotation of uneven counts (not in the students'
 * handout). */
#include "ch4/counts_v.h"
#include "ch5.h"
#include "helpers.h"

/* A rank that waits this long without progress fails, so that a deadlock fails fast. */
#define WAIT_S 2.0
#define LIMIT_S 20.0

typedef struct Case {
    int n;
    size_t chan; /* bytes of each channel, 0 for the default (1 MiB) */
    size_t counts[8];
} Case;

static int rank_main(int rank, int size, void *arg, char *err)
{
    (void)size;
    return v_all_gather_rank(rank, ring_all_gather_v, ((const Case *)arg)->counts, 1, 0,
                             err);
}

static void check(Case k)
{
    char what[240];
    int at = snprintf(what, sizeof what, "N = %d, counts", k.n);
    for (int q = 0; q < k.n; q++)
        at += snprintf(what + at, sizeof what - (size_t)at, " %zu", k.counts[q]);
    run_on_channels(k.n, k.chan, WAIT_S, rank_main, &k, LIMIT_S, what,
                    " (a chunk larger than the channel: send and receive at once, with "
                    "sendrecv)");
}

/* Chunks of one element each, and one-element chunks between empty ones. */
Test(hidden_ring_all_gather_v, one_element_chunks)
{
    for (int n = 1; n <= 5; n++) {
        Case k = {n, 0, {0}};
        for (int q = 0; q < n; q++)
            k.counts[q] = 1;
        check(k);
    }
    check((Case){4, 0, {0, 1, 0, 1}});
    check((Case){5, 0, {1, 0, 1, 0, 1}});
}

/* Chunks many times the 256 bytes of a channel: the ranks must send and receive at once
 * (sendrecv); a rank that sends its whole chunk before it receives waits forever. */
Test(hidden_ring_all_gather_v, chunks_larger_than_the_channel)
{
    check((Case){2, 256, {1000, 999}});
    check((Case){3, 256, {100, 257, 63}});
    check((Case){5, 256, {0, 2048, 1, 700, 65}});
}

/* The same uneven counts rotated, so that every rank owns every size once: offsets are the
 * sums of the counts before a chunk, whatever the rank. */
Test(hidden_ring_all_gather_v, every_rotation_of_uneven_counts)
{
    const size_t base[5] = {7, 0, 300, 1, 64};
    for (int n = 3; n <= 5; n++)
        for (int s = 0; s < n; s++) {
            Case k = {n, 0, {0}};
            for (int q = 0; q < n; q++)
                k.counts[q] = base[(q + s) % n];
            check(k);
        }
}
