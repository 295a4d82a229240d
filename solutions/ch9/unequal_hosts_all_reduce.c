/* Exercise 9.3, reference solution. */
#include "ch9.h"

/* Where this rank stands: its node, the node's first rank and size, its place in it; and
 * the chunks, as many as the largest node has ranks. */
typedef struct Place {
    const int *sizes;
    int n_nodes, node, first, size, local, chunks;
} Place;

/* The first rank of node j. */
static int first_of(const Place *p, int j)
{
    int first = 0;
    for (int i = 0; i < j; i++)
        first += p->sizes[i];
    return first;
}

/* The rank of node j that owns chunk k. */
static int owner(const Place *p, int j, int k)
{
    return first_of(p, j) + k % p->sizes[j];
}

/* The ring all-reduce of chunk k (chunk[0..len)) among its owners, one per node, in the
 * order of the nodes: share-reduce, then share-only. scratch holds chunk_max(len, nodes). */
static int across_nodes(Comm *c, const Place *p, int k, float *chunk, size_t len,
                        float *scratch, char *err)
{
    int nodes = p->n_nodes, node = p->node;
    int next = owner(p, (node + 1) % nodes, k), prev = owner(p, (node + nodes - 1) % nodes, k);
    for (int t = 0; t < nodes - 1; t++) {
        int out = (node - t - 1 + 2 * nodes) % nodes, in = (node - t - 2 + 2 * nodes) % nodes;
        size_t olo = chunk_start(len, nodes, out), ohi = chunk_start(len, nodes, out + 1);
        size_t ilo = chunk_start(len, nodes, in), ihi = chunk_start(len, nodes, in + 1);
        if (c->sendrecv(c, next, chunk + olo, (ohi - olo) * sizeof(float), prev, scratch,
                        (ihi - ilo) * sizeof(float), err))
            return -1;
        c->dev->axpy(ihi - ilo, 1.0f, scratch, chunk + ilo);
    }
    for (int t = 0; t < nodes - 1; t++) {
        int out = (node - t + nodes) % nodes, in = (node - t - 1 + 2 * nodes) % nodes;
        size_t olo = chunk_start(len, nodes, out), ohi = chunk_start(len, nodes, out + 1);
        size_t ilo = chunk_start(len, nodes, in), ihi = chunk_start(len, nodes, in + 1);
        if (c->sendrecv(c, next, chunk + olo, (ohi - olo) * sizeof(float), prev, chunk + ilo,
                        (ihi - ilo) * sizeof(float), err))
            return -1;
    }
    return 0;
}

/* Wait until every other rank of the node reaches `value`. */
static int wait_node(Comm *c, const Place *p, uint32_t value, char *err)
{
    for (int q = p->first; q < p->first + p->size; q++)
        if (q != c->rank && c->wait_for(c, q, value, err))
            return -1;
    return 0;
}

/* The layout checked, and this rank's place in it: 0, or -1 with err. */
static int place_of(Comm *c, const int *node_sizes, int n_nodes, Place *p, char *err)
{
    if (!node_sizes || n_nodes < 1 || n_nodes > c->size)
        return error_set(err, "unequal_hosts_all_reduce: %d node sizes for %d ranks", n_nodes,
                         c->size);
    long long total = 0;
    *p = (Place){.sizes = node_sizes, .n_nodes = n_nodes, .node = -1};
    for (int j = 0; j < n_nodes; j++) {
        int s = node_sizes[j];
        if (s < 1)
            return error_set(err,
                             "unequal_hosts_all_reduce: node %d has %d ranks (node sizes "
                             "must be at least 1)",
                             j, s);
        if (s > DEVICE_MAX_SOURCES)
            return error_set(err,
                             "unequal_hosts_all_reduce: node %d has %d ranks (node sizes "
                             "of at most %d)",
                             j, s, DEVICE_MAX_SOURCES);
        if (p->node < 0 && c->rank < total + s)
            p->node = j, p->first = (int)total, p->size = s;
        total += s;
        p->chunks = s > p->chunks ? s : p->chunks;
    }
    if (total != c->size)
        return error_set(err,
                         "unequal_hosts_all_reduce: the node sizes sum to %lld, not to the "
                         "%d ranks",
                         total, c->size);
    p->local = c->rank - p->first;
    return 0;
}

int unequal_hosts_all_reduce(Comm *c, const int *node_sizes, int n_nodes, float *buf,
                             size_t count, float *scratch, char *err)
{
    Place p = {0};
    if (place_of(c, node_sizes, n_nodes, &p, err))
        return -1;
    int s = p.size, local = p.local, G = p.chunks;
    float *v[DEVICE_MAX_SOURCES];
    const float *part[DEVICE_MAX_SOURCES];
    for (int j = 0; j < s; j++)
        if (!(v[j] = j == local       ? buf
                     : c->peer_buffer ? c->peer_buffer(c, p.first + j, buf)
                                      : NULL))
            return error_set(err, "unequal_hosts_all_reduce: buf is not from alloc_shared");
    uint32_t base = s > 1 ? c->progress(c) : 0;
    /* 1. my chunks (local, local + s, ...), from my node's buffers, once they are ready */
    if (s > 1) {
        c->advance(c, base + 1);
        if (wait_node(c, &p, base + 1, err))
            return -1;
        for (int k = local; k < G; k += s) {
            size_t lo = chunk_start(count, G, k), hi = chunk_start(count, G, k + 1);
            for (int j = 0; j < s; j++)
                part[j] = v[j] + lo;
            c->dev->reduce(hi - lo, part, s, 1.0f, buf + lo);
        }
    }
    /* 2. each of them from every node, in increasing k: every rank takes its rings in the
     * same order, so the ring of the smallest unfinished chunk can always proceed */
    for (int k = local; n_nodes > 1 && k < G; k += s) {
        size_t lo = chunk_start(count, G, k), hi = chunk_start(count, G, k + 1);
        if (hi > lo && across_nodes(c, &p, k, buf + lo, hi - lo, scratch, err))
            return -1;
    }
    if (s == 1)
        return 0;
    /* 3. the other chunks, from their owners in my node once they have finished */
    c->advance(c, base + 2);
    for (int j = 0; j < s; j++) {
        if (j == local)
            continue;
        if (c->wait_for(c, p.first + j, base + 2, err))
            return -1;
        for (int k = j; k < G; k += s) {
            size_t lo = chunk_start(count, G, k), hi = chunk_start(count, G, k + 1);
            c->dev->copy(buf + lo, v[j] + lo, (hi - lo) * sizeof(float));
        }
    }
    /* no rank returns while a peer may still copy from its buffer */
    c->advance(c, base + 3);
    return wait_node(c, &p, base + 3, err);
}
