/* Exercise 11.3, reference solution: three numbers a row cross the ranks (its largest logit,
 * its sum of exponentials, its label's logit), never the logits. */
#include <math.h>
#include <stdlib.h>

#include "ch11.h"

/* Every rank's B values of mine (its place in all), gathered: all[t * B + i] is rank t's. */
static int gather(Comm *c, float *all, int B, char *err)
{
    return ring_all_gather(c, all, (size_t)c->size * (size_t)B, sizeof(float), err);
}

int vocab_parallel_xent(Comm *c, const float *logits, const int *labels, int B, int cols,
                        int first, float *loss, float *dlogits, char *err)
{
    int T = c->size;
    size_t n = (size_t)T * (size_t)B;
    float *all = xcalloc(n ? n : 1, sizeof *all), *mine = all + (size_t)c->rank * B;
    float *top = xcalloc(B ? (size_t)B : 1, sizeof *top);
    double *sum = xcalloc(B ? (size_t)B : 1, sizeof *sum);
    int rc = -1;
    for (int i = 0; i < B; i++) { /* 1. each row's largest logit */
        mine[i] = -INFINITY;
        for (int j = 0; j < cols; j++)
            mine[i] = fmaxf(mine[i], logits[(size_t)i * cols + j]);
    }
    if (gather(c, all, B, err))
        goto out;
    for (int i = 0; i < B; i++) {
        top[i] = -INFINITY;
        for (int t = 0; t < T; t++)
            top[i] = fmaxf(top[i], all[(size_t)t * B + i]);
    }
    for (int i = 0; i < B; i++) { /* 2. each row's sum of exponentials, below its top */
        double s = 0;
        for (int j = 0; j < cols; j++)
            s += exp((double)logits[(size_t)i * cols + j] - top[i]);
        mine[i] = (float)s;
    }
    if (gather(c, all, B, err))
        goto out;
    for (int i = 0; i < B; i++) {
        sum[i] = 0;
        for (int t = 0; t < T; t++)
            sum[i] += all[(size_t)t * B + i];
    }
    for (int i = 0; i < B; i++) { /* 3. the label's logit, from the rank that holds it */
        int j = labels[i] - first;
        mine[i] = j >= 0 && j < cols ? logits[(size_t)i * cols + j] - top[i] : 0.0f;
    }
    if (gather(c, all, B, err))
        goto out;
    for (int i = 0; i < B; i++) {
        double label = 0;
        for (int t = 0; t < T; t++)
            label += all[(size_t)t * B + i];
        loss[i] = (float)(log(sum[i]) - label);
        for (int j = 0; j < cols; j++) {
            double p = exp((double)logits[(size_t)i * cols + j] - top[i]) / sum[i];
            dlogits[(size_t)i * cols + j] = (float)((p - (first + j == labels[i])) / B);
        }
    }
    rc = 0;
out:
    free(all);
    free(top);
    free(sum);
    return rc;
}
