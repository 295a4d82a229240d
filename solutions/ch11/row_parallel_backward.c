/* Exercise 11.1, reference solution. */
#include "ch11.h"

void row_parallel_backward(const float *act, const float *W, const float *delta, int B, int h,
                           int m, bool first, float *dW, float *db, float *dX)
{
    /* The weight's gradient: its own slice of the input against the whole delta. */
    for (int k = 0; k < h; k++)
        for (int j = 0; j < m; j++) {
            double s = 0;
            for (int b = 0; b < B; b++)
                s += (double)act[(size_t)b * h + k] * (double)delta[(size_t)b * m + j];
            dW[(size_t)k * m + j] = (float)s;
        }
    /* The bias is added once, by the row's first rank: only its gradient is the sum. */
    for (int j = 0; j < m; j++) {
        double s = 0;
        for (int b = 0; first && b < B; b++)
            s += (double)delta[(size_t)b * m + j];
        db[j] = (float)s;
    }
    /* The rank's term of the input's gradient, through its own ReLU mask. */
    for (int b = 0; b < B; b++)
        for (int k = 0; k < h; k++) {
            double s = 0;
            for (int j = 0; j < m; j++)
                s += (double)delta[(size_t)b * m + j] * (double)W[(size_t)k * m + j];
            dX[(size_t)b * h + k] = act[(size_t)b * h + k] > 0 ? (float)s : 0.0f;
        }
}
