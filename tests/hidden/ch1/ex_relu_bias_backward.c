/* Hidden tests of exercise 1.4, relu_bias_backward: outputs at the edges of "positive"
 * (-0, subnormals, infinities), every width from 1 to 17, and very long rows and columns
 * (not in the students' handout). The reference is a plain loop; the gradients are small
 * integers, so every column sum is exact in float whatever the order of the additions. */
#include <float.h>
#include <math.h>

#include "ch1.h"
#include "helpers.h"
#include "rng.h"

/* Run relu_bias_backward on dy (rows x cols) and y, and compare dy and dbias with a plain
 * loop: dy kept where y > 0, else 0; dbias[j] the sum of the kept dy[.][j] in double. */
static void check(const char *what, int rows, int cols, const float *y, const float *dy0)
{
    size_t n = (size_t)rows * cols;
    float *dy = xcalloc(n, 4), *dbias = xcalloc((size_t)cols, 4);
    double *want_bias = xcalloc((size_t)cols, 8);
    memcpy(dy, dy0, n * 4);
    for (int j = 0; j < cols; j++)
        dbias[j] = -777.0f; /* garbage the function must overwrite */
    relu_bias_backward(dy, y, dbias, rows, cols);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            size_t k = (size_t)i * cols + j;
            float want = y[k] > 0 ? dy0[k] : 0.0f;
            want_bias[j] += want;
            cr_assert(dy[k] == want, "%s, %dx%d: dy[%d][%d] = %g, expected %g (y = %g, dy was %g)",
                      what, rows, cols, i, j, dy[k], want, y[k], dy0[k]);
        }
    for (int j = 0; j < cols; j++)
        cr_assert(dbias[j] == want_bias[j], "%s, %dx%d: dbias[%d] = %.9g, expected %.9g", what,
                  rows, cols, j, dbias[j], want_bias[j]);
    free(dy);
    free(dbias);
    free(want_bias);
}

/* A random case: y positive or not with equal odds, dy integers in [-8, 8] never 0. */
static void random_case(const char *what, int rows, int cols, uint64_t seed)
{
    size_t n = (size_t)rows * cols;
    float *y = xcalloc(n, 4), *dy = xcalloc(n, 4);
    Rng r;
    rng_seed(&r, seed, 0);
    for (size_t i = 0; i < n; i++) {
        y[i] = rng_normal(&r);
        int v = (int)rng_below(&r, 16) - 8;
        dy[i] = (float)(v >= 0 ? v + 1 : v);
    }
    check(what, rows, cols, y, dy);
    free(y);
    free(dy);
}

/* "Not positive" is y > 0 false: -0 and -infinity block the gradient; the smallest
 * subnormal, FLT_MIN and +infinity let it through. Two rows, so the sums add two values. */
Test(hidden_relu_bias_backward, outputs_at_the_edges_of_positive)
{
    enum { COLS = 8 };
    const float y[2 * COLS] = {-0.0f, 0.0f, 1e-45f, FLT_MIN, INFINITY, -INFINITY, -1e-45f,
                               -FLT_MIN, 1e-45f, -0.0f, INFINITY, 0.0f, -INFINITY, FLT_MIN,
                               FLT_MAX, -FLT_MAX};
    float dy[2 * COLS];
    for (int i = 0; i < 2 * COLS; i++)
        dy[i] = (float)(i + 1) * (i % 2 ? -1.0f : 1.0f);
    check("y in {-0, +0, 1e-45, FLT_MIN, +-inf, -1e-45, -FLT_MIN, FLT_MAX, -FLT_MAX}", 2, COLS,
          y, dy);
}

/* Every width from 1 to 17 at 5 rows: loops unrolled over columns must get the tail. */
Test(hidden_relu_bias_backward, every_width_from_1_to_17)
{
    for (int cols = 1; cols <= 17; cols++)
        random_case("widths 1 to 17", 5, cols, 1400 + (uint64_t)cols);
}

/* One row of 10001 columns, 10001 rows of one column, and 4099 rows of 3 columns. */
Test(hidden_relu_bias_backward, very_long_rows_and_columns)
{
    random_case("one long row", 1, 10001, 1501);
    random_case("one long column", 10001, 1, 1502);
    random_case("tall and narrow", 4099, 3, 1503);
}
