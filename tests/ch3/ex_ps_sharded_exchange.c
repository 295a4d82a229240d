/* Tests of exercise 3.2, ps_sharded_exchange: the tests play the K servers. */
#include "../ch2/ranks.h"
#include "ch3.h"
#include "helpers.h"

typedef struct Case {
    int K, workers;
    size_t n;
} Case;

static float grad_of(int worker, size_t i) { return (float)(worker * 1000 + (int)(i % 997)); }

/* Server k receives shard k from every worker, sums it, and sends back -sum + k. Worker w
 * (rank K + w) pushes and pulls with the exercise and checks what came back. */
static int rank_main(int rank, int size, void *arg, char *err)
{
    Case *t = arg;
    (void)size;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!c)
        return -1;
    size_t n = t->n;
    float *a = xcalloc(n + 1, 4), *b = xcalloc(n + 1, 4);
    if (rank < t->K) {
        size_t lo = (size_t)rank * n / t->K, hi = (size_t)(rank + 1) * n / t->K;
        for (int w = 0; w < t->workers; w++) {
            if (c->recv(c, t->K + w, b, (hi - lo) * 4, err))
                return -1;
            for (size_t i = lo; i < hi; i++) {
                if (b[i - lo] != grad_of(w, i))
                    return error_set(err, "server %d got %g for element %zu from worker %d, "
                                     "expected %g", rank, b[i - lo], i, w, grad_of(w, i));
                a[i - lo] += b[i - lo];
            }
        }
        for (size_t i = lo; i < hi; i++)
            a[i - lo] = -a[i - lo] + (float)rank;
        for (int w = 0; w < t->workers; w++)
            if (c->send(c, t->K + w, a, (hi - lo) * 4, err))
                return -1;
        return 0;
    }
    int w = rank - t->K;
    for (size_t i = 0; i < n; i++)
        a[i] = grad_of(w, i);
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
    Case t = {K, workers, n};
    char err[ERR_LEN];
    cr_assert(run_ranks(K + workers, 0, 30, rank_main, &t, 60, err) == 0,
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
