/* Exercise 6.1: buckets chosen by the cost model. */
#include "ch6.h"

int ddp_buckets(const size_t *layer_floats, const double *ready, int n_layers, double alpha,
                double beta, int *bucket_of, double *end)
{
    (void)layer_floats;
    (void)ready;
    (void)alpha;
    (void)beta;
    /* For each count j of the layers backward has finished, the earliest end of their
     * all-reduces with a bucket closing after the j-th; then walk back from j = n_layers. */
    for (int l = 0; l < n_layers; l++)
        bucket_of[l] = -1;
    *end = 0;
    return 0;
}
