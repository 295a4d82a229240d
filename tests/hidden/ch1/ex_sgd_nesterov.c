/* Hidden tests of exercise 1.3, sgd_nesterov: the velocity buffer itself, a learning rate
 * that changes between steps, and sizes of one float and of an odd large count (not in the
 * students' handout). References are the recursion v = mu v + g, p -= lr (g + mu v) in double,
 * with the new v in the look-ahead, as PyTorch's SGD(nesterov=True) does it. */
#include <math.h>

#include "ch1.h"
#include "helpers.h"

/* Run `steps` steps on device buffers from p0 and v0, with gradient g[s] and learning rate
 * lr[s] at step s; leave the parameters in p and the velocity in v. */
static void run(size_t n, int steps, const float *lr, float mu, const float *g, const float *p0,
                const float *v0, float *p, float *v)
{
    const Device *dev = test_device();
    float *dg = dev->alloc(n * 4), *dv = dev->alloc(n * 4), *dp = dev->alloc(n * 4);
    dev->upload(dp, p0, n * 4);
    dev->upload(dv, v0, n * 4);
    for (int s = 0; s < steps; s++) {
        dev->upload(dg, g + (size_t)s * n, n * 4);
        sgd_nesterov(dev, n, lr[s], mu, dg, dv, dp);
    }
    dev->download(p, dp, n * 4);
    dev->download(v, dv, n * 4);
    dev->release(dg);
    dev->release(dv);
    dev->release(dp);
}

/* The same steps in double. */
static void reference(size_t n, int steps, const float *lr, float mu, const float *g,
                      const float *p0, const float *v0, double *p, double *v)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = p0[i];
        v[i] = v0[i];
    }
    for (int s = 0; s < steps; s++)
        for (size_t i = 0; i < n; i++) {
            double gi = g[(size_t)s * n + i];
            v[i] = (double)mu * v[i] + gi;
            p[i] -= (double)lr[s] * (gi + (double)mu * v[i]);
        }
}

static void compare(const char *what, size_t n, const float *got, const double *want)
{
    for (size_t i = 0; i < n; i++)
        cr_assert(fabs(got[i] - want[i]) <= 1e-5 * (1 + fabs(want[i])),
                  "%s: element %zu of %zu is %.7g, expected %.7g", what, i, n, got[i], want[i]);
}

/* A velocity that starts non-zero (a run resumed from a checkpoint): after two steps it
 * must hold mu (mu v0 + g1) + g2, a sum of gradients, not of lr times them; the parameters
 * must take the look-ahead with that new velocity. */
Test(hidden_sgd_nesterov, the_velocity_buffer_holds_mu_v_plus_g)
{
    enum { N = 5, STEPS = 2 };
    const float lr[STEPS] = {0.25f, 0.25f}, mu = 0.5f;
    const float g[STEPS * N] = {1, -2, 0.5f, 4, 0, 2, 2, -1, 0.25f, 3};
    const float p0[N] = {1, 2, 3, 4, 5}, v0[N] = {4, -4, 1, 0, 8};
    float p[N], v[N];
    double wp[N], wv[N];
    run(N, STEPS, lr, mu, g, p0, v0, p, v);
    reference(N, STEPS, lr, mu, g, p0, v0, wp, wv);
    compare("2 steps from a non-zero velocity, lr 0.25, mu 0.5: velocity", N, v, wv);
    compare("2 steps from a non-zero velocity, lr 0.25, mu 0.5: parameters", N, p, wp);
}

/* A schedule: lr changes every step. The learning rate multiplies g + mu v at the step it is
 * used, so keeping lr inside the velocity (v = mu v + lr g, the convention of some papers)
 * gives other parameters. */
Test(hidden_sgd_nesterov, a_learning_rate_that_changes_every_step)
{
    enum { N = 3, STEPS = 4 };
    const float lr[STEPS] = {0.1f, 0.4f, 0.05f, 0.2f}, mu = 0.9f;
    const float g[STEPS * N] = {1, 2, 3, -1, 0.5f, 2, 2, 2, -2, 0.5f, -3, 1};
    const float p0[N] = {0, 1, -1}, v0[N] = {0, 0, 0};
    float p[N], v[N];
    double wp[N], wv[N];
    run(N, STEPS, lr, mu, g, p0, v0, p, v);
    reference(N, STEPS, lr, mu, g, p0, v0, wp, wv);
    compare("lr 0.1, 0.4, 0.05, 0.2, mu 0.9: parameters", N, p, wp);
    compare("lr 0.1, 0.4, 0.05, 0.2, mu 0.9: velocity", N, v, wv);
}

/* n = 1, and n = 100003 (odd, not a multiple of any vector width), every element its own
 * gradient; three steps each. */
Test(hidden_sgd_nesterov, one_float_and_an_odd_large_count)
{
    static const size_t sizes[] = {1, 100003};
    enum { STEPS = 3 };
    const float lr[STEPS] = {0.05f, 0.05f, 0.05f}, mu = 0.75f;
    for (int c = 0; c < 2; c++) {
        size_t n = sizes[c];
        float *g = xcalloc(n * STEPS, 4), *p0 = xcalloc(n, 4), *v0 = xcalloc(n, 4);
        float *p = xcalloc(n, 4), *v = xcalloc(n, 4);
        double *wp = xcalloc(n, 8), *wv = xcalloc(n, 8);
        for (size_t i = 0; i < n; i++) {
            p0[i] = (float)(i % 13) - 6;
            for (int s = 0; s < STEPS; s++)
                g[(size_t)s * n + i] = (float)((i * 7 + (size_t)s * 3) % 11) - 5.5f;
        }
        run(n, STEPS, lr, mu, g, p0, v0, p, v);
        reference(n, STEPS, lr, mu, g, p0, v0, wp, wv);
        char what[64];
        snprintf(what, sizeof what, "n = %zu, 3 steps: parameters", n);
        compare(what, n, p, wp);
        snprintf(what, sizeof what, "n = %zu, 3 steps: velocity", n);
        compare(what, n, v, wv);
        free(g);
        free(p0);
        free(v0);
        free(p);
        free(v);
        free(wp);
        free(wv);
    }
}
