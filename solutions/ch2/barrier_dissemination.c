/* Exercise 2.2, reference solution: the dissemination barrier. */
#include "ch2.h"

int barrier_dissemination(Comm *c, char *err)
{
    char token = 1, got = 0;
    for (int d = 1; d < c->size; d *= 2) {
        int to = (c->rank + d) % c->size, from = (c->rank - d + c->size) % c->size;
        if (c->sendrecv(c, to, &token, 1, from, &got, 1, err))
            return -1;
    }
    return 0;
}
