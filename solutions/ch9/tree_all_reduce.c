/* Exercise 9.1, reference solution. */
#include "ch9.h"

int tree_all_reduce(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    int n = c->size, r = c->rank, m = 1;
    size_t bytes = count * sizeof(float);
    /* The reduce: m = 2^k; a rank leaves it in the round of its lowest set bit. */
    for (; m < n; m <<= 1) {
        if (r & m) {
            if (c->send(c, r - m, buf, bytes, err))
                return -1;
            break;
        }
        if (r + m < n) {
            if (c->recv(c, r + m, scratch, bytes, err))
                return -1;
            c->dev->axpy(count, 1.0f, scratch, buf);
        }
    }
    /* The broadcast: rank r (not 0) hears from r - m, the rank it sent to; every rank then
     * sends to the ranks it heard from in the reduce, r + m/2, r + m/4, ..., r + 1. */
    if (r && c->recv(c, r - m, buf, bytes, err))
        return -1;
    for (m >>= 1; m > 0; m >>= 1)
        if (r + m < n && c->send(c, r + m, buf, bytes, err))
            return -1;
    return 0;
}
