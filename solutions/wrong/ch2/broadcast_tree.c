/* Wrong on purpose: the tree is numbered by absolute rank, always rooted at rank 0, and a
 * root other than 0 first hands its data to rank 0 (instead of numbering the ranks relative
 * to the root): the data arrive everywhere, but from such a root it costs N messages, the
 * root receives its own data back, and the tree is deeper than ceil(log2 N).
 * Fails: hidden_broadcast_tree::a_binomial_tree_from_every_root
 */
/* Otherwise a copy of the reference solution of exercise 2.3. */
#include "ch2.h"

int broadcast_tree(Comm *c, int root, void *buf, size_t bytes, char *err)
{
    int n = c->size, v = c->rank, m = 1;
    if (root != 0) {
        if (c->rank == root && c->send(c, 0, buf, bytes, err))
            return -1;
        if (c->rank == 0 && c->recv(c, root, buf, bytes, err))
            return -1;
    }
    while (m < n) {
        if (v & m) {
            if (c->recv(c, v - m, buf, bytes, err))
                return -1;
            break;
        }
        m <<= 1;
    }
    for (m >>= 1; m > 0; m >>= 1)
        if (v + m < n && c->send(c, v + m, buf, bytes, err))
            return -1;
    return 0;
}
