/* Solution 1.3: heavy-ball momentum with the device's own kernels, so it runs anywhere. */
#include "ch1.h"

void sgd_momentum(const Device *dev, size_t n, float lr, float mu, const float *grads,
                  float *velocity, float *params)
{
    dev->scale(n, mu, velocity);          /* v = mu v     */
    dev->axpy(n, 1.0f, grads, velocity);  /* v = mu v + g */
    dev->axpy(n, -lr, velocity, params);  /* p -= lr v    */
}
