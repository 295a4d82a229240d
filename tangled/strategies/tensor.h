/**
 * @file tensor.h
 * @brief What the tensor strategy sends (chapter 11).
 */
#ifndef DPS_TENSOR_H
#define DPS_TENSOR_H

#include <stddef.h>

/**
 * Bytes rank @p t of a row of @p T sends in one training step's all-reduces of
 * activations, for an MLP of widths width[0..L] split in pairs and a row's batch of @p b.
 */
size_t tensor_row_bytes(const int *width, int L, int b, int T, int t);

#endif
