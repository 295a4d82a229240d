/* Exercise 6.1, a solution: DDP's bucket assignment. */
#include "ch6.h"

int ddp_buckets(const size_t *layer_floats, int n_layers, size_t cap, size_t first_cap,
                int *bucket_of)
{
    int b = 0;
    size_t bytes = 0;
    for (int l = n_layers - 1; l >= 0; l--) {
        bucket_of[l] = b;
        bytes += layer_floats[l] * sizeof(float);
        if (l > 0 && bytes >= (b == 0 ? first_cap : cap)) { /* full: the next layer opens one */
            b++;
            bytes = 0;
        }
    }
    return n_layers > 0 ? b + 1 : 0;
}
