/* Tests of exercise 3.1, ps_weighted_mean (on the device under test). */
#include <math.h>
#include <string.h>

#include "ch3.h"
#include "helpers.h"
#include "on_device.h"

/* Upload the workers' gradients, run the exercise, download the result (on_device.h). */
static int run(int workers, const float *g, const int *counts, size_t n, float *out,
               char *err)
{
    memset(out, 0, n * sizeof *out);
    return weighted_mean(workers, g, counts, n, out, err);
}

Test(ex_ps_weighted_mean, by_hand)
{
    /* counts 1 and 3: (g0 + 3 g1) / 4 */
    const float g[4] = {4, -8, 0, 4};
    const int counts[2] = {1, 3};
    float out[2];
    char err[ERR_LEN];
    cr_assert(run(2, g, counts, 2, out, err) == 0, "%s", err);
    cr_assert(fabsf(out[0] - 1.0f) < 1e-6f && fabsf(out[1] - 1.0f) < 1e-6f,
              "got %g %g, expected 1 1", out[0], out[1]);
}

Test(ex_ps_weighted_mean, equal_counts_give_the_mean)
{
    enum { W = 5, N = 1000 };
    float *g = xcalloc(W * N, 4), out[N];
    int counts[W] = {7, 7, 7, 7, 7};
    for (int i = 0; i < W * N; i++)
        g[i] = (float)((i * 37) % 101) / 13.0f - 3;
    char err[ERR_LEN];
    cr_assert(run(W, g, counts, N, out, err) == 0, "%s", err);
    for (int i = 0; i < N; i++) {
        double mean = 0;
        for (int w = 0; w < W; w++)
            mean += g[w * N + i] / 5.0;
        cr_assert(fabs(out[i] - mean) < 1e-5, "element %d: %g, expected %g", i, out[i], mean);
    }
    free(g);
}

Test(ex_ps_weighted_mean, a_worker_without_samples_is_ignored)
{
    const float g[6] = {1, 2, NAN, NAN, 5, 6};
    const int counts[3] = {2, 0, 2};
    float out[2];
    char err[ERR_LEN];
    cr_assert(run(3, g, counts, 2, out, err) == 0, "%s", err);
    cr_assert(out[0] == 3 && out[1] == 4, "got %g %g, expected 3 4", out[0], out[1]);
}

Test(ex_ps_weighted_mean, impossible_counts_are_errors)
{
    const float g[2] = {1, 2};
    float out[1];
    char err[ERR_LEN] = "";
    const int zero[2] = {0, 0}, negative[2] = {3, -1};
    cr_assert(run(2, g, zero, 1, out, err) == -1 && err[0], "all-zero counts were accepted");
    err[0] = '\0';
    cr_assert(run(2, g, negative, 1, out, err) == -1 && strstr(err, "negative"),
              "a negative count: '%s'", err);
}
