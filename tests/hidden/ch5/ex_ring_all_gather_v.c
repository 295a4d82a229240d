/* Hidden tests of exercise 5.1, ring_all_gather_v: one-element chunks, chunks larger than
 * the channel between two ranks, and every rotation of uneven counts (not in the students'
 * handout). */
#include "ch4/cases.h"
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
    const Case *k = arg;
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    Watched w;
    Comm *c = watch(&w, inner, 0);
    size_t total = 0, start[9];
    for (int q = 0; q < size; q++) {
        start[q] = total;
        total += k->counts[q];
    }
    start[size] = total;
    float *host = xcalloc(total + 1, sizeof *host);
    for (size_t i = 0; i < total; i++)
        host[i] = i >= start[rank] && i < start[rank + 1] ? case_value(rank, i) : NAN;
    float *buf = guarded(c->dev, total);
    c->dev->upload(buf, host, total * sizeof(float));
    if (ring_all_gather_v(c, buf, k->counts, err))
        return -1;
    if (!guard_ok(c->dev, buf, total))
        return error_set(err, "rank %d wrote past the end of buf (%zu floats)", rank, total);
    c->dev->download(host, buf, total * sizeof(float));
    for (int q = 0; q < size; q++)
        for (size_t i = start[q]; i < start[q + 1]; i++)
            if (host[i] != case_value(q, i))
                return error_set(err, "rank %d: element %zu (chunk %d, which starts at %zu) is "
                                 "%g, expected %g", rank, i, q, start[q], host[i],
                                 case_value(q, i));
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (size > 1 && (w.to != bit(next) || w.from != bit(prev)))
        return error_set(err, "rank %d talked to ranks other than its neighbours in the ring "
                         "(sent to mask %llx, received from %llx)", rank, w.to, w.from);
    c->dev->release(buf);
    free(host);
    c->close(c);
    return 0;
}

static void check(Case k)
{
    char err[ERR_LEN], counts[200] = "";
    for (int q = 0; q < k.n; q++)
        snprintf(counts + strlen(counts), sizeof counts - strlen(counts), " %zu", k.counts[q]);
    char channels[48] = "";
    if (k.chan)
        snprintf(channels, sizeof channels, ", channels of %zu bytes", k.chan);
    int rc = run_ranks(k.n, k.chan, WAIT_S, rank_main, &k, LIMIT_S, err);
    cr_assert(rc == 0, "N = %d, counts%s%s: %s%s", k.n, counts, channels, err,
              k.chan && strstr(err, "timed out") ? " (a chunk larger than the channel: send and "
                                                   "receive at once, with sendrecv)" : "");
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
