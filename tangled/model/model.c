/**
 * @file model.c
 * @brief MLP forward, loss, backward and SGD on a Device.
 */
#line 1132 "chapters/01-mlp.nw"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "util.h"

#line 1165 "chapters/01-mlp.nw"
enum { STREAM_INIT = 10 };

int model_init(Model *m, const Device *dev, int features, const int *hidden, int n_hidden,
               int classes, int max_batch, uint64_t seed, char *err)
{
    memset(m, 0, sizeof *m);
    if (n_hidden < 0 || n_hidden > MAX_HIDDEN)
        return error_set(err, "model: %d hidden layers, at most %d", n_hidden, MAX_HIDDEN);
#line 1174 "chapters/01-mlp.nw"
    if (features < 1 || classes < 2 || max_batch < 1)
        return error_set(err, "model: bad shape (%d features, %d classes, batch %d)", features,
                         classes, max_batch);
    m->dev = dev;
    m->n_layers = n_hidden + 1;
    m->max_batch = max_batch;
    m->width[0] = features;
    for (int l = 0; l < n_hidden; l++)
        m->width[l + 1] = hidden[l];
    m->width[m->n_layers] = classes;
#line 1201 "chapters/01-mlp.nw"
    size_t offset = 0;
    for (int l = 0; l < m->n_layers; l++) {
        Layer *ly = &m->layer[l];
        ly->in = m->width[l];
        ly->out = m->width[l + 1];
        ly->w = offset;
        offset += (size_t)ly->in * (size_t)ly->out;
        ly->b = offset;
        offset += (size_t)ly->out;
    }
    m->n_params = offset;
#line 1226 "chapters/01-mlp.nw"
    m->params = dev->alloc(m->n_params * sizeof(float));
    m->grads = dev->alloc(m->n_params * sizeof(float));
    for (int l = 0; l < m->n_layers; l++) {
        m->layer_params[l] = m->params + m->layer[l].w;
        m->layer_grads[l] = m->grads + m->layer[l].w;
    }
    for (int l = 0; l <= m->n_layers; l++) {
        size_t bytes = (size_t)max_batch * (size_t)m->width[l] * sizeof(float);
        m->act[l] = dev->alloc(bytes);
        m->dact[l] = l ? dev->alloc(bytes) : NULL;
    }
    m->labels = dev->alloc((size_t)max_batch * sizeof(int));
    m->stats = dev->alloc(2 * sizeof(float));
    int widest = 1; /* the scratch of chapter 7's accumulation: the widest layer's biases */
    for (int l = 1; l <= m->n_layers; l++)
        widest = m->width[l] > widest ? m->width[l] : widest;
    m->scratch = dev->alloc((size_t)widest * sizeof(float));
#line 1259 "chapters/01-mlp.nw"
    float *host = xcalloc(m->n_params, sizeof(float));
    Rng r;
    rng_seed(&r, seed, STREAM_INIT);
    for (int l = 0; l < m->n_layers; l++) {
        const Layer *ly = &m->layer[l];
        bool last = l == m->n_layers - 1;
        double var = last ? 2.0 / (ly->in + ly->out) : 2.0 / ly->in;
        float std = (float)sqrt(var);
        for (size_t i = 0; i < (size_t)ly->in * (size_t)ly->out; i++)
            host[ly->w + i] = std * rng_normal(&r);
    }
    dev->upload(m->params, host, m->n_params * sizeof(float));
    free(host);
#line 1187 "chapters/01-mlp.nw"
    return 0;
}
#line 1286 "chapters/01-mlp.nw"
void model_free(Model *m)
{
    const Device *dev = m->dev;
    if (!dev)
        return;
    if (!m->lent_params)
        dev->release(m->params);
    if (!m->lent_grads)
        dev->release(m->grads);
    for (int l = 0; l <= m->n_layers; l++) {
        dev->release(m->act[l]);
        if (m->dact[l])
            dev->release(m->dact[l]);
    }
    dev->release(m->labels);
    dev->release(m->stats);
    dev->release(m->scratch);
    memset(m, 0, sizeof *m);
}

#line 1315 "chapters/01-mlp.nw"
void widths_describe(const int *width, int n_layers, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int l = 0; l <= n_layers && used < len; l++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d", l ? "-" : "", width[l]);
}

void model_describe(const Model *m, char *buf, size_t len)
{
    widths_describe(m->width, m->n_layers, buf, len);
}
#line 1390 "chapters/01-mlp.nw"
void model_set_batch(Model *m, const float *x, const int32_t *y, int B)
{
    m->dev->upload(m->act[0], x, (size_t)B * (size_t)m->width[0] * sizeof(float));
    m->dev->upload(m->labels, y, (size_t)B * sizeof(int));
}
#line 1450 "chapters/01-mlp.nw"
void model_gather_batch(Model *m, const float *x, const int32_t *y, const int *rows, int B)
{
    m->dev->gather_rows(m->act[0], x, rows, B, (size_t)m->width[0]);
    m->dev->gather_rows(m->labels, y, rows, B, 1);
}

