/* Tests of exercise 1.2, gradient_check. */
#include <math.h>

#include "ch1.h"
#include "helpers.h"
#include "rng.h"

enum { F = 5, C = 3, B = 4 };

static void make_model(Model *m, const Device *dev)
{
    char err[ERR_LEN];
    int hidden[] = {6};
    cr_assert(model_init(m, dev, F, hidden, 1, C, B, 21, err) == 0, "%s", err);
    float x[B * F];
    int32_t y[B] = {2, 0, 1, 1};
    Rng r;
    rng_seed(&r, 21, 1);
    for (int i = 0; i < B * F; i++)
        x[i] = 2 * rng_normal(&r);
    model_set_batch(m, x, y, B);
}

Test(ex_grad_check, a_correct_model_passes_and_parameters_are_restored)
{
    const Device *dev = device_cpu();
    Model m;
    make_model(&m, dev);
    float *before = xcalloc(m.n_params, 4), *after = xcalloc(m.n_params, 4);
    dev->download(before, m.params, m.n_params * 4);
    size_t worst = SIZE_MAX;
    double err = gradient_check(&m, B, 1e-3f, &worst);
    dev->download(after, m.params, m.n_params * 4);
    cr_assert(err >= 0 && err < 1e-2, "a correct model: largest relative error %g, expected < 0.01",
              err);
    cr_assert(worst < m.n_params, "worst index %zu, the model has %zu parameters", worst, m.n_params);
    cr_assert(memcmp(before, after, m.n_params * 4) == 0, "the parameters changed");
    free(before);
    free(after);
    model_free(&m);
}

static void relu_backward_forgotten(float *dy, const float *y, size_t n)
{
    (void)dy, (void)y, (void)n;
}

Test(ex_grad_check, a_missing_relu_mask_is_caught_in_the_first_layer)
{
    Device broken = *device_cpu();
    broken.relu_backward = relu_backward_forgotten;
    Model m;
    make_model(&m, &broken);
    size_t worst = SIZE_MAX;
    double err = gradient_check(&m, B, 1e-3f, &worst);
    cr_assert(err > 0.1, "relu_backward does nothing, yet the largest error is %g (expected > 0.1)",
              err);
    cr_assert(worst < m.layer[1].w, "worst parameter %zu is not in the first layer [0, %zu)", worst,
              m.layer[1].w);
    model_free(&m);
}

/* The softmax's gradient doubled: every a = 2n, so |a - n| / (|a| + |n|) = 1/3. */
static void (*real_softmax)(const float *, const int *, int, int, float *, float *);
static void softmax_doubled(const float *logits, const int *labels, int rows, int cols,
                            float *dlogits, float *stats)
{
    real_softmax(logits, labels, rows, cols, dlogits, stats);
    if (dlogits)
        for (int i = 0; i < rows * cols; i++)
            dlogits[i] *= 2;
}

Test(ex_grad_check, a_doubled_gradient_gives_one_third)
{
    Device broken = *device_cpu();
    real_softmax = broken.softmax_xent;
    broken.softmax_xent = softmax_doubled;
    Model m;
    make_model(&m, &broken);
    size_t worst;
    double err = gradient_check(&m, B, 1e-3f, &worst);
    cr_assert(fabs(err - 1.0 / 3) < 0.03, "gradients doubled: largest error %g, expected 1/3", err);
    model_free(&m);
}
