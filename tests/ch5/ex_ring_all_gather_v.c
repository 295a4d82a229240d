/* Tests of exercise 5.1, ring_all_gather_v. */
#include "../ch4/cases.h"
#include "ch5.h"
#include "helpers.h"

typedef struct Case {
    int n;
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
        return error_set(err, "rank %d wrote past the end of buf", rank);
    c->dev->download(host, buf, total * sizeof(float));
    for (int q = 0; q < size; q++)
        for (size_t i = start[q]; i < start[q + 1]; i++)
            if (host[i] != case_value(q, i))
                return error_set(err, "rank %d: element %zu (chunk %d) is %g, expected %g",
                                 rank, i, q, host[i], case_value(q, i));
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (size > 1 && (w.to != bit(next) || w.from != bit(prev)))
        return error_set(err, "rank %d talked to ranks other than its neighbours in the ring "
                         "(sent to mask %llx, received from %llx)", rank, w.to, w.from);
    size_t expect = (total - k->counts[(rank + 1) % size]) * sizeof(float);
    if (size > 1 && w.bytes != expect)
        return error_set(err, "rank %d sent %zu bytes, expected %zu: every chunk once, except "
                         "the next rank's own", rank, w.bytes, expect);
    c->close(c);
    return 0;
}

static void check(Case k)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(k.n, 0, 30, rank_main, &k, 60, err) == 0, "N = %d, counts %zu %zu "
              "%zu %zu %zu: %s", k.n, k.counts[0], k.counts[1], k.counts[2], k.counts[3],
              k.counts[4], err);
}

Test(ex_ring_all_gather_v, equal_counts)
{
    for (int n = 1; n <= 5; n++) {
        Case k = {n, {0}};
        for (int q = 0; q < n; q++)
            k.counts[q] = 1000;
        check(k);
    }
}

Test(ex_ring_all_gather_v, uneven_and_empty_chunks)
{
    check((Case){2, {3, 0}});
    check((Case){3, {0, 5, 0}});
    check((Case){4, {1, 0, 999, 17}});
    check((Case){5, {4096, 1, 0, 33, 70000}});
}

Test(ex_ring_all_gather_v, one_rank_owns_everything)
{
    check((Case){4, {0, 0, 5000, 0}});
    check((Case){3, {0, 0, 0}});
}
