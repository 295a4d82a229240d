/**
 * @file optimizer.c
 * @brief SGD, heavy-ball momentum and AdamW (chapter 7).
 */
#line 230 "chapters/07-zero.nw"
#include "optimizer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mlp_kernels.h"

#line 251 "chapters/07-zero.nw"
void optimizer_init(Optimizer *o, const OptimizerConfig *cfg, float lr, const Device *dev,
                    size_t n)
{
    *o = (Optimizer){.cfg = *cfg, .lr = lr, .dev = dev, .n = n};
    int buffers = optimizer_state_floats(cfg->kind);
    if (buffers >= 1) {
        o->m = dev->alloc((n ? n : 1) * sizeof(float));
        dev->zero(o->m, n * sizeof(float));
    }
    if (buffers == 2) {
        o->u = dev->alloc((n ? n : 1) * sizeof(float));
        dev->zero(o->u, n * sizeof(float));
    }
}

size_t optimizer_state_bytes(const Optimizer *o)
{
    return ((o->m ? o->n : 0) + (o->u ? o->n : 0)) * sizeof(float);
}

#line 286 "chapters/07-zero.nw"
void optimizer_step(Optimizer *o, float *p, const float *g)
{
    const Device *dev = o->dev;
    o->step++;
    if (o->cfg.kind == OPTIM_SGD) {
        dev->axpy(o->n, -o->lr, g, p);
    } else if (o->cfg.kind == OPTIM_MOMENTUM) {
        dev->scale(o->n, o->cfg.momentum, o->m);
        dev->axpy(o->n, 1.0f, g, o->m);
        dev->axpy(o->n, -o->lr, o->m, p);
    } else {
        double c1 = 1.0 - pow(o->cfg.beta1, (double)o->step);
        double c2 = 1.0 - pow(o->cfg.beta2, (double)o->step);
        AdamStep a = {.lr = o->lr,
                      .beta1 = o->cfg.beta1,
                      .beta2 = o->cfg.beta2,
                      .eps = o->cfg.eps,
                      .decay = o->cfg.weight_decay,
                      .correct1 = (float)c1,
                      .sqrt_correct2 = (float)sqrt(c2)};
#line 302 "chapters/07-zero.nw"
        dev->adamw(o->n, &a, g, o->m, o->u, p);
    }
}

#line 311 "chapters/07-zero.nw"
const char *optimizer_name(OptimizerKind kind)
{
    return kind == OPTIM_ADAMW ? "adamw" : kind == OPTIM_MOMENTUM ? "momentum" : "sgd";
}

int optimizer_state_floats(OptimizerKind kind)
{
    return kind == OPTIM_ADAMW ? 2 : kind == OPTIM_MOMENTUM ? 1 : 0;
}

int optimizer_config(OptimizerConfig *cfg, const char *name, float momentum, float weight_decay)
{
#line 324 "chapters/07-zero.nw"
    *cfg = (OptimizerConfig){.momentum = momentum,
                             .weight_decay = weight_decay,
                             .beta1 = 0.9f,
                             .beta2 = 0.999f,
                             .eps = 1e-8f};
#line 326 "chapters/07-zero.nw"
    for (int k = OPTIM_SGD; k <= OPTIM_ADAMW; k++)
        if (strcmp(name, optimizer_name((OptimizerKind)k)) == 0) {
            cfg->kind = (OptimizerKind)k;
            return 0;
        }
    return -1;
}

#line 339 "chapters/07-zero.nw"
void optimizer_names(char *buf, size_t len, const char *sep)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = OPTIM_SGD; k <= OPTIM_ADAMW && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "",
                                 optimizer_name((OptimizerKind)k));
}

#line 350 "chapters/07-zero.nw"
void optimizer_free(Optimizer *o)
{
    if (o->m)
        o->dev->release(o->m);
    if (o->u)
        o->dev->release(o->u);
    o->m = o->u = NULL;
}
