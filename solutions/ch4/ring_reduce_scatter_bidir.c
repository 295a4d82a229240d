/* Exercise 4.2, reference solution. */
#include "ch4.h"

/* Chunk k's first half is [s_k, m_k), its second [m_k, s_{k+1}). */
static size_t mid(size_t count, int n, int k)
{
    size_t lo = chunk_start(count, n, k);
    return lo + (chunk_start(count, n, k + 1) - lo) / 2;
}

int ring_reduce_scatter_bidir(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    int n = c->size, r = c->rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    for (int t = 0; t < n - 1; t++) {
        int out = (r - t - 1 + 2 * n) % n, in = (r - t - 2 + 2 * n) % n;
        size_t olo = chunk_start(count, n, out), ilo = chunk_start(count, n, in);
        if (c->sendrecv(c, next, buf + olo, (mid(count, n, out) - olo) * sizeof(float), prev,
                        scratch, (mid(count, n, in) - ilo) * sizeof(float), err))
            return -1;
        c->dev->axpy(mid(count, n, in) - ilo, 1.0f, scratch, buf + ilo);
        out = (r + t + 1) % n;
        in = (r + t + 2) % n;
        size_t om = mid(count, n, out), im = mid(count, n, in);
        size_t ohi = chunk_start(count, n, out + 1), ihi = chunk_start(count, n, in + 1);
        if (c->sendrecv(c, prev, buf + om, (ohi - om) * sizeof(float), next, scratch,
                        (ihi - im) * sizeof(float), err))
            return -1;
        c->dev->axpy(ihi - im, 1.0f, scratch, buf + im);
    }
    return 0;
}
