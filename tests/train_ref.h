/* The reference for the data-parallel equivalence tests (chapters 3 and 5): one device
 * trained with the global batch, and the distance between two sets of weights. */
#ifndef DPS_TEST_TRAIN_REF_H
#define DPS_TEST_TRAIN_REF_H

#include <math.h>

#include "helpers.h"
#include "model.h"
#include "train.h"

/* The weights of one device (the device under test) trained on `train` with batch `batch`
 * for `epochs` epochs: one hidden layer of `hidden`, seed 7, as the tests' ranks do. */
static inline void single_device_weights(const Dataset *train, const Dataset *test, int hidden,
                                         int batch, int epochs, float lr, float *params,
                                         size_t n)
{
    char err[ERR_LEN];
    Model m;
    const Device *dev = test_device();
    int widths[1] = {hidden};
    cr_assert(model_init(&m, dev, train->features, widths, 1, train->classes, batch, 7, err) ==
              0, "%s", err);
    cr_assert(m.n_params == n);
    TrainConfig cfg = {.batch_size = batch, .epochs = epochs, .lr = lr, .seed = 7, .quiet = true};
    TrainResult res;
    cr_assert(train_run(&cfg, &m, train, test, NULL, &res, err) == 0, "%s", err);
    dev->download(params, m.params, n * sizeof(float));
    model_free(&m);
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

#endif
