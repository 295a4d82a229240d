/* Exercise 7.2: Clipping sharded gradients by their global norm (2 stars, 20 points). Read
 * the end of chapter 7. Replace the body below; `make test` runs your tests once this file
 * has changed. */
#include "ch7.h"

int clip_grad_norm_sharded(Comm *c, float *grads, size_t n, double max_norm, double *norm,
                           char *err)
{
    /* TODO: refuse a max_norm that is not positive; sum the squares of grads[0..n) in
     * double; give every rank every rank's sum (c->send, c->recv or c->sendrecv, 8 bytes
     * each, through a buffer on c->dev); add them in rank order 0..N-1, take the square root
     * into *norm; when it is above max_norm, multiply every element by the float
     * max_norm / (*norm + 1e-6). */
    (void)c;
    (void)grads;
    (void)n;
    (void)max_norm;
    (void)norm;
    return error_set(err, "clip_grad_norm_sharded: not written yet");
}
