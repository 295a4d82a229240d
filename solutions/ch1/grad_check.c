/* Solution 1.2: a gradient checker by central differences. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "ch1.h"
#include "util.h"

static double mean_loss(Model *m, int B)
{
    float st[2];
    m->dev->zero(m->stats, sizeof st);
    model_forward(m, B);
    model_loss(m, B, false);
    m->dev->download(st, m->stats, sizeof st);
    return (double)st[0] / B;
}

double gradient_check(Model *m, int B, float eps, size_t *worst)
{
    const Device *dev = m->dev;
    size_t n = m->n_params, bytes = n * sizeof(float);
    float *g = xcalloc(n, sizeof *g), *p = xcalloc(n, sizeof *p);
    model_forward(m, B);
    model_loss(m, B, true);
    model_backward(m, B);
    dev->download(g, m->grads, bytes);
    dev->download(p, m->params, bytes);
    double max_err = 0;
    *worst = 0;
    for (size_t i = 0; i < n; i++) {
        float saved = p[i];
        p[i] = saved + eps;
        dev->upload(m->params, p, bytes);
        double up = mean_loss(m, B);
        p[i] = saved - eps;
        dev->upload(m->params, p, bytes);
        double down = mean_loss(m, B);
        p[i] = saved;
        double num = (up - down) / (2.0 * eps), a = g[i];
        double den = fabs(a) + fabs(num) > 1e-3 ? fabs(a) + fabs(num) : 1e-3;
        double err = fabs(a - num) / den;
        if (err > max_err) {
            max_err = err;
            *worst = i;
        }
    }
    dev->upload(m->params, p, bytes);
    dev->upload(m->grads, g, bytes);
    free(g);
    free(p);
    return max_err;
}
