/**
 * @file mlp_kernels.h
 * @brief The arithmetic both devices run: per row and per element, for gcc and nvcc alike.
 */
#ifndef DPS_MLP_KERNELS_H
#define DPS_MLP_KERNELS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __CUDACC__
/** Compile for the host and for the GPU. */
#define HOSTDEV __host__ __device__
#else
/** Compile for the host and for the GPU (plain C: the host only). */
#define HOSTDEV
#endif

/**
 * Loss of one row of @p cols logits @p z with label @p y; sets *right to whether the
 * argmax is y; when @p dz is not NULL writes the gradient of the batch's mean loss
 * (the batch has @p rows rows).
 */
static inline HOSTDEV float softmax_xent_row(const float *z, int y, int cols, float *dz,
                                             int rows, int *right)
{
    int arg = 0;
    float max = z[0];
    for (int j = 1; j < cols; j++)
        if (z[j] > max) {
            max = z[j];
            arg = j;
        }
    float sum = 0;
    for (int j = 0; j < cols; j++)
        sum += expf(z[j] - max);
    if (dz)
        for (int j = 0; j < cols; j++)
            dz[j] = (expf(z[j] - max) / sum - (j == y)) / rows;
    *right = arg == y;
    return (max - z[y]) + logf(sum);
}
/** v + b, then the ReLU when @p relu. */
static inline HOSTDEV float bias_act(float v, float b, bool relu)
{
    v += b;
    return relu && !(v > 0.0f) ? 0.0f : v;
}
/** The gradient @p dy passed through a ReLU whose output was @p y. */
static inline HOSTDEV float relu_grad(float dy, float y) { return y > 0.0f ? dy : 0.0f; }

#endif
