/* Exercise 8.3, reference solution. */
#include "ch8.h"

/* The ring all-reduce of chunk[0..len) among the `nodes` ranks of the same place in every
 * node (rank node * node_size + local), by messages: share-reduce, then share-only. */
static int across_nodes(Comm *c, int node_size, float *chunk, size_t len, float *scratch,
                        char *err)
{
    int nodes = c->size / node_size, node = c->rank / node_size, local = c->rank % node_size;
    int next = (node + 1) % nodes * node_size + local;
    int prev = (node + nodes - 1) % nodes * node_size + local;
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
static int wait_node(Comm *c, int node_size, uint32_t value, char *err)
{
    int first = c->rank / node_size * node_size;
    for (int q = first; q < first + node_size; q++)
        if (q != c->rank && c->wait_for(c, q, value, err))
            return -1;
    return 0;
}

int hierarchical_all_reduce(Comm *c, int node_size, float *buf, size_t count, float *scratch,
                            char *err)
{
    if (node_size < 1 || node_size > DEVICE_MAX_SOURCES || c->size % node_size != 0)
        return error_set(err, "hierarchical_all_reduce: nodes of %d ranks cannot hold %d "
                         "ranks", node_size, c->size);
    int local = c->rank % node_size, first = c->rank - local;
    float *v[DEVICE_MAX_SOURCES];
    const float *part[DEVICE_MAX_SOURCES];
    for (int j = 0; j < node_size; j++)
        if (!(v[j] = j == local ? buf : c->peer_buffer ? c->peer_buffer(c, first + j, buf)
                                                       : NULL))
            return error_set(err, "hierarchical_all_reduce: buf is not from alloc_shared");
    uint32_t base = node_size > 1 ? c->progress(c) : 0;
    size_t lo = chunk_start(count, node_size, local), hi = chunk_start(count, node_size, local + 1);
    /* 1. my chunk, from my node's buffers */
    if (node_size > 1) {
        c->advance(c, base + 1);
        if (wait_node(c, node_size, base + 1, err))
            return -1;
        for (int j = 0; j < node_size; j++)
            part[j] = v[j] + lo;
        c->dev->reduce(hi - lo, part, node_size, 1.0f, buf + lo);
    }
    /* 2. that chunk, from every node */
    if (across_nodes(c, node_size, buf + lo, hi - lo, scratch, err))
        return -1;
    if (node_size == 1)
        return 0;
    /* 3. the other chunks, from their owners in my node */
    c->advance(c, base + 2);
    for (int j = 0; j < node_size; j++) {
        size_t jlo = chunk_start(count, node_size, j), jhi = chunk_start(count, node_size, j + 1);
        if (j == local)
            continue;
        if (c->wait_for(c, first + j, base + 2, err))
            return -1;
        c->dev->copy(buf + jlo, v[j] + jlo, (jhi - jlo) * sizeof(float));
    }
    c->advance(c, base + 3);
    return wait_node(c, node_size, base + 3, err);
}
