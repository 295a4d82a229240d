/* Exercise 6.3, a solution: local SGD, averaging the weights every K steps. */
#include "ch6.h"

int local_sgd_sync(Comm *c, float *params, size_t n, long step, int every, float *scratch,
                   char *err)
{
    if (every < 1)
        return error_set(err, "local_sgd_sync: every = %d: average every 1 step or more", every);
    if (step % every != 0)
        return 0;
    return ring_all_reduce(c, params, n, scratch, 1.0f / (float)c->size, err);
}
