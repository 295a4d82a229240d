/* Tests of exercise 1.4, relu_bias_backward, against the book's two functions. */
#include <math.h>

#include "ch1.h"
#include "helpers.h"
#include "rng.h"

static void compare(int rows, int cols, int kind)
{
    const Device *cpu = device_cpu();
    size_t n = (size_t)rows * cols;
    float *y = xcalloc(n, 4), *d1 = xcalloc(n, 4), *d2 = xcalloc(n, 4);
    float *b1 = xcalloc((size_t)cols, 4), *b2 = xcalloc((size_t)cols, 4);
    Rng r;
    rng_seed(&r, (uint64_t)rows * 1000 + (uint64_t)cols, (uint64_t)kind);
    for (size_t i = 0; i < n; i++) {
        y[i] = kind == 1 ? 0.0f : kind == 2 && i % 3 == 0 ? NAN : rng_normal(&r);
        d1[i] = d2[i] = rng_normal(&r);
    }
    for (int j = 0; j < cols; j++)
        b2[j] = 123.0f; /* garbage the function must overwrite */
    cpu->relu_backward(d1, y, n);
    cpu->bias_backward(b1, d1, rows, cols);
    relu_bias_backward(d2, y, b2, rows, cols);
    for (size_t i = 0; i < n; i++)
        cr_assert(d1[i] == d2[i], "%dx%d (%s): dy[%zu] = %g, expected %g", rows, cols,
                  kind == 1 ? "all outputs 0" : kind == 2 ? "NaN outputs" : "random", i, d2[i], d1[i]);
    for (int j = 0; j < cols; j++)
        cr_assert(fabsf(b1[j] - b2[j]) <= 1e-5f * (1 + fabsf(b1[j])),
                  "%dx%d: dbias[%d] = %g, expected %g", rows, cols, j, b2[j], b1[j]);
    free(y);
    free(d1);
    free(d2);
    free(b1);
    free(b2);
}

Test(ex_relu_bias_backward, random) { compare(64, 128, 0); compare(37, 11, 0); }
Test(ex_relu_bias_backward, one_row_and_one_column) { compare(1, 50, 0); compare(50, 1, 0); }
Test(ex_relu_bias_backward, all_outputs_zero) { compare(8, 9, 1); }
Test(ex_relu_bias_backward, nan_outputs_block_the_gradient) { compare(16, 16, 2); }
