/* Exercise 6.1, a solution: buckets chosen by the cost model, by dynamic programming over
 * the layers in the order backward finishes them. */
#include <math.h>
#include <stdlib.h>

#include "ch6.h"

int ddp_buckets(const size_t *layer_floats, const double *ready, int n_layers, double alpha,
                double beta, int *bucket_of, double *end)
{
    int n = n_layers;
    /* Position i is the i-th layer backward finishes, layer n - 1 - i. E[j]: the earliest
     * end of the all-reduces of the first j, with a bucket closing after the j-th; from[j]:
     * the position where that last bucket starts. A later bucket's end only grows with an
     * earlier one's (it starts at the later of that end and its own readiness), so the best
     * prefix is the earliest one. */
    double *E = xcalloc((size_t)n + 1, sizeof *E);
    int *from = xcalloc((size_t)n + 1, sizeof *from);
    E[0] = -INFINITY;
    for (int j = 1; j <= n; j++) {
        double r = ready[n - j], bytes = 0;
        E[j] = INFINITY;
        for (int i = j - 1; i >= 0; i--) {
            bytes += 4.0 * (double)layer_floats[n - 1 - i];
            double t = fmax(E[i], r) + alpha + beta * bytes;
            if (t < E[j]) {
                E[j] = t;
                from[j] = i;
            }
        }
    }
    int k = 0;
    for (int j = n; j > 0; j = from[j])
        k++;
    int b = k - 1;
    for (int j = n; j > 0; j = from[j], b--)
        for (int i = from[j]; i < j; i++)
            bucket_of[n - 1 - i] = b;
    *end = E[n];
    free(E);
    free(from);
    return k;
}
