/* Chapter 11's exercises: the functions you write. See the end of chapter 11 in the book
 * (make book) for what each must do and how it is tested.
 *
 * Besides the C library, an exercise may call only error_set() and xcalloc() of the book's
 * library, the members of the Comm or the Device it is handed, and, for the exercise a
 * "may call: NAME:" line below names, the functions that line lists (no other exercise may
 * call them): tests/grade.sh refuses any other call, naming it. The other declarations of
 * the headers included here are the book's, for the types and for reading.
 * may call: grid_gradient_step: comm_view ring_all_gather ring_all_reduce
 * may call: vocab_parallel_xent: ring_all_gather ring_all_reduce
 */
#ifndef DPS_EX_CH11_H
#define DPS_EX_CH11_H

#include <stdbool.h>
#include <stddef.h>

#include "collectives.h"
#include "comm.h"
#include "comm_view.h"
#include "util.h"

/* 11.1: which layers to split. An MLP of L layers maps widths[0] inputs through widths[1],
 * ..., widths[L - 1] to widths[L] outputs: layer l is a widths[l] x widths[l + 1] weight and a
 * bias of widths[l + 1]. A row of T ranks splits layers in pairs, as chapter 11 does: layer l
 * column-parallel and layer l + 1 row-parallel, which needs T to divide widths[l + 1], the
 * hidden units the pair shares out. Each rank then holds (widths[l] + 1) widths[l + 1] / T
 * floats of layer l, widths[l + 1] widths[l + 2] / T of layer l + 1's weight and the whole
 * bias of layer l + 1, widths[l + 2]; a layer in no pair is held whole by every rank,
 * (widths[l] + 1) widths[l + 1] floats. Each pair all-reduces widths[l + 2] floats per sample
 * forward, after its row-parallel layer, and widths[l] backward, before its column-parallel
 * one, unless l is 0 (the data needs no gradient). Choose the pairs that leave each rank the
 * fewest floats; of plans that tie, one that all-reduces the fewest floats per sample; of
 * those, any. Write split[l] = 0 (whole), 1 (column-parallel) or 2 (row-parallel) for every
 * layer and *allreduced = the plan's floats all-reduced per sample, and return its floats per
 * rank. L >= 1, T >= 1, every width >= 1; L may run to thousands of layers. */
size_t tensor_split_plan(const int *widths, int L, int T, int *split, size_t *allreduced);

/* 11.2: the grid's gradient step. c's N ranks stand on a grid of D = N / T rows of T ranks:
 * rank r is in row r / T at place t = r % T (the tensor strategy's grid). grad[0..count)
 * holds the gradient of this rank's share of the model for its row's batch;
 * grad[bias..bias + n_bias) is a row-parallel layer's bias, which the row's first rank
 * (t = 0) alone owns; the last `shared` floats, grad[count - shared..count), belong to
 * layers every rank of the row holds whole (an odd L's classifier), the same on each.
 * 1. On a rank with t != 0, grad[bias..bias + n_bias) becomes 0.
 * 2. The column, the D ranks at place t in row order, averages grad: the book's
 *    ring_all_reduce over a view of them (comm_view), scaled by 1.0f / D, so that every
 *    rank of a column holds the same bits.
 * 3. *norm, the global norm of the whole model's gradient, every parameter counted once:
 *    each rank squares and adds, in double, in the order of i, grad[0..count - shared) and,
 *    at t = 0 only, the shared floats too; the row's T sums are all-gathered along the row
 *    (a view of its ranks in place order: ring_all_gather with T elements of one double)
 *    and added in place order, in double; *norm is the square root, the same bits on every
 *    rank of the grid.
 * 4. When max_norm > 0 and *norm > max_norm, every float of grad is multiplied by the float
 *    max_norm / (*norm + 1e-6), as 7.2 does; otherwise grad stays the column's average.
 * A rank sends only to the ranks next to it in its column's ring (rows d +- 1 mod D) and its
 * row's (places t +- 1 mod T): at most 2 (D - 1) chunk_max(count, D) floats down its column
 * and (T - 1) doubles along its row. scratch holds chunk_max(count, D) floats; grad and
 * scratch are in the host's memory (c->dev is the CPU). Returns 0, or -1 with err: the
 * comm's error; before anything is sent, T < 1 or T not dividing N ("T" in err), or a
 * layout that does not fit, shared > count or bias + n_bias > count - shared ("count" in
 * err). */
int grid_gradient_step(Comm *c, int T, float *grad, size_t count, size_t bias, size_t n_bias,
                       size_t shared, double max_norm, float *scratch, double *norm,
                       char *err);

/* 11.3: softmax cross-entropy with the classes split across c's T ranks, as Megatron splits
 * a vocabulary. The V classes are shared out in rank order: this rank holds classes
 * [first, first + cols), and logits[i * cols + j] is row i's logit z for class first + j, for
 * the same B rows on every rank. labels[i], in [0, V), is row i's class, the same on every
 * rank. Afterwards, on every rank, loss[i] = log(sum over all V classes k of exp(z_ik)) -
 * z_i,labels[i], and dlogits[i * cols + j] = (p_i,first+j - (first + j == labels[i])) / B,
 * with p_ik = exp(z_ik) / (sum over k of exp(z_ik)): this rank's share of the gradient of
 * the mean loss. No exp may overflow, whatever the finite logits: subtract a row's largest
 * logit over all V classes first. Within 1e-5 of the same sums on one device (relative, and
 * absolute for values below 1 in size). The
 * logits stay where they are: a rank sends at most 3 (T - 1) B floats' worth of bytes, for
 * any V. B >= 0; cols >= 0 (a rank may hold no class). Returns 0, or -1 with the comm's error
 * in err. */
int vocab_parallel_xent(Comm *c, const float *logits, const int *labels, int B, int cols,
                        int first, float *loss, float *dlogits, char *err);

#endif
