/* Chapter 1: softmax cross-entropy on huge and tiny logits, against hand-worked values. */
#include <math.h>

#include "helpers.h"

enum { ROWS = 6, COLS = 3 };

Test(ch1_softmax, extreme_logits_stay_finite_and_right)
{
    const Device *dev = test_device();
    const float logits[ROWS][COLS] = {
        {1000, 0, -1000},  /* label 0: certain and right  -> loss 0     */
        {1000, 0, -1000},  /* label 2: certain and wrong  -> loss 2000  */
        {-1e4, -1e4, -1e4},/* all tiny and equal          -> loss log 3 */
        {1e30f, 0, 0},     /* huge: exp overflows unless shifted         */
        {0, 0, 0},         /* uniform                     -> loss log 3  */
        {-100, -101, -200},/* would underflow to log(0) unless shifted   */
    };
    const int labels[ROWS] = {0, 2, 1, 1, 2, 1};
    /* Hand-worked: loss = logsumexp(z) - z_y. */
    const double want_loss[ROWS] = {0, 2000, log(3.0), 1e30, log(3.0),
                                    -100 + log(1 + exp(-1.0)) + 101};
    float *dl = dev->alloc(sizeof logits), *dz = dev->alloc(sizeof logits);
    int *dy = dev->alloc(sizeof labels);
    float *stats = dev->alloc(2 * sizeof(float));
    dev->upload(dl, logits, sizeof logits);
    dev->upload(dy, labels, sizeof labels);
    for (int i = 0; i < ROWS; i++) {
        float st[2] = {0, 0}, grad[COLS];
        dev->zero(stats, sizeof st);
        dev->softmax_xent(dl + i * COLS, dy + i, 1, COLS, dz + i * COLS, stats);
        dev->download(st, stats, sizeof st);
        dev->download(grad, dz + i * COLS, sizeof grad);
        cr_assert(isfinite(st[0]), "row %d: loss is %f", i, st[0]);
        cr_assert(fabs(st[0] - want_loss[i]) <= 1e-5 * (1 + fabs(want_loss[i])),
                  "row %d: loss %.7g, expected %.7g", i, st[0], want_loss[i]);
        double sum = 0;
        for (int j = 0; j < COLS; j++) {
            cr_assert(isfinite(grad[j]), "row %d: gradient[%d] is %f", i, j, grad[j]);
            cr_assert(grad[j] >= -1 && grad[j] <= 1, "row %d: gradient[%d] = %f", i, j, grad[j]);
            sum += grad[j];
        }
        cr_assert(fabs(sum) < 1e-6, "row %d: gradient sums to %g, not 0", i, sum);
    }
    /* Certain and right: p = onehot, gradient 0; certain and wrong: p - onehot. */
    float g[COLS];
    dev->download(g, dz + 1 * COLS, sizeof g);
    cr_assert(g[0] == 1 && g[1] == 0 && g[2] == -1, "row 1: gradient (%g %g %g), expected (1 0 -1)",
              g[0], g[1], g[2]);
    dev->release(dl);
    dev->release(dz);
    dev->release(dy);
    dev->release(stats);
}

Test(ch1_softmax, batch_mean_counts_and_ties)
{
    const Device *dev = test_device();
    /* Two rows: the gradient is divided by the batch size; a tie goes to the first index. */
    const float logits[2 * COLS] = {2, 2, 0, 0, 1, 5};
    const int labels[2] = {0, 2};
    float *dl = dev->alloc(sizeof logits), *dz = dev->alloc(sizeof logits);
    int *dy = dev->alloc(sizeof labels);
    float *stats = dev->alloc(2 * sizeof(float));
    dev->upload(dl, logits, sizeof logits);
    dev->upload(dy, labels, sizeof labels);
    dev->softmax_xent(dl, dy, 2, COLS, dz, stats);
    float st[2], g[2 * COLS];
    dev->download(st, stats, sizeof st);
    dev->download(g, dz, sizeof g);
    cr_assert(st[1] == 2, "right answers: %g, expected 2 (row 0 ties 0 and 1: first wins)", st[1]);
    double z = exp(2.0) + exp(2.0) + 1;
    double want0 = (exp(2.0) / z - 1) / 2;
    cr_assert(fabs(g[0] - want0) < 1e-6, "dlogits[0][0] = %.7f, expected %.7f ((p-1)/B)", g[0], want0);
    /* Without a gradient buffer only the statistics are written. */
    dev->softmax_xent(dl, dy, 2, COLS, NULL, stats);
    float st2[2];
    dev->download(st2, stats, sizeof st2);
    cr_assert(fabs(st2[0] - 2 * st[0]) < 1e-5 && st2[1] == 4, "statistics do not accumulate");
    dev->release(dl);
    dev->release(dz);
    dev->release(dy);
    dev->release(stats);
}
