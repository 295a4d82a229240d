/* The references of the data-parallel equivalence tests (chapters 3 and 5 to 8): one device
 * trained with the global batch, one device's count of right answers with given weights,
 * the distance between two sets of weights, and a run's weights checked against one
 * device's. The references run on the device under test in a child of the test's own
 * (on_test_device), never in the test's process, which forks ranks. */
#ifndef DPS_TEST_TRAIN_REF_H
#define DPS_TEST_TRAIN_REF_H

#include <math.h>

#include "helpers.h"
#include "model.h"
#include "train.h"

/* One device trained on `train` with batch `batch` for `epochs` epochs at `lr` with plain
 * SGD, hidden layers `hidden[0..n_hidden)`, seeded with `seed`, as the tests' ranks are. */
typedef struct OneDevice {
    const Dataset *train, *test;
    const int *hidden;
    int n_hidden, batch, epochs;
    float lr;
    uint64_t seed;
    size_t n; /* parameters the model must have */
} OneDevice;

/* The model of @p o on @p dev: 0, or -1 with @p err (freed) when it cannot be made or has
 * not o->n parameters. */
static int one_device_model(const Device *dev, const OneDevice *o, Model *m, char *err)
{
    if (model_init(m, dev, o->train->features, o->hidden, o->n_hidden, o->train->classes,
                   o->batch, o->seed, err))
        return -1;
    if (m->n_params == o->n)
        return 0;
    error_set(err, "%zu parameters, expected %zu", m->n_params, o->n);
    model_free(m);
    return -1;
}

static int one_device_train(const Device *dev, void *arg, void *out, char *err)
{
    const OneDevice *o = arg;
    Model m;
    if (one_device_model(dev, o, &m, err))
        return -1;
    TrainConfig cfg = {.batch_size = o->batch, .epochs = o->epochs, .lr = o->lr,
                       .seed = o->seed, .quiet = true};
    TrainResult res;
    int rc = train_run(&cfg, &m, o->train, o->test, NULL, &res, err);
    if (rc == 0)
        dev->download(out, m.params, o->n * sizeof(float));
    model_free(&m);
    return rc;
}

/* The weights of one device trained as @p o says, into params (o->n floats). */
static inline void one_device_weights(const OneDevice *o, float *params)
{
    on_test_device(one_device_train, (void *)o, params, o->n * sizeof(float));
}

/* The weights of one device (the device under test) trained on `train` with batch `batch`
 * for `epochs` epochs: one hidden layer of `hidden`, seed 7, as the tests' ranks do. */
static inline void single_device_weights(const Dataset *train, const Dataset *test, int hidden,
                                         int batch, int epochs, float lr, float *params,
                                         size_t n)
{
    int widths[1] = {hidden};
    OneDevice o = {.train = train, .test = test, .hidden = widths, .n_hidden = 1,
                   .batch = batch, .epochs = epochs, .lr = lr, .seed = 7, .n = n};
    one_device_weights(&o, params);
}

/* What one_device_right() hands its child. */
typedef struct Counting {
    const OneDevice *shape; /* the model's shape (train: its widths), batch and seed */
    const float *weights;   /* shape->n floats */
} Counting;

static int count_right(const Device *dev, void *arg, void *out, char *err)
{
    const Counting *k = arg;
    const OneDevice *o = k->shape;
    Model m;
    if (one_device_model(dev, o, &m, err))
        return -1;
    double right = 0;
    m.dev->upload(m.params, k->weights, o->n * sizeof(float));
    int rc = evaluate(&m, NULL, o->test, 1, 0, &right, err);
    memcpy(out, &right, sizeof right);
    model_free(&m);
    return rc;
}

/* How many samples of o->test one device classifies right with @p weights. */
static inline double one_device_right(const OneDevice *o, const float *weights)
{
    Counting k = {.shape = o, .weights = weights};
    double right = 0;
    on_test_device(count_right, &k, &right, sizeof right);
    return right;
}

/* The largest |a[i] - b[i]|, relative to max(1, the largest |b[i]|). */
static inline double weight_gap(const float *a, const float *b, size_t n)
{
    double worst = 0, scale = 0;
    for (size_t i = 0; i < n; i++) {
        worst = fmax(worst, fabs(a[i] - b[i]));
        scale = fmax(scale, fabs(b[i]));
    }
    return worst / fmax(1, scale);
}

/* The weights out (n floats) that N ranks left after `epochs` epochs are within 1e-5
 * (relative) of one device's, trained on train with the global batch; the test fails if
 * not. */
static inline void expect_one_device(const Dataset *train, const Dataset *test, float lr,
                                     const float *out, size_t n, int N, int global_batch,
                                     int epochs)
{
    float *ref = xcalloc(n, sizeof *ref);
    single_device_weights(train, test, 24, global_batch, epochs, lr, ref, n);
    double worst = weight_gap(out, ref, n);
    cr_assert(worst <= 1e-5,
              "N = %d, %d epoch(s): the weights differ by up to %g (relative) "
              "from one device's with batch %d",
              N, epochs, worst, global_batch);
    free(ref);
}

#endif
