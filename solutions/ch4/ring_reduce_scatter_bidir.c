/* Exercise 4.2, reference solution. */
#include "ch4.h"

/* Chunk k's first half is [s_k, m_k), its second [m_k, s_{k+1}). */
static size_t mid(size_t count, int n, int k)
{
    size_t lo = chunk_start(count, n, k);
    return lo + (chunk_start(count, n, k + 1) - lo) / 2;
}

/* Both directions in one step, all four transfers in flight at once: the first halves go to
 * r+1 into the front of scratch, the second halves to r-1 into its back. scratch holds a
 * whole chunk, so the two halves received fit side by side. */
int ring_reduce_scatter_bidir(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    int n = c->size, r = c->rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    for (int t = 0; t < n - 1; t++) {
        int fo = (r - t - 1 + 2 * n) % n, fi = (r - t - 2 + 2 * n) % n; /* forward */
        int bo = (r + t + 1) % n, bi = (r + t + 2) % n;                 /* backward */
        size_t folo = chunk_start(count, n, fo), film = mid(count, n, fi);
        size_t filo = chunk_start(count, n, fi), bom = mid(count, n, bo);
        size_t bohi = chunk_start(count, n, bo + 1), bim = mid(count, n, bi);
        size_t bihi = chunk_start(count, n, bi + 1), front = film - filo;
        Exchange x[2] = {
            {.to = next, .sbuf = buf + folo, .sbytes = (mid(count, n, fo) - folo) * sizeof(float),
             .from = prev, .rbuf = scratch, .rbytes = front * sizeof(float)},
            {.to = prev, .sbuf = buf + bom, .sbytes = (bohi - bom) * sizeof(float),
             .from = next, .rbuf = scratch + front, .rbytes = (bihi - bim) * sizeof(float)},
        };
        if (c->sendrecv2(c, x, err))
            return -1;
        c->dev->axpy(front, 1.0f, scratch, buf + filo);
        c->dev->axpy(bihi - bim, 1.0f, scratch + front, buf + bim);
    }
    return 0;
}
