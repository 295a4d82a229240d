/* Tests of exercise 5.2, rabenseifner_all_reduce. */
#include "../ch4/cases.h"
#include "ch5.h"
#include "helpers.h"

static int rank_main(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    const size_t sizes[] = {0, 1, 3, 8, 1009, 65536};
    float *host = xcalloc(65537, sizeof *host);
    float *buf = guarded(inner->dev, 65536);
    for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
        size_t count = sizes[j], most = chunk_max(count, 2);
        Watched w;
        Comm *c = watch(&w, inner, 0);
        int rc = in_place_call(c, rabenseifner_all_reduce, case_value, host, buf, 65536,
                               count, most, err);
        if (rc)
            return rc < 0 ? -1
                          : error_set(err, "rank %d wrote past the end of scratch or buf",
                                      rank);
        for (size_t i = 0; i < count; i++)
            if (host[i] != case_sum(size, i))
                return error_set(err, "%zu elements on %d ranks: rank %d has %g at %zu, "
                                 "expected %g", count, size, rank, host[i], i,
                                 case_sum(size, i));
        if (w.sends != 2 * ceil_log2(size))
            return error_set(err,
                             "%zu elements: rank %d sent %ld messages, expected %d "
                             "(log2 N halving steps, log2 N doubling steps)",
                             count, rank, w.sends, 2 * ceil_log2(size));
        double bound = 2.0 * (size - 1) / size * (double)count + 2 * ceil_log2(size);
        if ((double)w.bytes > bound * sizeof(float))
            return error_set(err, "%zu elements: rank %d sent %zu bytes, more than "
                             "2(N-1)/N of the vector (%.0f)", count, rank, w.bytes,
                             bound * sizeof(float));
        for (int q = 0; q < size; q++)
            if ((w.to | w.from) & bit(q) && __builtin_popcount((unsigned)(q ^ rank)) != 1)
                return error_set(err, "rank %d talked to rank %d, which is not a partner of "
                                 "recursive halving (one bit apart)", rank, q);
    }
    inner->close(inner);
    return 0;
}

Test(ex_rabenseifner_all_reduce, one_two_four_eight_ranks)
{
    for (int n = 1; n <= 8; n *= 2) {
        char err[ERR_LEN];
        cr_assert(run_ranks(n, 0, 30, rank_main, NULL, 60, err) == 0, "N = %d: %s", n, err);
    }
}

/* Not a power of two: every rank returns an error at once, sending nothing (and with a
 * power of two, the same call succeeds). */
static int refused(int rank, int size, void *arg, char *err)
{
    (void)arg;
    (void)size;
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    Watched w;
    Comm *c = watch(&w, inner, 0);
    float *buf = guarded(c->dev, 100), *scratch = guarded(c->dev, 50);
    c->dev->zero(buf, 100 * sizeof(float));
    char why[ERR_LEN] = "";
    if ((size & (size - 1)) == 0)
        return rabenseifner_all_reduce(c, buf, 100, scratch, err);
    if (rabenseifner_all_reduce(c, buf, 100, scratch, why) == 0)
        return error_set(err, "rank %d: N = %d is not a power of two, but it returned 0", rank,
                         c->size);
    if (!why[0] || w.sends != 0)
        return error_set(err, "rank %d: an error needs a message and no message sent", rank);
    return 0;
}

Test(ex_rabenseifner_all_reduce, other_rank_counts_are_refused)
{
    const int ns[] = {2, 3, 6};
    for (int i = 0; i < 3; i++) {
        int n = ns[i];
        char err[ERR_LEN];
        cr_assert(run_ranks(n, 0, 30, refused, NULL, 60, err) == 0, "N = %d: %s", n, err);
    }
}
