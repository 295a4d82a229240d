/* Hidden tests of exercise 4.2, ring_reduce_scatter_bidir: chunks of odd length (whose two
 * halves differ by one), tiny counts with empty halves, and halves larger than the
 * transport's channel (not in the students' handout). */
#include "ch4/reduce_scatter.h"
#include "ch4.h"
#include "helpers.h"

/* Seconds a rank waits for a peer before it gives up: a schedule that deadlocks fails in
 * this time instead of hanging. */
#define WAIT_S 2.0

typedef struct Case {
    int counts;        /* how many of sizes[] to run, one call after the other */
    size_t sizes[16];  /* the element counts */
    int per_direction; /* check the bytes sent each way, not only their total */
} Case;

/* The first half of chunk k of count over n ranks: [s_k, m_k), m_k = s_k + len_k / 2. */
static size_t first_half(size_t count, int n, int k)
{
    return (case_start(count, n, k + 1) - case_start(count, n, k)) / 2;
}

/* The two neighbours only, every chunk but its own once, and (per_direction) the first
 * halves to r+1, the second to r-1. */
static int traffic(const RsCall *k, char *err)
{
    const Watched *w = k->w;
    int size = k->size, rank = k->rank;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    size_t count = k->count;
    if (size > 2 &&
        (w->to & ~(bit(next) | bit(prev)) || w->from & ~(bit(next) | bit(prev))))
        return error_set(err,
                         "N = %d, %zu elements: rank %d must talk to its two "
                         "neighbours only (sent to mask %llx, received from %llx)",
                         size, count, rank, w->to, w->from);
    if (rs_sent_once(k, err))
        return -1;
    if (!((const Case *)k->arg)->per_direction || size <= 2)
        return 0;
    size_t fwd = 0, bwd = 0;
    for (int q = 0; q < size; q++)
        if (q != rank) {
            size_t len = case_start(count, size, q + 1) - case_start(count, size, q);
            fwd += first_half(count, size, q) * sizeof(float);
            bwd += (len - first_half(count, size, q)) * sizeof(float);
        }
    if (w->bytes_to[next] != fwd || w->bytes_to[prev] != bwd)
        return error_set(err,
                         "N = %d, %zu elements: rank %d sent %zu bytes to rank %d "
                         "(r+1) and %zu to rank %d (r-1), expected %zu and %zu: the "
                         "first halves [s_k, s_k + len_k / 2) go to r+1, the second "
                         "halves (the longer ones when len_k is odd) to r-1",
                         size, count, rank, w->bytes_to[next], next, w->bytes_to[prev],
                         prev, fwd, bwd);
    return 0;
}

static int rank_main(int rank, int size, void *arg, char *err)
{
    const Case *k = arg;
    RsSweep s = {
        ring_reduce_scatter_bidir, k->counts, k->sizes, traffic, .detailed = 1, .arg = k};
    return rs_sweep(rank, size, &s, err);
}

static void check(int n, size_t channel, const Case *k, const char *what)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(n, channel, WAIT_S, rank_main, (void *)k, 20, err) == 0, "N = %d, %s: "
              "%s", n, what, err);
}

/* Chunks of odd length at N = 3, 4 and 5: each rank sends exactly the first halves of the
 * other chunks to r+1 and the second halves, one element longer, to r-1. */
Test(hidden_ring_reduce_scatter_bidir, odd_chunks_are_cut_at_the_floor)
{
    const Case three = {3, {1001, 8, 9}, 1}, four = {2, {4004, 13}, 1};
    const Case five = {3, {23, 5 * 333, 5}, 1}, two = {2, {7, 3}, 1};
    check(3, 0, &three, "1001, 8 and 9 elements");
    check(4, 0, &four, "4004 and 13 elements");
    check(5, 0, &five, "23, 1665 and 5 elements");
    check(2, 0, &two, "7 and 3 elements");
}

/* Every count from 1 to 2N + 1 at N = 2 to 5, one call after the other: many halves are
 * empty, and a chunk of one element has an empty first half. */
Test(hidden_ring_reduce_scatter_bidir, tiny_counts_with_empty_halves)
{
    for (int n = 2; n <= 5; n++) {
        Case k = {2 * n + 1, {0}, 1};
        for (int j = 0; j < k.counts; j++)
            k.sizes[j] = (size_t)j + 1;
        check(n, 0, &k, "counts 1 to 2N + 1");
    }
}

/* Halves of up to 20000 bytes through channels of 4096 bytes: a send of a half can only
 * finish while the neighbour receives, so all four transfers of a step must be in flight
 * together (sendrecv2), not one send after the other. */
Test(hidden_ring_reduce_scatter_bidir, halves_larger_than_the_channel)
{
    const Case three = {1, {30000}, 0}, two = {1, {8191}, 0}, five = {1, {20001}, 0};
    check(3, 4096, &three, "30000 elements, channels of 4096 bytes (sendrecv2)");
    check(2, 4096, &two, "8191 elements, channels of 4096 bytes (sendrecv2)");
    check(5, 4096, &five, "20001 elements, channels of 4096 bytes (sendrecv2)");
}
