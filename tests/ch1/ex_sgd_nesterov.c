/* Tests of exercise 1.3, sgd_nesterov (on the device under test). */
#include <math.h>

#include "ch1.h"
#include "helpers.h"

/* Run `steps` steps on device buffers with gradient g[s] at step s, the velocity starting at
 * zero; return params. */
static void run(size_t n, int steps, float lr, float mu, const float *g, const float *p0,
                float *p)
{
    const Device *dev = test_device();
    float *dg = dev->alloc(n * 4), *dv = dev->alloc(n * 4), *dp = dev->alloc(n * 4);
    dev->upload(dp, p0, n * 4);
    for (int s = 0; s < steps; s++) {
        dev->upload(dg, g + (size_t)s * n, n * 4);
        sgd_nesterov(dev, n, lr, mu, dg, dv, dp);
    }
    dev->download(p, dp, n * 4);
    dev->release(dg);
    dev->release(dv);
    dev->release(dp);
}

Test(ex_sgd_nesterov, three_steps_by_hand)
{
    /* lr 0.5, mu 0.5, p0 = 1, g = 1, 2, -1; the look-ahead uses the new velocity:
     * v1 = 1                 p1 = 1 - 0.5 (1 + 0.5)          = 0.25
     * v2 = 0.5 + 2   = 2.5   p2 = 0.25 - 0.5 (2 + 1.25)      = -1.375
     * v3 = 1.25 - 1  = 0.25  p3 = -1.375 - 0.5 (-1 + 0.125)  = -0.9375
     * (Heavy-ball momentum, p -= lr v, would give 0.5, -0.75, -0.875.) */
    const float g[3] = {1, 2, -1}, p0[1] = {1}, want[3] = {0.25f, -1.375f, -0.9375f};
    for (int k = 1; k <= 3; k++) {
        float p[1];
        run(1, k, 0.5f, 0.5f, g, p0, p);
        cr_assert(
            fabsf(p[0] - want[k - 1]) < 1e-6f,
            "lr 0.5, mu 0.5, p0 = 1, g = 1, 2, -1: after %d step(s) p = %.6f, expected %g", k,
            p[0], want[k - 1]);
    }
}

/* With mu = 0 the velocity is the last gradient and the look-ahead term vanishes: two steps
 * of plain SGD, the first one's gradient forgotten by the second. */
Test(ex_sgd_nesterov, mu_zero_is_plain_sgd)
{
    const float g[8] = {1, -2, 3, 0.5f, 4, 1, -1, 2}, p0[4] = {0, 1, 2, 3};
    float p[4];
    run(4, 2, 0.1f, 0.0f, g, p0, p);
    for (int i = 0; i < 4; i++) {
        double want = p0[i] - 0.1 * g[i] - 0.1 * g[4 + i];
        cr_assert(fabs(p[i] - want) < 1e-5 * (1 + fabs(want)),
                  "mu 0, lr 0.1, 2 steps: p[%d] = %g, expected %g", i, p[i], want);
    }
}

/* f(x) = h x^2 / 2 on 1000 coordinates with different curvatures h; the gradient at step s
 * is computed from the recursion v = mu v + g, x -= lr (g + mu v) in double, then compared. */
Test(ex_sgd_nesterov, fifty_steps_on_a_quadratic)
{
    enum { N = 1000, STEPS = 50 };
    const float lr = 0.05f, mu = 0.8f;
    float *g = xcalloc((size_t)N * STEPS, 4), p0[N], p[N];
    double x[N], v[N] = {0};
    for (int i = 0; i < N; i++)
        x[i] = p0[i] = (float)(1 + i % 7);
    for (int s = 0; s < STEPS; s++)
        for (int i = 0; i < N; i++) {
            double h = 0.5 + (i % 5), gi = (float)(h * x[i]);
            g[(size_t)s * N + i] = (float)gi;
            v[i] = mu * v[i] + gi;
            x[i] -= lr * (gi + mu * v[i]);
        }
    run(N, STEPS, lr, mu, g, p0, p);
    for (int i = 0; i < N; i++)
        cr_assert(fabs(p[i] - x[i]) < 1e-4 * (1 + fabs(x[i])),
                  "lr 0.05, mu 0.8, 50 steps: coordinate %d is %g, expected %g", i, p[i], x[i]);
    free(g);
}
