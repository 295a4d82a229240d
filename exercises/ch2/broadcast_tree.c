/* Exercise 2.3: a broadcast along a binomial tree. */
#include "ch2.h"

int broadcast_tree(Comm *c, int root, void *buf, size_t bytes, char *err)
{
    (void)c;
    (void)root;
    (void)buf;
    (void)bytes;
    /* Number the ranks relative to the root: v = (rank - root) mod N. Rank v receives from
     * v - m, where m is the lowest set bit of v, then sends to v + m' for every power of
     * two m' below m (largest first) with v + m' < N. The root receives from nobody. */
    return error_set(err, "broadcast_tree: not written yet");
}
