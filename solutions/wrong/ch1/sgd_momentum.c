/* Wrong on purpose: the learning rate is folded into the velocity (v = mu v + lr g, then
 * p -= v), the convention of some papers; it matches v = mu v + g, p -= lr v only while lr
 * never changes, and the velocity it leaves is lr times the true one.
 * Fails: hidden_sgd_momentum::the_velocity_buffer_holds_mu_v_plus_g
 * Fails: hidden_sgd_momentum::a_learning_rate_that_changes_every_step
 */
/* Otherwise a copy of the reference solution of exercise 1.3. */
#include "ch1.h"

void sgd_momentum(const Device *dev, size_t n, float lr, float mu, const float *grads,
                  float *velocity, float *params)
{
    dev->scale(n, mu, velocity);          /* v = mu v        */
    dev->axpy(n, lr, grads, velocity);    /* v = mu v + lr g */
    dev->axpy(n, -1.0f, velocity, params); /* p -= v          */
}
