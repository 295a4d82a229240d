/* Hidden tests of exercise 1.2, gradient_check: the index of the worst parameter when one
 * known gradient is wrong, the floor 1e-3 of the relative error, a batch smaller than the
 * model's buffers, and a deeper model at batch 1 (not in the students' handout). */
#include <math.h>

#include "ch1.h"
#include "helpers.h"
#include "rng.h"

enum { F = 4, C = 3 };

/* A model F -> hidden -> C on dev with room for max_batch samples; the batch of B samples
 * (features 2 N(0,1), labels cycling) is set from seed. */
static void make_model(Model *m, const Device *dev, const int *hidden, int n_hidden,
                       int max_batch, int B, uint64_t seed)
{
    char err[ERR_LEN];
    cr_assert(model_init(m, dev, F, hidden, n_hidden, C, max_batch, seed, err) == 0, "%s", err);
    float *x = xcalloc((size_t)B * F, 4);
    int32_t *y = xcalloc((size_t)B, 4);
    Rng r;
    rng_seed(&r, seed, 7);
    for (int i = 0; i < B * F; i++)
        x[i] = 2 * rng_normal(&r);
    for (int i = 0; i < B; i++)
        y[i] = (int32_t)((i * 2 + 1) % C);
    model_set_batch(m, x, y, B);
    free(x);
    free(y);
}

/* The output layer's bias gradient, wrong by +0.5 in its second entry only. */
static void (*real_bias_backward)(float *, const float *, int, int);
static void bias_backward_off(float *dbias, const float *dy, int rows, int cols)
{
    real_bias_backward(dbias, dy, rows, cols);
    if (cols == C)
        dbias[1] += 0.5f;
}

Test(hidden_grad_check, worst_is_the_one_wrong_gradient)
{
    enum { B = 4 };
    int hidden[] = {5, 6};
    /* The true gradient of that bias entry, from the book's backpropagation. */
    Model good;
    make_model(&good, device_cpu(), hidden, 2, B, B, 31);
    model_forward(&good, B);
    model_loss(&good, B, true);
    model_backward(&good, B);
    size_t target = good.layer[good.n_layers - 1].b + 1;
    float g;
    good.dev->download(&g, good.grads + target, 4);
    model_free(&good);
    double gap = fabs(g) + fabs(g + 0.5);
    double want = 0.5 / (gap > 1e-3 ? gap : 1e-3);

    Device broken = *device_cpu();
    real_bias_backward = broken.bias_backward;
    broken.bias_backward = bias_backward_off;
    Model m;
    make_model(&m, &broken, hidden, 2, B, B, 31);
    float *before = xcalloc(m.n_params, 4), *after = xcalloc(m.n_params, 4);
    broken.download(before, m.params, m.n_params * 4);
    size_t worst = SIZE_MAX;
    double err = gradient_check(&m, B, 1e-3f, &worst);
    broken.download(after, m.params, m.n_params * 4);
    cr_assert(worst == target, "4-5-6-3 model, the gradient of parameter %zu (the output "
              "bias's second entry) is off by 0.5: worst = %zu, expected %zu", target, worst,
              target);
    cr_assert(fabs(err - want) < 0.02, "4-5-6-3 model, parameter %zu's gradient %g off by 0.5: "
              "largest error %g, expected %g", target, g, err, want);
    cr_assert(memcmp(before, after, m.n_params * 4) == 0, "the parameters changed");
    free(before);
    free(after);
    model_free(&m);
}

/* A hidden unit that never fires (bias -100): its bias's true gradient is exactly 0 and so
 * is its finite difference. A gradient 1e-4 off there is weighed against the floor 1e-3 of
 * the contract: 1e-4 / max(1e-3, 1e-4 + 0) = 0.1, not 1e-4 / 1e-4 = 1. */
static void bias_backward_tiny(float *dbias, const float *dy, int rows, int cols)
{
    real_bias_backward(dbias, dy, rows, cols);
    if (cols == 5)
        dbias[0] += 1e-4f;
}

