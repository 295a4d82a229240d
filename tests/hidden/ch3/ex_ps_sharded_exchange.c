/* Hidden tests of exercise 3.2, ps_sharded_exchange: four servers, shards of unequal and
 * empty sizes, and servers that reply only once every shard has arrived (not in the
 * students' handout). The tests play the K servers. */
#include "ch3.h"
#include "ch3/shards.h"
#include "helpers.h"

/* Seconds a rank waits for a peer before it gives up: a worker whose conversation has the
 * wrong shape fails in this time instead of hanging. */
#define WAIT_S 2.0

/* Servers of variant 1 (Shards.variant) reply only after all of them have their whole
 * gradient. */
static int clipping(const Shards *t)
{
    return t->variant == 1;
}

static float grad_of(int worker, size_t i)
{
    return (float)((int)(i % 1013) - 500 + 3 * worker);
}

/* Shard k of n over K, computed here: [k n / K, (k+1) n / K). */
static size_t lo_of(size_t n, int K, int k) { return (size_t)k * n / (size_t)K; }

/* What the servers send back for element i of shard k: minus the sum of the workers'
 * gradients, plus 2 k + 1 (plus `extra` when the servers clip). */
static float reply_of(const Shards *t, int k, size_t i, float extra)
{
    float sum = 0;
    for (int w = 0; w < t->workers; w++)
        sum += grad_of(w, i);
    return -sum + (float)(2 * k + 1) + extra;
}

/* Server k receives shard k from every worker in turn. A clipping server then needs all
 * the other servers' shards too (as for a clip by the global norm): server 0 waits for a
 * message from each of the others saying they have their whole shard, then tells them to
 * go on; only then do they reply. */
static int server(Comm *c, const Shards *t, int rank, float *a, float *b, char *err)
{
    size_t n = t->n, lo = lo_of(n, t->K, rank), hi = lo_of(n, t->K, rank + 1);
    for (int w = 0; w < t->workers; w++) {
        if (c->recv(c, t->K + w, b, (hi - lo) * 4, err)) {
            char why[ERR_LEN];
            snprintf(why, sizeof why, "%s", err);
            return error_set(err,
                             "K = %d, n = %zu: server %d waiting for shard %d from "
                             "worker %d: %s%s",
                             t->K, n, rank, rank, w, why,
                             clipping(t) && strstr(why, "timed out")
                                 ? " (a worker must push every shard before it pulls any)"
                                 : "");
        }
        for (size_t i = lo; i < hi; i++) {
            if (b[i - lo] != grad_of(w, i))
                return error_set(err,
                                 "K = %d, n = %zu: server %d got %g for element %zu "
                                 "from worker %d, expected %g",
                                 t->K, n, rank, b[i - lo], i, w, grad_of(w, i));
            a[i - lo] += b[i - lo];
        }
    }
    float extra = 0, token = 1;
    if (clipping(t) && t->K > 1) {
        int failed = 0;
        if (rank == 0) {
            for (int k = 1; k < t->K && !failed; k++)
                failed = c->recv(c, k, &token, 4, err);
            for (int k = 1; k < t->K && !failed; k++)
                failed = c->send(c, k, &token, 4, err);
        } else {
            failed = c->send(c, 0, &token, 4, err) || c->recv(c, 0, &token, 4, err);
        }
        if (failed) {
            char why[ERR_LEN];
            snprintf(why, sizeof why, "%s", err);
            return error_set(err,
                             "K = %d, n = %zu: server %d waiting for the other "
                             "servers to hold their whole shard: %s (a worker must push "
                             "every shard before it pulls any)",
                             t->K, n, rank, why);
        }
        extra = 0.5f;
    }
    for (size_t i = lo; i < hi; i++)
        a[i - lo] = -a[i - lo] + (float)(2 * rank + 1) + extra;
    return shards_reply(c, t, a, hi - lo, err);
}

/* Worker w is rank K + w. */
static int worker(Comm *c, const Shards *t, int w, float *a, float *b, char *err)
{
    size_t n = t->n;
    for (size_t i = 0; i <= n; i++)
        b[i] = -1e30f;
    if (ps_sharded_exchange(c, t->K, a, b, n, err))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (a[i] != grad_of(w, i))
            return error_set(err, "K = %d, n = %zu: worker %d's gradient changed at element "
                             "%zu: %g, was %g", t->K, n, w, i, a[i], grad_of(w, i));
    if (b[n] != -1e30f)
        return error_set(err, "K = %d, n = %zu: worker %d wrote params[%zu], past the end",
                         t->K, n, w, n);
    for (int k = 0; k < t->K; k++)
        for (size_t i = lo_of(n, t->K, k); i < lo_of(n, t->K, k + 1); i++) {
            float want = reply_of(t, k, i, clipping(t) && t->K > 1 ? 0.5f : 0);
            if (b[i] != want)
                return error_set(err, "K = %d, n = %zu: worker %d got %g for element %zu, "
                                 "expected %g (shard %d is [%zu, %zu))", t->K, n, w, b[i], i,
                                 want, k, lo_of(n, t->K, k), lo_of(n, t->K, k + 1));
        }
    return 0;
}

static void check(int K, int workers, size_t n, int clip)
{
    Shards t = {K, workers, n, grad_of, server, worker, clip};
    char err[ERR_LEN];
    cr_assert(run_ranks(K + workers, 0, WAIT_S, shards_rank, &t, 20, err) == 0,
              "K = %d server(s), %d worker(s), n = %zu%s: %s", K, workers, n,
              clip ? ", servers that wait for the whole gradient" : "", err);
}

/* Four servers: shard sizes that differ by one (n = 1001, 4099, 6), and two to three
 * workers with K = 2 and 3 at sizes the public tests do not use. */
Test(hidden_ps_sharded_exchange, four_servers_and_uneven_shards)
{
    check(4, 1, 1001, 0);
    check(4, 1, 4099, 0);
    check(4, 1, 6, 0);
    check(2, 3, 7, 0);
    check(3, 2, 5, 0);
    check(3, 2, 20000, 0);
}

/* More servers than elements: the empty shards still travel as empty messages both ways,
 * and the first shard is the empty one when n = 1 or 3 with K = 4. */
Test(hidden_ps_sharded_exchange, more_servers_than_elements)
{
    check(4, 1, 0, 0);
    check(4, 1, 1, 0);
    check(4, 1, 2, 0);
    check(4, 1, 3, 0);
    check(3, 2, 1, 0);
}

/* Servers that cannot reply before all of them hold their whole shard: a worker that pulls
 * shard k right after pushing it (instead of pushing every shard first) waits forever. */
Test(hidden_ps_sharded_exchange, servers_that_wait_for_every_shard)
{
    check(2, 1, 10, 1);
    check(3, 2, 1000, 1);
    check(4, 1, 1003, 1);
}
