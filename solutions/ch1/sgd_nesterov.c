/* Solution 1.3: Nesterov momentum in PyTorch's form, with the device's own kernels, so it runs
 * anywhere. */
#include "ch1.h"

void sgd_nesterov(const Device *dev, size_t n, float lr, float mu, const float *grads,
                  float *velocity, float *params)
{
    dev->scale(n, mu, velocity);              /* v = mu v               */
    dev->axpy(n, 1.0f, grads, velocity);      /* v = mu v + g           */
    dev->axpy(n, -lr, grads, params);         /* p -= lr g              */
    dev->axpy(n, -lr * mu, velocity, params); /* p -= lr mu v (the new) */
}
