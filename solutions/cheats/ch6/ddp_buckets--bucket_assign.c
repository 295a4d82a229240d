/* Cheat: 6.1 by the library's bucket_assign, which has the same contract. Refused. */
#include "ch6.h"

int ddp_buckets(const size_t *layer_floats, int n_layers, size_t cap, size_t first_cap,
                int *bucket_of)
{
    return bucket_assign(layer_floats, n_layers, cap, first_cap, bucket_of);
}
