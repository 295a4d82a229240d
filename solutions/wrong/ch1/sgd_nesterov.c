/* Wrong on purpose: the learning rate is folded into the velocity (v = mu v + lr g, then
 * p -= lr g + mu v), the convention of Sutskever et al. and of Keras; it matches PyTorch's
 * v = mu v + g, p -= lr (g + mu v) only while lr never changes and v starts at zero, and the
 * velocity it leaves is lr times the true one.
 * Fails: hidden_sgd_nesterov::the_velocity_buffer_holds_mu_v_plus_g
 * Fails: hidden_sgd_nesterov::a_learning_rate_that_changes_every_step
 * Fails: hidden_sgd_nesterov::one_float_and_an_odd_large_count
 */
/* Otherwise a copy of the reference solution of exercise 1.3. */
#include "ch1.h"

void sgd_nesterov(const Device *dev, size_t n, float lr, float mu, const float *grads,
                  float *velocity, float *params)
{
    dev->scale(n, mu, velocity);         /* v = mu v        */
    dev->axpy(n, lr, grads, velocity);   /* v = mu v + lr g */
    dev->axpy(n, -lr, grads, params);    /* p -= lr g       */
    dev->axpy(n, -mu, velocity, params); /* p -= mu v       */
}
