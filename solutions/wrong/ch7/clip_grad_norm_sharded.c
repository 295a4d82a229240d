/* Wrong on purpose: each square is computed in float (grads[i] * grads[i]) and only then
 * added to the double sum, so it is rounded to 24 bits, overflows above about 1.8e19 and
 * loses bits below about 1e-19 (nothing is left of it below about 3e-23); for ordinary
 * gradients the norm stays within a relative 3e-8 of the true one.
 * Fails: hidden_clip_grad_norm_sharded::squares_summed_in_double
 */
/* Exercise 7.2, reference solution. */
#include <math.h>
#include <stdlib.h>

#include "ch7.h"

int clip_grad_norm_sharded(Comm *c, float *grads, size_t n, double max_norm, double *norm,
                           char *err)
{
    if (!(max_norm > 0))
        return error_set(err, "clip_grad_norm_sharded: max_norm = %g: clip to a positive "
                         "norm", max_norm);
    double own = 0;
    for (size_t i = 0; i < n; i++)
        own += grads[i] * grads[i]; /* a float product, converted when it is added */

    /* Every rank gets every rank's sum: a ring of N - 1 steps, each passing on the sum
     * received in the step before, in a buffer of N doubles on the comm's device. */
    int N = c->size, r = c->rank, next = (r + 1) % N, prev = (r + N - 1) % N;
    double *sums = malloc((size_t)N * sizeof *sums);
    double *dev = c->dev->alloc((size_t)N * sizeof *dev);
    if (!sums || !dev) {
        free(sums);
        if (dev)
            c->dev->release(dev);
        return error_set(err, "clip_grad_norm_sharded: out of memory");
    }
    c->dev->upload(dev + r, &own, sizeof own);
    int rc = 0;
    for (int t = 0; t < N - 1 && rc == 0; t++) {
        int out = (r - t + N) % N, in = (r - t - 1 + 2 * N) % N;
        rc = c->sendrecv(c, next, dev + out, sizeof(double), prev, dev + in, sizeof(double),
                         err);
    }
    if (rc == 0) {
        c->dev->download(sums, dev, (size_t)N * sizeof *sums);
        double total = 0; /* in rank order, the same additions on every rank */
        for (int q = 0; q < N; q++)
            total += sums[q];
        *norm = sqrt(total);
        if (*norm > max_norm) {
            float f = (float)(max_norm / (*norm + 1e-6));
            for (size_t i = 0; i < n; i++)
                grads[i] *= f;
        }
    }
    c->dev->release(dev);
    free(sums);
    return rc;
}
