/* Exercise 4.1, reference solution. */
#include "ch4.h"

static size_t offset(const size_t *counts, int k)
{
    size_t s = 0;
    for (int j = 0; j < k; j++)
        s += counts[j];
    return s;
}

int ring_reduce_scatter_v(Comm *c, float *buf, const size_t *counts, float *scratch,
                          char *err)
{
    int n = c->size, r = c->rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    for (int t = 0; t < n - 1; t++) {
        int out = (r - t - 1 + 2 * n) % n, in = (r - t - 2 + 2 * n) % n;
        if (c->sendrecv(c, next, buf + offset(counts, out), counts[out] * sizeof(float), prev,
                        scratch, counts[in] * sizeof(float), err))
            return -1;
        c->dev->axpy(counts[in], 1.0f, scratch, buf + offset(counts, in));
    }
    return 0;
}
