/* Wrong on purpose: a negative count is caught only when it makes the total not positive
 * (the check is on the sum, not on each worker), so counts such as 5 2 1 -1 are averaged
 * with a negative weight instead of being refused.
 * Fails: ex_ps_weighted_mean::impossible_counts_are_errors
 * Fails: hidden_ps_weighted_mean::a_negative_count_last_and_a_single_worker
 */
/* Otherwise a copy of the reference solution of exercise 3.1. */
#include "ch3.h"

int ps_weighted_mean(const Device *dev, int workers, float *const *grads, const int *counts,
                     size_t n, float *out, char *err)
{
    long total = 0;
    for (int w = 0; w < workers; w++)
        total += counts[w];
    if (total <= 0)
        return error_set(err, "the counts add up to %ld: the mean is undefined", total);
    dev->zero(out, n * sizeof(float));
    for (int w = 0; w < workers; w++)
        if (counts[w] > 0)
            dev->axpy(n, (float)counts[w] / (float)total, grads[w], out);
    return 0;
}
