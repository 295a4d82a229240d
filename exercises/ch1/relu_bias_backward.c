/* Exercise 1.4: a fused ReLU and bias backward (1 star, 10 points). Read the end of
 * chapter 1. Replace the body below; `make test` runs your tests once this file has changed. */
#include "ch1.h"

void relu_bias_backward(float *dy, const float *y, float *dbias, int rows, int cols)
{
    /* TODO: mask dy with the ReLU and sum its columns, in one pass. */
    (void)dy, (void)y, (void)dbias, (void)rows, (void)cols;
}
