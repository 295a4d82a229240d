/* Tests of exercise 1.3, sgd_momentum (on the device under test). */
#include <math.h>

#include "ch1.h"
#include "helpers.h"

/* Run `steps` steps on device buffers with gradient g[s] at step s; return params. */
static void run(size_t n, int steps, float lr, float mu, const float *g, const float *p0,
                float *p)
{
    const Device *dev = test_device();
    float *dg = dev->alloc(n * 4), *dv = dev->alloc(n * 4), *dp = dev->alloc(n * 4);
    dev->upload(dp, p0, n * 4);
    for (int s = 0; s < steps; s++) {
        dev->upload(dg, g + (size_t)s * n, n * 4);
        sgd_momentum(dev, n, lr, mu, dg, dv, dp);
    }
    dev->download(p, dp, n * 4);
    dev->release(dg);
    dev->release(dv);
    dev->release(dp);
}

Test(ex_sgd_momentum, three_steps_by_hand)
{
    /* lr 0.5, mu 0.9, p0 = 1, g = 1, 2, -1:
     * v1 = 1          p1 = 1 - 0.5        = 0.5
     * v2 = 0.9 + 2    = 2.9    p2 = 0.5 - 1.45   = -0.95
     * v3 = 2.61 - 1   = 1.61   p3 = -0.95 - 0.805 = -1.755 */
    const float g[3] = {1, 2, -1}, p0[1] = {1};
    float p[1];
    run(1, 3, 0.5f, 0.9f, g, p0, p);
    cr_assert(fabsf(p[0] - -1.755f) < 1e-5f, "after 3 steps p = %.6f, expected -1.755", p[0]);
}

Test(ex_sgd_momentum, mu_zero_is_plain_sgd)
{
    const float g[4] = {1, -2, 3, 0.5f}, p0[4] = {0, 1, 2, 3};
    float p[4];
    run(4, 1, 0.1f, 0.0f, g, p0, p);
    for (int i = 0; i < 4; i++)
        cr_assert(fabsf(p[i] - (p0[i] - 0.1f * g[i])) < 1e-6f, "p[%d] = %g, expected %g", i, p[i],
                  p0[i] - 0.1f * g[i]);
}

/* f(x) = h x^2 / 2 on 1000 coordinates with different curvatures h; the gradient at step s
 * is computed from the recursion in double, then compared. */
Test(ex_sgd_momentum, fifty_steps_on_a_quadratic)
{
    enum { N = 1000, STEPS = 50 };
    const float lr = 0.05f, mu = 0.8f;
    float *g = xcalloc((size_t)N * STEPS, 4), p0[N], p[N];
    double x[N], v[N] = {0};
    for (int i = 0; i < N; i++)
        x[i] = p0[i] = (float)(1 + i % 7);
    for (int s = 0; s < STEPS; s++)
        for (int i = 0; i < N; i++) {
            double h = 0.5 + (i % 5);
            g[(size_t)s * N + i] = (float)(h * x[i]);
            v[i] = mu * v[i] + (float)(h * x[i]);
            x[i] -= lr * v[i];
        }
    run(N, STEPS, lr, mu, g, p0, p);
    for (int i = 0; i < N; i++)
        cr_assert(fabs(p[i] - x[i]) < 1e-4 * (1 + fabs(x[i])), "coordinate %d: %g, expected %g", i,
                  p[i], x[i]);
    free(g);
}
