/* Chapter 1: every parameter group's gradient against central finite differences. */
#include <math.h>

#include "helpers.h"
#include "model.h"
#include "rng.h"

enum { F = 5, C = 3, B = 4 };

/* The mean loss of the batch already on the device, at the current parameters. */
static double loss_at(Model *m)
{
    float st[2];
    m->dev->zero(m->stats, sizeof st);
    model_forward(m, B);
    model_loss(m, B, false);
    m->dev->download(st, m->stats, sizeof st);
    return st[0] / B;
}

static void check_model(const int *hidden, int n_hidden, uint64_t seed)
{
    const Device *dev = test_device();
    char err[ERR_LEN];
    Model m;
    cr_assert(model_init(&m, dev, F, hidden, n_hidden, C, B, seed, err) == 0, "%s", err);
    float x[B * F];
    int32_t y[B] = {0, 2, 1, 2};
    Rng r;
    rng_seed(&r, seed, 77);
    for (int i = 0; i < B * F; i++)
        x[i] = 2 * rng_normal(&r);
    model_set_batch(&m, x, y, B);

    /* Analytic gradients. */
    model_forward(&m, B);
    model_loss(&m, B, true);
    model_backward(&m, B);
    float *g = xcalloc(m.n_params, sizeof *g), *p = xcalloc(m.n_params, sizeof *p);
    dev->download(g, m.grads, m.n_params * sizeof *g);
    dev->download(p, m.params, m.n_params * sizeof *p);

    /* Central differences, parameter by parameter, group by group. */
    const float eps = 1e-3f;
    for (int l = 0; l < m.n_layers; l++) {
        const Layer *ly = &m.layer[l];
        struct { const char *what; size_t at, n; } groups[2] = {
            {"W", ly->w, (size_t)ly->in * ly->out}, {"b", ly->b, (size_t)ly->out}};
        for (int gi = 0; gi < 2; gi++) {
            double largest = 0;
            for (size_t k = 0; k < groups[gi].n; k++) {
                size_t i = groups[gi].at + k;
                float saved = p[i];
                p[i] = saved + eps;
                dev->upload(m.params, p, m.n_params * sizeof *p);
                double up = loss_at(&m);
                p[i] = saved - eps;
                dev->upload(m.params, p, m.n_params * sizeof *p);
                double down = loss_at(&m);
                p[i] = saved;
                double numeric = (up - down) / (2.0 * eps);
                cr_expect(fabs(g[i] - numeric) <= 1e-3 + 1e-2 * fabs(numeric),
                          "layer %d %s[%zu]: backward gives %.6f, finite differences %.6f "
                          "(model with %d hidden layers, seed %llu)",
                          l, groups[gi].what, k, g[i], numeric, n_hidden,
                          (unsigned long long)seed);
                if (fabs(numeric) > largest)
                    largest = fabs(numeric);
            }
            /* A group whose gradient is all zero would pass vacuously. */
            cr_expect(largest > 1e-3, "layer %d %s: gradient is ~0, the check proves nothing", l,
                      groups[gi].what);
        }
    }
    free(g);
    free(p);
    model_free(&m);
}

Test(ch1_gradients, two_hidden_layers)
{
    int hidden[] = {4, 6};
    check_model(hidden, 2, 3);
}

Test(ch1_gradients, one_hidden_layer)
{
    int hidden[] = {7};
    check_model(hidden, 1, 11);
}

Test(ch1_gradients, no_hidden_layer)
{
    check_model(NULL, 0, 5);
}

/* Backward overwrites the gradients (the book has no zero_grad): two backward passes over
 * the same batch give the same bits, not twice the gradient. */
Test(ch1_gradients, backward_overwrites_not_accumulates)
{
    const Device *dev = test_device();
    char err[ERR_LEN];
    Model m;
    int hidden[] = {6};
    cr_assert(model_init(&m, dev, F, hidden, 1, C, B, 9, err) == 0, "%s", err);
    float x[B * F];
    int32_t y[B] = {1, 0, 2, 1};
    for (int i = 0; i < B * F; i++)
        x[i] = (float)((i * 7) % 11) / 5.0f - 1.0f;
    model_set_batch(&m, x, y, B);
    float *g1 = xcalloc(m.n_params, sizeof *g1), *g2 = xcalloc(m.n_params, sizeof *g2);
    for (int pass = 0; pass < 2; pass++) {
        model_forward(&m, B);
        model_loss(&m, B, true);
        model_backward(&m, B);
        dev->download(pass ? g2 : g1, m.grads, m.n_params * sizeof *g1);
    }
    for (size_t i = 0; i < m.n_params; i++)
        cr_assert(g1[i] == g2[i], "grads[%zu]: first backward %g, second %g: gradients accumulate",
                  i, g1[i], g2[i]);
    free(g1);
    free(g2);
    model_free(&m);
}
