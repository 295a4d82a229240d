/* Exercise 8.2, reference solution. */
#include "ch8.h"

int direct_reduce(Comm *c, float *buf, size_t count, int root, char *err)
{
    int n = c->size, r = c->rank;
    if (root < 0 || root >= n)
        return error_set(err, "direct_reduce: root %d of %d ranks", root, n);
    if (!c->peer_buffer || n > DEVICE_MAX_SOURCES)
        return error_set(err, "direct_reduce: no memory the peers can read");
    float *v[DEVICE_MAX_SOURCES] = {0};
    const float *part[DEVICE_MAX_SOURCES];
    for (int q = 0; q < n; q++)
        if (!(v[q] = q == r ? buf : c->peer_buffer(c, q, buf)))
            return error_set(err, "direct_reduce: buf is not from alloc_shared");
    uint32_t base = c->progress(c);
    c->advance(c, base + 1);
    for (int q = 0; q < n; q++)
        if (q != r && c->wait_for(c, q, base + 1, err))
            return -1;
    size_t lo = chunk_start(count, n, r), hi = chunk_start(count, n, r + 1);
    for (int q = 0; q < n; q++)
        part[q] = v[q] + lo;
    c->dev->reduce(hi - lo, part, n, 1.0f, v[root] + lo); /* into the root's buffer */
    c->advance(c, base + 2);
    for (int q = 0; q < n; q++)
        if (q != r && c->wait_for(c, q, base + 2, err))
            return -1;
    return 0;
}
