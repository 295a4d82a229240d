/* Exercise 9.3: An all-reduce across hosts of unequal sizes (3 stars, 30 points). Read the end
 * of chapter 9. Replace the body below; `make test` runs your tests once this file has
 * changed. */
#include "ch9.h"

int unequal_hosts_all_reduce(Comm *c, const int *node_sizes, int n_nodes, float *buf,
                             size_t count, float *scratch, char *err)
{
    /* TODO: check the layout first (node sizes of at least 1 that sum to c->size). Then,
     * with G the largest node's size and chunk k = [chunk_start(count, G, k),
     * chunk_start(count, G, k + 1)) owned in a node of s ranks by its local rank k % s:
     * 1. within the node, each rank reduces each chunk it owns from the buffers of its node
     *    (direct reads); 2. for each chunk it owns, in increasing k, it all-reduces that
     *    chunk with the chunk's owners in the other nodes, one per node, by a ring of
     *    messages (why must every rank take its chunks in the same order?); 3. within the
     *    node, each rank copies the chunks it does not own from their owners. Wait for your
     *    node's progress where a buffer must be ready, and before a buffer may change under
     *    a reader. */
    (void)c;
    (void)node_sizes;
    (void)n_nodes;
    (void)buf;
    (void)count;
    (void)scratch;
    return error_set(err, "unequal_hosts_all_reduce: not written yet");
}
