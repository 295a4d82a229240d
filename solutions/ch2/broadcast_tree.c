/* Exercise 2.3, reference solution: a broadcast along a binomial tree. */
#include "ch2.h"

int broadcast_tree(Comm *c, int root, void *buf, size_t bytes, char *err)
{
    int n = c->size, v = (c->rank - root + n) % n, m = 1;
    while (m < n) {
        if (v & m) {
            if (c->recv(c, (v - m + root) % n, buf, bytes, err))
                return -1;
            break;
        }
        m <<= 1;
    }
    for (m >>= 1; m > 0; m >>= 1)
        if (v + m < n && c->send(c, (v + m + root) % n, buf, bytes, err))
            return -1;
    return 0;
}
