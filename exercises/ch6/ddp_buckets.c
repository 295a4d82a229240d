/* Exercise 6.1: buckets chosen by the cost model. */
#include "ch6.h"

int ddp_buckets(const size_t *layer_floats, const double *ready, int n_layers, double alpha,
                double beta, int *bucket_of, double *end)
{
    (void)layer_floats;
    (void)ready;
    (void)alpha;
    (void)beta;
    /* Choose the buckets, number them from the last layer, and say when they end. */
    for (int l = 0; l < n_layers; l++)
        bucket_of[l] = -1;
    *end = 0;
    return 0;
}
