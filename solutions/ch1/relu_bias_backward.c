/* Solution 1.4: mask and column-sum in one pass over dy. */
#include "ch1.h"

void relu_bias_backward(float *dy, const float *y, float *dbias, int rows, int cols)
{
    for (int j = 0; j < cols; j++)
        dbias[j] = 0.0f;
    for (int i = 0; i < rows; i++) {
        float *d = dy + (size_t)i * cols;
        const float *o = y + (size_t)i * cols;
        for (int j = 0; j < cols; j++) {
            if (!(o[j] > 0.0f))
                d[j] = 0.0f;
            dbias[j] += d[j];
        }
    }
}
