/* Tests of exercise 4.2, ring_reduce_scatter_bidir. */
#include "reduce_scatter.h"
#include "ch4.h"
#include "helpers.h"

/* Both neighbours and nobody else (from 3 ranks on), and every chunk but its own once. */
static int traffic(const RsCall *k, char *err)
{
    const Watched *w = k->w;
    int size = k->size, next = (k->rank + 1) % size, prev = (k->rank + size - 1) % size;
    if (size > 2 &&
        (w->to != (bit(next) | bit(prev)) || w->from != (bit(next) | bit(prev))))
        return error_set(err,
                         "%zu elements: rank %d must send to and receive from both "
                         "neighbours and nobody else (sent to mask %llx, received from "
                         "%llx)",
                         k->count, k->rank, w->to, w->from);
    return rs_sent_once(k, err);
}

static int rank_main(int rank, int size, void *arg, char *err)
{
    (void)arg;
    const size_t sizes[] = {0, 1, (size_t)size - 1, (size_t)size + 1, 1009, 65536};
    RsSweep s = {
        .fn = ring_reduce_scatter_bidir, .n = 6, .counts = sizes, .traffic = traffic};
    return rs_sweep(rank, size, &s, err);
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
