/* Tests of exercise 3.2, ps_sharded_exchange: the tests play the K servers. */
#include "ch3.h"
#include "shards.h"
#include "helpers.h"

static float grad_of(int worker, size_t i) { return (float)(worker * 1000 + (int)(i % 997)); }

/* Server k receives shard k from every worker, sums it, and sends back -sum + k. */
static int server(Comm *c, const Shards *t, int rank, float *a, float *b, char *err)
{
    size_t n = t->n, lo = (size_t)rank * n / t->K, hi = (size_t)(rank + 1) * n / t->K;
    for (int w = 0; w < t->workers; w++) {
        if (c->recv(c, t->K + w, b, (hi - lo) * 4, err))
            return -1;
        for (size_t i = lo; i < hi; i++) {
            if (b[i - lo] != grad_of(w, i))
                return error_set(err,
                                 "server %d got %g for element %zu from worker %d, "
                                 "expected %g",
                                 rank, b[i - lo], i, w, grad_of(w, i));
            a[i - lo] += b[i - lo];
        }
    }
    for (size_t i = lo; i < hi; i++)
        a[i - lo] = -a[i - lo] + (float)rank;
    return shards_reply(c, t, a, hi - lo, err);
}

/* Worker w (rank K + w) pushes and pulls with the exercise and checks what came back. */
static int worker(Comm *c, const Shards *t, int w, float *a, float *b, char *err)
{
    size_t n = t->n;
    if (ps_sharded_exchange(c, t->K, a, b, n, err))
        return -1;
    for (int k = 0; k < t->K; k++)
        for (size_t i = (size_t)k * n / t->K; i < (size_t)(k + 1) * n / t->K; i++) {
            float sum = 0;
            for (int v = 0; v < t->workers; v++)
                sum += grad_of(v, i);
            if (b[i] != -sum + (float)k)
                return error_set(err, "worker %d got %g for element %zu, expected %g (shard %d)",
                                 w, b[i], i, -sum + (float)k, k);
        }
    return 0;
}

static void check(int K, int workers, size_t n)
{
    Shards t = {K, workers, n, grad_of, server, worker, 0};
    char err[ERR_LEN];
    cr_assert(run_ranks(K + workers, 0, 30, shards_rank, &t, 60, err) == 0,
              "K = %d, %d worker(s), n = %zu: %s", K, workers, n, err);
}

Test(ex_ps_sharded_exchange, one_server)
{
    check(1, 1, 1000);
    check(1, 3, 1009);
}

Test(ex_ps_sharded_exchange, two_and_three_servers)
{
    const size_t sizes[] = {1, 1000, 1009};
    for (int K = 2; K <= 3; K++)
        for (int workers = 1; workers <= 3; workers++)
            for (int i = 0; i < 3; i++)
                check(K, workers, sizes[i]);
}

Test(ex_ps_sharded_exchange, fewer_elements_than_servers)
{
    check(3, 2, 0);
    check(3, 2, 2);
    check(2, 2, 1);
}
