/* Exercise 10.3, reference solution: QSGD's quantizer. */
#include <math.h>

#include "ch10.h"

void qsgd_quantize(const float *v, const uint32_t *noise, size_t n, int s, int8_t *q,
                   float *scale)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)v[i] * (double)v[i];
    double norm = sqrt(sum);
    *scale = (float)norm;
    for (size_t i = 0; i < n; i++) {
        if (norm == 0 || v[i] == 0) {
            q[i] = 0;
            continue;
        }
        double a = fabs((double)v[i]) / norm * s, low = floor(a);
        /* The upper level with probability a - low: low + (a - low) = a on average. */
        int level = (int)low + ((double)noise[i] < (a - low) * 4294967296.0);
        q[i] = (int8_t)(v[i] < 0 ? -level : level);
    }
}
