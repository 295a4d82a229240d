/* Hidden tests of exercise 4.3, direct_reduce_scatter: the bytes each rank sends to each
 * other rank, more ranks than elements, and chunks larger than the transport's channel (not
 * in the students' handout). */
#include "ch4/reduce_scatter.h"
#include "ch4.h"
#include "helpers.h"

/* Seconds a rank waits for a peer before it gives up: a schedule that deadlocks fails in
 * this time instead of hanging. */
#define WAIT_S 2.0

typedef struct Case {
    int counts;      /* how many of sizes[] to run, one call after the other */
    size_t sizes[8]; /* the element counts */
} Case;

/* One message to every other rank, empty ones included, with exactly that rank's chunk. */
static int traffic(const RsCall *k, char *err)
{
    const Watched *w = k->w;
    int size = k->size, rank = k->rank;
    if (w->sends != size - 1)
        return error_set(err,
                         "N = %d, %zu elements: rank %d sent %ld messages, expected "
                         "%d (one to every other rank, empty chunks included)",
                         size, k->count, rank, w->sends, size - 1);
    for (int q = 0; q < size; q++) {
        size_t len = case_start(k->count, size, q + 1) - case_start(k->count, size, q);
        size_t want = q == rank ? 0 : len * sizeof(float);
        if (w->bytes_to[q] != want)
            return error_set(err,
                             "N = %d, %zu elements: rank %d sent %zu bytes to rank "
                             "%d, expected %zu (rank %d's own chunk, once)",
                             size, k->count, rank, w->bytes_to[q], q, want, q);
    }
    return 0;
}

static int rank_main(int rank, int size, void *arg, char *err)
{
    const Case *k = arg;
    RsSweep s = {direct_reduce_scatter, k->counts, k->sizes, traffic, .detailed = 1};
    return rs_sweep(rank, size, &s, err);
}

static void check(int n, size_t channel, const Case *k, const char *what)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(n, channel, WAIT_S, rank_main, (void *)k, 20, err) == 0, "N = %d, %s: "
              "%s", n, what, err);
}

/* N = 2 to 5 at sizes that do not divide evenly: each rank sends each other rank that
 * rank's chunk and nothing else. */
Test(hidden_direct_reduce_scatter, each_rank_receives_exactly_its_chunk)
{
    for (int n = 2; n <= 5; n++) {
        Case k = {3, {7, (size_t)(2 * n - 1), 1013}};
        check(n, 0, &k, "7, 2N - 1 and 1013 elements");
    }
}

/* Fewer elements than ranks: some chunks are empty, and still travel as empty messages. */
Test(hidden_direct_reduce_scatter, more_ranks_than_elements)
{
    const Case five = {5, {0, 1, 2, 3, 4}}, four = {3, {1, 2, 3}}, three = {2, {1, 2}};
    check(5, 0, &five, "0 to 4 elements");
    check(4, 0, &four, "1 to 3 elements");
    check(3, 0, &three, "1 and 2 elements");
}

/* Chunks of up to 16000 bytes through channels of 4096 bytes: a send that large can only
 * finish while its receiver receives, so every step must send and receive together
 * (sendrecv), not send first and receive after. */
Test(hidden_direct_reduce_scatter, chunks_larger_than_the_channel)
{
    const Case two = {1, {4000}}, three = {1, {9001}}, five = {1, {20003}};
    check(2, 4096, &two, "4000 elements, channels of 4096 bytes (sendrecv)");
    check(3, 4096, &three, "9001 elements, channels of 4096 bytes (sendrecv)");
    check(5, 4096, &five, "20003 elements, channels of 4096 bytes (sendrecv)");
}
