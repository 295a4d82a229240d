/**
 * @file optimizer.h
 * @brief SGD, heavy-ball momentum and AdamW on a run of parameters (chapter 7).
 */
#ifndef DPS_OPTIMIZER_H
#define DPS_OPTIMIZER_H

#include <stddef.h>

#include "device.h"

/** Which update an optimizer makes. */
typedef enum OptimizerKind { OPTIM_SGD, OPTIM_MOMENTUM, OPTIM_ADAMW } OptimizerKind;

/** An optimizer's settings; all zero is plain SGD. */
typedef struct OptimizerConfig {
    OptimizerKind kind; /**< sgd, momentum or adamw */
    float momentum;     /**< mu of heavy-ball momentum */
    float weight_decay; /**< AdamW's decoupled decay, lambda */
    float beta1;        /**< AdamW's decay of the first moment (0.9) */
    float beta2;        /**< AdamW's decay of the second moment (0.999) */
    float eps;          /**< AdamW's guard in the denominator (1e-8) */
} OptimizerConfig;

/** An optimizer of n parameters, with its state for them. */
typedef struct Optimizer {
    OptimizerConfig cfg; /**< what it does */
    float lr;            /**< eta, the learning rate */
    const Device *dev;   /**< where the state lives */
    size_t n;            /**< how many it updates */
    float *m;            /**< velocity, or first moment: n floats (NULL for SGD) */
    float *u;            /**< second moment: n floats (AdamW only) */
    long step;           /**< updates made */
} Optimizer;

/** Make @p o update @p n parameters on @p dev with @p cfg and rate @p lr. */
void optimizer_init(Optimizer *o, const OptimizerConfig *cfg, float lr, const Device *dev,
                    size_t n);
/** One update of p[0, n) from g[0, n): the optimizer's parameters and their gradients. */
void optimizer_step(Optimizer *o, float *p, const float *g);
/** Bytes of state @p o keeps on its device. */
size_t optimizer_state_bytes(const Optimizer *o);
/** Free the state. */
void optimizer_free(Optimizer *o);
/** "sgd", "momentum" or "adamw". */
const char *optimizer_name(OptimizerKind kind);
/** Floats of state per parameter: 0 for SGD, 1 for momentum, 2 for AdamW. */
int optimizer_state_floats(OptimizerKind kind);
/** The settings of @p name with PyTorch's defaults, or -1 when the name is none of them. */
int optimizer_config(OptimizerConfig *cfg, const char *name, float momentum,
                     float weight_decay);
/** Every optimizer's name joined by @p sep into @p buf (@p len bytes), for --optimizer. */
void optimizer_names(char *buf, size_t len, const char *sep);

#endif
