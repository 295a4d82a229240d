/* Tests of exercise 4.2, ring_reduce_scatter_bidir. */
#include "cases.h"
#include "ch4.h"
#include "helpers.h"

static int rank_main(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    const size_t sizes[] = {0, 1, (size_t)size - 1, (size_t)size + 1, 1009, 65536};
    float *host = xcalloc(65537, sizeof *host);
    float *buf = guarded(inner->dev, 65536);
    for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
        size_t count = sizes[j], most = chunk_max(count, size);
        size_t lo = case_start(count, size, rank), hi = case_start(count, size, rank + 1);
        Watched w;
        Comm *c = watch(&w, inner, 0);
        for (size_t i = 0; i < count; i++)
            host[i] = case_value(rank, i);
        c->dev->upload(buf, host, count * sizeof(float));
        float *scratch = guarded(c->dev, most);
        if (ring_reduce_scatter_bidir(c, buf, count, scratch, err))
            return -1;
        if (!guard_ok(c->dev, scratch, most) || !guard_ok(c->dev, buf, 65536))
            return error_set(err, "rank %d wrote past the end of scratch or buf", rank);
        c->dev->release(scratch);
        c->dev->download(host, buf, count * sizeof(float));
        for (size_t i = lo; i < hi; i++)
            if (host[i] != case_sum(size, i))
                return error_set(err, "%zu elements: rank %d has %g at %zu, expected %g",
                                 count, rank, host[i], i, case_sum(size, i));
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        if (size > 2 && (w.to != (bit(next) | bit(prev)) || w.from != (bit(next) | bit(prev))))
            return error_set(err, "%zu elements: rank %d must send to and receive from both "
                             "neighbours and nobody else (sent to mask %llx, received from "
                             "%llx)", count, rank, w.to, w.from);
        if (w.bytes != (count - (hi - lo)) * sizeof(float))
            return error_set(err, "%zu elements: rank %d sent %zu bytes, expected %zu", count,
                             rank, w.bytes, (count - (hi - lo)) * sizeof(float));
    }
    inner->close(inner);
    return 0;
}

Test(ex_ring_reduce_scatter_bidir, one_to_six_ranks)
{
    for (int n = 1; n <= 6; n++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(n, 0, 30, rank_main, NULL, 60, err) == 0, "N = %d: %s", n, err);
    }
}

/* Half the bytes each way: with 4 ranks and 4000 elements, 1500 floats to each neighbour.
 * The traffic counts only when the result is right too: a solution that sends the reverse
 * halves but never adds them must not pass. */
static int halves(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    Watched w;
    Comm *c = watch(&w, inner, 0);
    float *buf = guarded(c->dev, 4000), *scratch = guarded(c->dev, 1000);
    float *host = xcalloc(4000, sizeof *host);
    for (size_t i = 0; i < 4000; i++)
        host[i] = case_value(rank, i);
    c->dev->upload(buf, host, 4000 * sizeof(float));
    if (ring_reduce_scatter_bidir(c, buf, 4000, scratch, err))
        return -1;
    c->dev->download(host, buf, 4000 * sizeof(float));
    for (size_t i = case_start(4000, size, rank); i < case_start(4000, size, rank + 1); i++)
        if (host[i] != case_sum(size, i))
            return error_set(err, "rank %d has %g at %zu, expected %g: the traffic is right "
                             "only if the sums are", rank, host[i], i, case_sum(size, i));
    free(host);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (w.bytes_to[next] != 6000 || w.bytes_to[prev] != 6000)
        return error_set(err, "rank %d sent %zu bytes to rank %d and %zu to rank %d, expected "
                         "6000 each way (three half chunks of 500 floats)", rank,
                         w.bytes_to[next], next, w.bytes_to[prev], prev);
    return 0;
}

Test(ex_ring_reduce_scatter_bidir, both_directions_every_step)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(4, 0, 30, halves, NULL, 60, err) == 0, "%s", err);
}
