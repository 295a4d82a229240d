/**
 * @file model.h
 * @brief An MLP whose parameters and gradients are two flat device buffers.
 */
#ifndef DPS_MODEL_H
#define DPS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"

/** Most hidden layers a model may have (--hidden takes at most this many widths). */
#define MAX_HIDDEN 8
/** Most linear layers: the hidden ones and the output. */
#define MAX_LAYERS (MAX_HIDDEN + 1)

/** One linear layer: a view into the flat buffers. */
typedef struct Layer {
    int in;   /**< inputs: rows of the weight matrix */
    int out;  /**< outputs: columns of the weight matrix */
    size_t w; /**< offset of the weights in params and grads */
    size_t b; /**< offset of the bias in params and grads */
} Layer;

/** An MLP on one device, with buffers for batches of up to max_batch samples. */
typedef struct Model {
    const Device *dev;           /**< where every buffer below lives */
    int n_layers;                /**< L: linear layers */
    int width[MAX_LAYERS + 1];   /**< width[0] inputs, ..., width[L] classes */
    Layer layer[MAX_LAYERS];     /**< the layers' views */
    size_t n_params;             /**< floats in params (and in grads) */
    float *params;               /**< all parameters, flat */
    float *grads;                /**< all gradients, flat, same layout */
    int max_batch;               /**< rows of the activation buffers */
    float *act[MAX_LAYERS + 1];  /**< act[0] the input batch, act[l] layer l's output */
    float *dact[MAX_LAYERS + 1]; /**< gradient of the loss w.r.t. act[l], l >= 1 */
    int *labels;                 /**< the batch's labels */
    float *stats;                /**< [0] summed loss, [1] right answers (see softmax_xent) */
    float *layer_params[MAX_LAYERS]; /**< where layer l's weights, then its bias, are now */
    float *layer_grads[MAX_LAYERS];  /**< where layer l's gradients are now */
    bool accumulate;                 /**< backward adds into grads (chapter 7's --accum) */
    float *scratch;                  /**< room for one layer's bias gradient (chapter 7) */
    bool lent_params;                /**< params is not the model's to free (chapters 7, 8) */
    bool lent_grads;                 /**< grads is not the model's to free (chapters 7, 8) */
    bool act_later[MAX_LAYERS]; /**< layer l's ReLU is the strategy's to apply (chapter 11) */
    int rows;                   /**< rows of the batch forward last ran on (chapter 11) */
} Model;

/**
 * Build an MLP @p features -> hidden[0] -> ... -> @p classes on @p dev, with
 * seeded initial weights. Returns 0, or -1 with the reason in @p err.
 */
int model_init(Model *m, const Device *dev, int features, const int *hidden, int n_hidden,
               int classes, int max_batch, uint64_t seed, char *err);
/** Free the model's device buffers. */
void model_free(Model *m);
/** Write the shape as "784-128-10" into @p buf of @p len bytes. */
void model_describe(const Model *m, char *buf, size_t len);
/** Write @p n_layers + 1 widths as "784-128-10" into @p buf of @p len bytes. */
void widths_describe(const int *width, int n_layers, char *buf, size_t len);
/** Copy a batch of @p B samples (features and labels, host memory) to the device. */
void model_set_batch(Model *m, const float *x, const int32_t *y, int B);
/**
 * Make the batch of samples @p rows (B indices, device memory) of a data set that is
 * already on the device (@p x features, @p y labels, from the device's resident()).
 */
void model_gather_batch(Model *m, const float *x, const int32_t *y, const int *rows, int B);
/** Forward the batch in act[0]: logits land in act[n_layers]. */
void model_forward(Model *m, int B);
/** Layer @p l's part of forward, act[l+1] from act[l]; model_forward() runs every l. */
void model_forward_layer(Model *m, int B, int l);
/**
 * Softmax cross-entropy of the logits against the labels: adds the summed loss
 * and the right answers to stats; when @p backprop, writes dact[n_layers].
 */
void model_loss(Model *m, int B, bool backprop);
/** Backward from dact[n_layers]: overwrites every gradient in grads. */
void model_backward(Model *m, int B);
/**
 * Layer @p l's part of backward, from dact[l+1]: its gradients in grads, and for l > 0
 * dact[l]. model_backward() is this for l = n_layers-1 down to 0.
 */
void model_backward_layer(Model *m, int B, int l);
/** One SGD step: params -= lr * grads. */
void model_sgd_step(Model *m, float lr);
/**
 * Chapters 7 and 8: the model gives up its flat parameters and frees them; each layer's
 * are then where the strategy points them with model_layer_params_at().
 */
void model_give_up_params(Model *m);
/** The same for the gradients. */
void model_give_up_grads(Model *m);
/**
 * The model's gradients are @p grads, a strategy's buffer (chapter 8's window), which the
 * model uses and never frees; its own are freed.
 */
void model_use_grads(Model *m, float *grads);
/** Layer @p l's parameters are at @p p from now on, a strategy's buffer; NULL: nowhere. */
void model_layer_params_at(Model *m, int l, float *p);
/** Layer @p l's gradients are at @p g from now on, a strategy's buffer; NULL: nowhere. */
void model_layer_grads_at(Model *m, int l, float *g);
/** The model holds its whole flat parameters again (allocated), its layers in them. */
void model_hold_params(Model *m);

#endif
