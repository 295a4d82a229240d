/* Exercise 3.3, reference solution. */
#include "ch3.h"

int ps_async_push(const Device *dev, float *params, long *version, const float *grad, size_t n,
                  long grad_version, int bound, float lr, char *err)
{
    if (bound < 0)
        return error_set(err, "the staleness bound must be >= 0 (got %d)", bound);
    if (grad_version < 0 || grad_version > *version)
        return error_set(err, "a gradient of version %ld cannot reach a server at version %ld",
                         grad_version, *version);
    long tau = *version - grad_version;
    if (tau > bound)
        return 0;
    dev->axpy(n, -lr / (float)(1 + tau), grad, params);
    ++*version;
    return 1;
}
