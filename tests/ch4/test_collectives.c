/* The ring's collectives against sums computed directly: reduce-scatter, all-gather and
 * all-reduce for N = 1..8 and sizes 0, 1, N-1, N, N+1, a prime and 2^20, in place, with
 * rank- and position-dependent integer data (exact in float); chunk boundaries; a rank
 * dying mid-collective; ranks that disagree on the size. */
#include <math.h>

#include "../ch2/ranks.h"
#include "collectives.h"
#include "helpers.h"

/* The test's own data: an integer that depends on rank and position, |x| < 2^10. */
static long value(int rank, size_t i)
{
    return (long)((i * 31 + (size_t)rank * 17 + (i >> 7) * 5) % 211) - 105 + 3 * rank;
}

/* Chunk k of count elements over n ranks, computed here without the library. */
static size_t start(size_t count, int n, int k)
{
    return (size_t)((unsigned __int128)count * (unsigned)k / (unsigned)n);
}

enum { RS, AG, AR, AVG };
static const char *op_name[] = {"reduce-scatter", "all-gather", "all-reduce",
                                "all-reduce (mean)"};

/* Run collective op on count elements and check every element it promises. */
static int check_op(Comm *c, int op, size_t count, float *host, float *buf, float *scratch,
                    char *err)
{
    int n = c->size, r = c->rank;
    size_t mlo = start(count, n, r), mhi = start(count, n, r + 1);
    for (size_t i = 0; i < count; i++)
        host[i] = op == AG ? (i >= mlo && i < mhi ? (float)value(r, i) : NAN) : (float)value(r, i);
    c->dev->upload(buf, host, count * sizeof(float) + 4);
    int rc = op == RS   ? ring_reduce_scatter(c, buf, count, scratch, err)
             : op == AG ? ring_all_gather(c, buf, count, sizeof(float), err)
             : ring_all_reduce(c, buf, count, scratch, op == AVG ? 1.0f / (float)n : 1.0f, err);
    if (rc)
        return -1;
    c->dev->download(host, buf, count * sizeof(float) + 4);
    if (host[count] != 12345.0f)
        return error_set(err, "%s of %zu: rank %d's buffer was written past its end",
                         op_name[op], count, r);
    size_t lo = op == RS ? mlo : 0, hi = op == RS ? mhi : count;
    for (size_t i = lo; i < hi; i++) {
        double expect = 0;
        if (op == AG) {
            int k = 0;
            while (start(count, n, k + 1) <= i)
                k++;
            expect = (double)value(k, i);
        } else {
            for (int q = 0; q < n; q++)
                expect += (double)value(q, i);
            if (op == AVG)
                expect = (double)((float)expect * (1.0f / (float)n));
        }
        if (host[i] != (float)expect)
            return error_set(err, "%s of %zu elements on %d ranks: rank %d has %g at %zu, "
                             "expected %g", op_name[op], count, n, r, host[i], i, expect);
    }
    return 0;
}

static int all_sizes(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    const size_t sizes[] = {0, 1, (size_t)size - 1, (size_t)size, (size_t)size + 1, 1009,
                            1u << 20};
    size_t most = 1u << 20;
    float *host = xcalloc(most + 1, sizeof *host);
    float *buf = c->dev->alloc((most + 1) * sizeof(float));
    float *scratch = c->dev->alloc((chunk_max(most, size) + 1) * sizeof(float));
    for (int op = RS; op <= AVG; op++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            host[sizes[k]] = 12345.0f; /* a guard element after the buffer */
            if (check_op(c, op, sizes[k], host, buf, scratch, err))
                return -1;
        }
    c->dev->release(buf);
    c->dev->release(scratch);
    free(host);
    c->close(c);
    return 0;
}

Test(collectives, every_size_on_one_to_eight_ranks, .timeout = 240)
{
    for (int n = 1; n <= 8; n++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(n, 0, 30, all_sizes, NULL, 200, err) == 0, "N = %d: %s", n, err);
    }
}

Test(collectives, chunks_are_balanced_by_element)
{
    const size_t counts[] = {0, 1, 2, 3, 7, 8, 9, 1000, 1009, 101770, (size_t)1 << 62,
                             ((size_t)1 << 63) + 12345};
    for (int n = 1; n <= 64; n++)
        for (size_t j = 0; j < sizeof counts / sizeof counts[0]; j++) {
            size_t count = counts[j], small = count / (size_t)n;
            cr_assert(chunk_start(count, n, 0) == 0 && chunk_start(count, n, n) == count,
                      "count %zu over %d: the chunks do not cover [0, count)", count, n);
            for (int k = 0; k < n; k++) {
                size_t len = chunk_start(count, n, k + 1) - chunk_start(count, n, k);
                cr_assert(chunk_start(count, n, k) == start(count, n, k),
                          "count %zu over %d: chunk %d starts at %zu, expected %zu", count, n,
                          k, chunk_start(count, n, k), start(count, n, k));
                cr_assert(len == small || len == small + 1, "count %zu over %d: chunk %d has "
                          "%zu elements", count, n, k, len);
                cr_assert(len <= chunk_max(count, n), "chunk_max is too small");
            }
        }
}

/* Rank 2 of 4 aborts at its second message of a reduce-scatter of 2^20 elements. */
static int dying(int rank, int size, void *arg, char *err)
{
    (void)size;
    (void)arg;
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    Watched w;
    Comm *c = watch(&w, inner, rank == 2 ? 2 : 0);
    size_t count = 1u << 20;
    float *buf = c->dev->alloc(count * sizeof(float));
    float *scratch = c->dev->alloc(chunk_max(count, c->size) * sizeof(float));
    c->dev->zero(buf, count * sizeof(float));
    for (int i = 0; i < 3; i++)
        if (ring_all_reduce(c, buf, count, scratch, 1.0f, err))
            return -1;
    return error_set(err, "rank %d finished all-reduces that a dead rank was part of", rank);
}

/* Peers and launcher would wait 600 s: only the launcher seeing the death ends the run before
 * the test's own time-out (30 s) fails it. The time it took is not asserted. */
Test(collectives, a_rank_dying_mid_collective_ends_the_run, .timeout = 30)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(4, 0, 600, dying, NULL, 600, err) != 0, "the run succeeded");
    cr_assert(strstr(err, "rank 2 was killed by signal 6") &&
              strstr(err, "share-reduce, step 2 of 3"), "message: %s", err);
}

/* Rank 1 thinks the vector is one element longer: an error naming it, not a hang or a
 * silently wrong sum. */
static int disagree(int rank, int size, void *arg, char *err)
{
    (void)size;
    (void)arg;
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    size_t count = 4000 + (rank == 1);
    float *buf = c->dev->alloc(count * sizeof(float));
    float *scratch = c->dev->alloc(chunk_max(count, c->size) * sizeof(float));
    c->dev->zero(buf, count * sizeof(float));
    return ring_all_reduce(c, buf, count, scratch, 1.0f, err);
}

Test(collectives, ranks_that_disagree_on_the_size_fail)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(3, 0, 30, disagree, NULL, 60, err) != 0, "the run succeeded");
    cr_assert(strstr(err, "failed during 'share-"), "message: %s", err);
}