#line 1469 "chapters/01-mlp.nw"
void model_forward_layer(Model *m, int B, int l)
{
    const Layer *ly = &m->layer[l];
    const float *W = m->layer_params[l], *bias = W + (ly->b - ly->w);
    bool relu = l < m->n_layers - 1 && !m->act_later[l]; /* act_later: chapter 11 */
    if (m->dev->linear_forward) { /* one call where the device has it (CUDA) */
        m->dev->linear_forward(m->act[l], W, bias, m->act[l + 1], B, ly->in, ly->out, relu);
        return;
    }
    m->dev->gemm(false, false, B, ly->out, ly->in, 1.0f, m->act[l], W, 0.0f, m->act[l + 1]);
    m->dev->bias_act_forward(m->act[l + 1], bias, B, ly->out, relu);
}

void model_forward(Model *m, int B)
{
    for (int l = 0; l < m->n_layers; l++)
        model_forward_layer(m, B, l);
}
#line 1734 "chapters/01-mlp.nw"
void model_loss(Model *m, int B, bool backprop)
{
    int L = m->n_layers;
    m->dev->softmax_xent(m->act[L], m->labels, B, m->width[L], backprop ? m->dact[L] : NULL,
                         m->stats);
#line 1740 "chapters/01-mlp.nw"
}
#line 1774 "chapters/01-mlp.nw"
void model_backward_layer(Model *m, int B, int l)
{
    const Device *dev = m->dev;
    const Layer *ly = &m->layer[l];
    const float *delta = m->dact[l + 1]; /* B x out */
    float *dW = m->layer_grads[l], *dbias = dW + (ly->b - ly->w);
#line 1811 "chapters/01-mlp.nw"
    dev->gemm(true, false, ly->in, ly->out, B, 1.0f, m->act[l], delta,
              m->accumulate ? 1.0f : 0.0f, dW); /* accumulate: chapter 7 */
#line 1825 "chapters/01-mlp.nw"
    if (!m->accumulate) {
        dev->bias_backward(dbias, delta, B, ly->out);
    } else { /* chapter 7: the sums go to scratch, then add to the gradient */
        dev->bias_backward(m->scratch, delta, B, ly->out);
        dev->axpy((size_t)ly->out, 1.0f, m->scratch, dbias);
    }
#line 1782 "chapters/01-mlp.nw"
    if (l > 0) {
#line 1841 "chapters/01-mlp.nw"
        dev->gemm(false, true, B, ly->in, ly->out, 1.0f, delta, m->layer_params[l], 0.0f,
                  m->dact[l]);
        dev->relu_backward(m->dact[l], m->act[l], (size_t)B * (size_t)ly->in);
#line 1784 "chapters/01-mlp.nw"
    }
}

void model_backward(Model *m, int B)
{
    for (int l = m->n_layers - 1; l >= 0; l--)
        model_backward_layer(m, B, l);
}
#line 1863 "chapters/01-mlp.nw"
void model_sgd_step(Model *m, float lr)
{
    m->dev->axpy(m->n_params, -lr, m->grads, m->params);
}
#line 936 "chapters/07-zero.nw"
/** Give up a flat buffer: free it unless lent, and point its layers' views nowhere. */
static void give_up(Model *m, float **flat, bool *lent, float **views)
{
    if (!*lent)
        m->dev->release(*flat);
    *flat = NULL;
    *lent = true;
    for (int l = 0; l < m->n_layers; l++)
        views[l] = NULL;
}

void model_give_up_params(Model *m)
{
    give_up(m, &m->params, &m->lent_params, m->layer_params);
}

void model_give_up_grads(Model *m)
{
    give_up(m, &m->grads, &m->lent_grads, m->layer_grads);
}

#line 963 "chapters/07-zero.nw"
void model_use_grads(Model *m, float *grads)
{
    model_give_up_grads(m);
    m->grads = grads;
    for (int l = 0; l < m->n_layers; l++)
        m->layer_grads[l] = grads + m->layer[l].w;
}
#line 973 "chapters/07-zero.nw"
void model_layer_params_at(Model *m, int l, float *p)
{
    m->layer_params[l] = p;
}

void model_layer_grads_at(Model *m, int l, float *g)
{
    m->layer_grads[l] = g;
}

void model_hold_params(Model *m)
{
    if (m->lent_params || !m->params) {
        m->params = m->dev->alloc(m->n_params * sizeof(float));
        m->lent_params = false;
    }
    for (int l = 0; l < m->n_layers; l++)
        m->layer_params[l] = m->params + m->layer[l].w;
}
