/* Chapter 1's exercises: the functions you write. See the end of chapter 1 in the book
 * (make book) for what each must do and how it is tested.
 *
 * Besides the C library, an exercise may call only error_set() and xcalloc() of the book's
 * library, the members of the Comm, the Device or the Fast machine it is handed, and, for
 * the exercise a "may call: NAME:" line below names, the functions that line lists (no
 * other exercise may call them): tests/grade.sh refuses any other call, naming it. The other declarations of
 * the headers included here are the book's, for the types and for reading.
 * may call: grad_check: model_forward model_backward model_loss
 */
#ifndef DPS_EX_CH1_H
#define DPS_EX_CH1_H

#include <stdbool.h>
#include <stddef.h>

#include "device.h"
#include "model.h"

/* 1.1: the machine a blocked GEMM runs on. Its slow memory holds A (m x k), B (k x n) and
 * C (m x n), row-major; its fast memory holds `capacity` floats (at least 3), numbered from 0.
 * Arithmetic happens in fast memory only; the machine counts the floats that load and store
 * move. Every operation returns 0, or -1 when it refuses: a block outside its matrix or
 * outside fast memory, a count below 1, operands of multiply_add that overlap, or a machine
 * that has refused before (it then refuses everything). */
typedef enum FastMatrix { FAST_A, FAST_B, FAST_C } FastMatrix;
typedef struct Fast Fast;
struct Fast {
    int capacity; /* floats of fast memory */
    /* Copy the rows x cols block of A, B or C whose top-left element is (row, col) into
     * fast memory at at, at+1, ... (row-major, rows * cols floats). */
    int (*load)(Fast *f, int at, FastMatrix which, int row, int col, int rows, int cols);
    /* Copy rows * cols floats of fast memory from at on into C's block at (row, col). */
    int (*store)(Fast *f, int at, int row, int col, int rows, int cols);
    /* Set count floats of fast memory from at on to 0. */
    int (*zero)(Fast *f, int at, int count);
    /* The rows x cols block at c += the rows x depth block at a times the depth x cols block
     * at b, each row-major in fast memory; c may not overlap a or b. */
    int (*multiply_add)(Fast *f, int c, int a, int b, int rows, int cols, int depth);
};

/* 1.1: C = A B on the machine f (C's old contents are never used), moving few floats: the
 * tests bound the floats loaded and stored by 2.5 T (every test) and by 1.3 T (some), where
 * T = mn + max(2mnk / sqrt(S), mk + kn) and S = f->capacity. Returns 0, or -1 when an
 * operation of f refused. */
int gemm_blocked(Fast *f, int m, int n, int k);

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
