/* Chapter 1's exercises: the functions you write. See the end of chapter 1 in the book
 * (make book) for what each must do and how it is tested.
 *
 * Besides the C library, an exercise may call only error_set() and xcalloc() of the book's
 * library, the members of the Comm or the Device it is handed, and, for the exercise a
 * "may call: NAME:" line below names, the functions that line lists (no other exercise may
 * call them): tests/grade.sh refuses any other call, naming it. The other declarations of
 * the headers included here are the book's, for the types and for reading.
 * may call: grad_check: model_forward model_backward model_loss
 */
#ifndef DPS_EX_CH1_H
#define DPS_EX_CH1_H

#include <stdbool.h>
#include <stddef.h>

#include "device.h"
#include "model.h"

/* 1.1: gemm_plain()'s contract, cache-blocked: row-major C[m x n] = alpha op(A) op(B) + beta C,
 * op transposing when ta / tb; beta == 0 overwrites C without reading it. Host pointers. */
void gemm_blocked(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                  const float *B, float beta, float *C);

/* 1.2: for the batch of B samples already on m's device (model_set_batch), the largest
 * |a - n| / max(1e-3, |a| + |n|) over all parameters, a the backpropagated gradient of the
 * mean loss and n its central finite difference with step eps; *worst receives the index
 * (into m->params) where it occurs. The parameters end as they began. */
double gradient_check(Model *m, int B, float eps, size_t *worst);

/* 1.3: Nesterov momentum as PyTorch's SGD(momentum=mu, nesterov=True) defines it, on n device
 * floats (no dampening, no weight decay): v = mu v + g, then p -= lr (g + mu v) with the new v.
 * The velocity buffer carries v from one call to the next (a new run starts it at zero). Use
 * dev->scale and dev->axpy only, so that it runs on any device. */
void sgd_nesterov(const Device *dev, size_t n, float lr, float mu, const float *grads,
                  float *velocity, float *params);

/* 1.4: relu_backward() then bias_backward() in one pass: dy[i][j] = 0 where y[i][j] is not
 * positive, then dbias[j] = sum over i of dy[i][j]. Host pointers, rows x cols row-major. */
void relu_bias_backward(float *dy, const float *y, float *dbias, int rows, int cols);

#endif