Test(hidden_grad_check, a_tiny_gradient_is_weighed_against_the_floor)
{
    enum { B = 4 };
    int hidden[] = {5};
    Device broken = *device_cpu();
    real_bias_backward = broken.bias_backward;
    broken.bias_backward = bias_backward_tiny;
    Model m;
    make_model(&m, &broken, hidden, 1, B, B, 34);
    size_t dead = m.layer[0].b;
    float minus_100 = -100.0f;
    broken.upload(m.params + dead, &minus_100, 4);
    size_t worst = SIZE_MAX;
    double err = gradient_check(&m, B, 1e-3f, &worst);
    cr_assert(fabs(err - 0.1) < 0.01, "4-5-3 model, hidden unit 0 never fires, its bias's "
              "gradient 1e-4 instead of 0: largest error %g, expected 0.1 = 1e-4 / max(1e-3, "
              "1e-4)", err);
    cr_assert(worst == dead, "4-5-3 model, the bias of the dead unit (parameter %zu) has the "
              "largest error, yet worst = %zu", dead, worst);
    model_free(&m);
}

/* The softmax sees how many rows the check works on: it must be B, never the buffers'. */
static void (*real_softmax)(const float *, const int *, int, int, float *, float *);
static int most_rows;
static void softmax_counting(const float *logits, const int *labels, int rows, int cols,
                             float *dlogits, float *stats)
{
    most_rows = rows > most_rows ? rows : most_rows;
    real_softmax(logits, labels, rows, cols, dlogits, stats);
}

Test(hidden_grad_check, a_batch_smaller_than_the_buffers)
{
    enum { MAX_B = 8, B = 3 };
    int hidden[] = {6};
    Device counting = *device_cpu();
    real_softmax = counting.softmax_xent;
    counting.softmax_xent = softmax_counting;
    Model m;
    /* A full batch of 8 first, so that the rows past the 3 of the batch hold other samples. */
    make_model(&m, &counting, hidden, 1, MAX_B, MAX_B, 32);
    float x[B * F];
    int32_t y[B] = {0, 2, 1};
    Rng r;
    rng_seed(&r, 32, 9);
    for (int i = 0; i < B * F; i++)
        x[i] = 2 * rng_normal(&r);
    model_set_batch(&m, x, y, B);
    most_rows = 0;
    size_t worst = SIZE_MAX;
    double err = gradient_check(&m, B, 1e-3f, &worst);
    cr_assert(err >= 0 && err < 1e-2, "a correct model, batch of 3 in buffers for 8: largest "
              "relative error %g, expected < 0.01", err);
    cr_assert(worst < m.n_params, "worst index %zu, the model has %zu parameters", worst,
              m.n_params);
    cr_assert(most_rows == B, "batch of 3 in buffers for 8: the loss was computed over %d "
              "rows, expected 3", most_rows);
    model_free(&m);
}

Test(hidden_grad_check, a_deeper_model_at_batch_one)
{
    int hidden[] = {5, 4, 5};
    const Device *dev = device_cpu();
    Model m;
    make_model(&m, dev, hidden, 3, 1, 1, 33);
    float *before = xcalloc(m.n_params, 4), *after = xcalloc(m.n_params, 4);
    dev->download(before, m.params, m.n_params * 4);
    size_t worst = SIZE_MAX;
    double err = gradient_check(&m, 1, 1e-3f, &worst);
    dev->download(after, m.params, m.n_params * 4);
    cr_assert(err >= 0 && err < 1e-2, "a correct 4-5-4-5-3 model, batch 1: largest relative "
              "error %g, expected < 0.01", err);
    cr_assert(worst < m.n_params, "worst index %zu, the model has %zu parameters", worst,
              m.n_params);
    for (size_t i = 0; i < m.n_params; i++)
        cr_assert(before[i] == after[i], "4-5-4-5-3 model: parameter %zu was %.9g before the "
                  "check and %.9g after", i, before[i], after[i]);
    free(before);
    free(after);
    model_free(&m);
}
