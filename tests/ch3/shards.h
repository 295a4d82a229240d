/* The harness of the tests of exercise 3.2 (ps_sharded_exchange), public and hidden: the
 * test plays the K servers (ranks 0 to K - 1) and the workers (ranks K on) run the
 * exercise, on n floats each way. */
#ifndef DPS_TEST_SHARDS_H
#define DPS_TEST_SHARDS_H

#include "../ch2/ranks.h"

typedef struct Shards Shards;

/* What server k, or worker w, does, with two host buffers a and b of n + 1 floats (a
 * worker's a holding its gradient): 0, or -1 with err. */
typedef int (*ShardRole)(Comm *c, const Shards *s, int who, float *a, float *b, char *err);

struct Shards {
    int K, workers;
    size_t n;
    float (*grad)(int worker, size_t i); /* element i of worker w's gradient */
    ShardRole server, worker;
    int variant; /* of the servers the test plays, if it plays several */
};

/* A rank of the exchange (a RankMain, with the Shards as arg). */
static inline int shards_rank(int rank, int size, void *arg, char *err)
{
    (void)size;
    const Shards *s = arg;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!c)
        return -1;
    float *a = xcalloc(s->n + 1, 4), *b = xcalloc(s->n + 1, 4);
    if (rank < s->K)
        return s->server(c, s, rank, a, b, err);
    int w = rank - s->K;
    for (size_t i = 0; i < s->n; i++)
        a[i] = s->grad(w, i);
    return s->worker(c, s, w, a, b, err);
}

/* A server's reply, the first `floats` floats of a, to every worker. */
static inline int shards_reply(Comm *c, const Shards *s, const float *a, size_t floats,
                               char *err)
{
    for (int w = 0; w < s->workers; w++)
        if (c->send(c, s->K + w, a, floats * 4, err))
            return -1;
    return 0;
}

#endif
