/**
 * @file collectives.c
 * @brief The ring's collectives, written once over the comm and device interfaces.
 */
#line 419 "chapters/04-rs.nw"
#include "collectives.h"

#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "util.h"

#line 436 "chapters/04-rs.nw"
__attribute__((weak)) /* Exercise 4.2 may replace it: see the end of the chapter */
int ring_reduce_scatter(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    int n = c->size, r = c->rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    for (int t = 0; t < n - 1; t++) {
        int out = (r - t - 1 + 2 * n) % n, in = (r - t - 2 + 2 * n) % n;
        size_t olo = chunk_start(count, n, out), ohi = chunk_start(count, n, out + 1);
        size_t ilo = chunk_start(count, n, in), ihi = chunk_start(count, n, in + 1);
        launch_phase("share-reduce, step %d of %d", t + 1, n - 1);
        if (c->sendrecv(c, next, buf + olo, (ohi - olo) * sizeof(float), prev, scratch,
                        (ihi - ilo) * sizeof(float), err))
            return -1;
        c->dev->axpy(ihi - ilo, 1.0f, scratch, buf + ilo);
    }
    return 0;
}
#line 250 "chapters/05-ag.nw"
int ring_all_gather(Comm *c, void *buf, size_t count, size_t elem, char *err)
{
    char *b = buf;
    int n = c->size, r = c->rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    for (int t = 0; t < n - 1; t++) {
        int out = (r - t + n) % n, in = (r - t - 1 + 2 * n) % n;
        size_t olo = chunk_start(count, n, out), ohi = chunk_start(count, n, out + 1);
        size_t ilo = chunk_start(count, n, in), ihi = chunk_start(count, n, in + 1);
        launch_phase("share-only, step %d of %d", t + 1, n - 1);
        if (c->sendrecv(c, next, b + olo * elem, (ohi - olo) * elem, prev, b + ilo * elem,
                        (ihi - ilo) * elem, err))
            return -1;
    }
    return 0;
}
#line 322 "chapters/05-ag.nw"
int ring_all_reduce(Comm *c, float *buf, size_t count, float *scratch, float scale, char *err)
{
#line 325 "chapters/05-ag.nw"
    if (ring_reduce_scatter(c, buf, count, scratch, err))
        return -1;
    if (scale != 1.0f) {
        size_t lo = chunk_start(count, c->size, c->rank);
        c->dev->scale(chunk_start(count, c->size, c->rank + 1) - lo, scale, buf + lo);
    }
    return ring_all_gather(c, buf, count, sizeof(float), err);
}
#line 314 "chapters/05-ag.nw"
void sum_to_mean(Comm *c, float *p, size_t n)
{
    if (c->size > 1)
        c->dev->scale(n, 1.0f / (float)c->size, p);
}
#line 593 "chapters/05-ag.nw"
int ring_sum_doubles(Comm *host, double *v, int n, char *err)
{
    int size = host->size;
    double *all = xcalloc((size_t)n * (size_t)size, sizeof *all);
    memcpy(all + (size_t)host->rank * (size_t)n, v, (size_t)n * sizeof *v);
    int rc = ring_all_gather(host, all, (size_t)n * (size_t)size, sizeof *all, err);
    for (int i = 0; rc == 0 && i < n; i++) {
        v[i] = 0;
        for (int q = 0; q < size; q++)
            v[i] += all[(size_t)q * (size_t)n + (size_t)i];
    }
    free(all);
    return rc;
}
#line 782 "chapters/05-ag.nw"
/** FNV-1a: a 64-bit fingerprint of @p bytes bytes. */
static uint64_t hash_bytes(const void *p, size_t bytes)
{
    const unsigned char *s = p;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

#line 755 "chapters/05-ag.nw"
int replicas_agree(Comm *host, const Model *m, uint64_t *hash, char *err)
{
    float *w = xcalloc(m->n_params, sizeof *w);
    m->dev->download(w, m->params, m->n_params * sizeof *w);
    *hash = hash_bytes(w, m->n_params * sizeof *w);
    free(w);
    uint64_t *hashes = xcalloc((size_t)host->size, sizeof *hashes);
    hashes[host->rank] = *hash;
    int rc = ring_all_gather(host, hashes, (size_t)host->size, sizeof *hashes, err);
    for (int q = 0; rc == 0 && q < host->size; q++)
        if (hashes[q] != *hash)
            rc = error_set(err, "the weights of rank %d differ from rank %d's after training",
                           q, host->rank);
#line 769 "chapters/05-ag.nw"
    free(hashes);
    return rc;
}

#line 1089 "chapters/07-zero.nw"
/** Chunk @p k of @p count floats over @p size ranks, clipped to [lo, hi), from lo. */
static void window_chunk(size_t count, int size, int k, size_t lo, size_t hi, size_t *a,
                         size_t *b)
{
    size_t s = chunk_start(count, size, k), e = chunk_start(count, size, k + 1);
    s = s < lo ? lo : s > hi ? hi : s;
    e = e < lo ? lo : e > hi ? hi : e;
    *a = s - lo, *b = e - lo;
}

#line 1101 "chapters/07-zero.nw"
int ring_reduce_scatter_window(Comm *c, float *win, size_t count, size_t lo, size_t hi,
                               float *scratch, char *err)
{
    int n = c->size, r = c->rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    for (int t = 0; t < n - 1; t++) {
        size_t olo, ohi, ilo, ihi;
        window_chunk(count, n, (r - t - 1 + 2 * n) % n, lo, hi, &olo, &ohi);
        window_chunk(count, n, (r - t - 2 + 2 * n) % n, lo, hi, &ilo, &ihi);
        launch_phase("share-reduce of a window, step %d of %d", t + 1, n - 1);
        if (c->sendrecv(c, next, win + olo, (ohi - olo) * sizeof(float), prev, scratch,
                        (ihi - ilo) * sizeof(float), err))
            return -1;
        c->dev->axpy(ihi - ilo, 1.0f, scratch, win + ilo);
    }
    return 0;
}
#line 413 "chapters/A3-programs.nw"
float collective_value(int rank, size_t i)
{
    return (float)((long)((i * 7 + (size_t)rank * 13) % 101) - 50 + rank);
}

double collective_sum(int size, size_t i)
{
    double s = 0;
    for (int r = 0; r < size; r++)
        s += collective_value(r, i);
    return s;
}
