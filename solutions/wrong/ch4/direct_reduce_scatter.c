/* Wrong on purpose: each step sends with send() and only then receives with recv(), instead
 * of one sendrecv(); every rank sends first, so once a chunk is larger than the channel
 * between two ranks no send can finish and the ranks deadlock.
 * Fails: ex_direct_reduce_scatter::a_chunk_larger_than_the_channel
 * Fails: hidden_direct_reduce_scatter::chunks_larger_than_the_channel
 */
#include "ch4.h"

int direct_reduce_scatter(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    int n = c->size, r = c->rank;
    size_t lo = chunk_start(count, n, r), len = chunk_start(count, n, r + 1) - lo;
    for (int t = 1; t < n; t++) {
        int to = (r + t) % n, from = (r - t + n) % n;
        size_t tlo = chunk_start(count, n, to), tlen = chunk_start(count, n, to + 1) - tlo;
        if (c->send(c, to, buf + tlo, tlen * sizeof(float), err))
            return -1;
        if (c->recv(c, from, scratch, len * sizeof(float), err))
            return -1;
        c->dev->axpy(len, 1.0f, scratch, buf + lo);
    }
    return 0;
}
