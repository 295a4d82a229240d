/* Exercise 3.1, reference solution. */
#include "ch3.h"

int ps_weighted_mean(const Device *dev, int workers, float *const *grads, const int *counts,
                     size_t n, float *out, char *err)
{
    long total = 0;
    for (int w = 0; w < workers; w++) {
        if (counts[w] < 0)
            return error_set(err, "worker %d has a negative count (%d)", w, counts[w]);
        total += counts[w];
    }
    if (total == 0)
        return error_set(err, "no worker has a sample: the mean is undefined");
    dev->zero(out, n * sizeof(float));
    for (int w = 0; w < workers; w++)
        if (counts[w] > 0)
            dev->axpy(n, (float)counts[w] / (float)total, grads[w], out);
    return 0;
}
