/* Hidden tests of exercise 3.1, ps_weighted_mean: other worker counts and sizes, an output
 * buffer that holds garbage, and counts whose total does not fit in an int (not in the
 * students' handout). */
#include <limits.h>
#include <math.h>

#include "ch3.h"
#include "helpers.h"
#include "ch3/on_device.h"

/* Upload the workers' gradients and out's first contents, run the exercise, download out
 * (on_device.h). */
static int run(int workers, const float *g, const int *counts, size_t n, float *out,
               char *err)
{
    return weighted_mean(workers, g, counts, n, out, err);
}

/* A gradient value with a fractional part, different for every worker and element. */
static float value(int w, size_t i)
{
    return (float)((long)((i * 7919 + (size_t)w * 104729) % 2001) - 1000) / 64.0f;
}

/* Uneven counts (one worker with none) for 5 and 3 workers, at n = 1 and n = 1001, against
 * the weighted mean computed in double precision. out keeps the previous case's result, as a
 * server's buffer keeps the previous step's. */
Test(hidden_ps_weighted_mean, uneven_counts_against_a_double_reference)
{
    enum { W = 5, N = 1001 };
    const int counts5[W] = {1, 0, 64, 3, 17}, counts3[3] = {128, 1, 7};
    const size_t sizes[] = {1, N};
    float *g = xcalloc((size_t)W * N, 4), *out = xcalloc(N, 4);
    for (int t = 0; t < 2; t++) {
        int workers = t == 0 ? W : 3;
        const int *counts = t == 0 ? counts5 : counts3;
        for (int s = 0; s < 2; s++) {
            size_t n = sizes[s];
            long total = 0;
            for (int w = 0; w < workers; w++)
                total += counts[w];
            for (int w = 0; w < workers; w++)
                for (size_t i = 0; i < n; i++)
                    g[(size_t)w * n + i] = value(w, i);
            char err[ERR_LEN] = "";
            int rc = run(workers, g, counts, n, out, err);
            cr_assert(rc == 0, "%d workers, n = %zu: result %d, expected 0 (%s)", workers, n, rc,
                      err);
            for (size_t i = 0; i < n; i++) {
                double want = 0;
                for (int w = 0; w < workers; w++)
                    want += (double)counts[w] * value(w, i);
                want /= (double)total;
                cr_assert(fabs(out[i] - want) <= 1e-5 * (1 + fabs(want)),
                          "%d workers, n = %zu: element %zu is %.8g, expected %.8g", workers, n,
                          i, out[i], want);
            }
        }
    }
    free(g);
    free(out);
}

/* out starts full of NaN and large numbers: it must be overwritten, not added to. Only
 * worker 1 has samples, so the mean is exactly its gradient; the workers without samples
 * hold infinities and NaN. Calling twice on the same out must give the same answer. */
Test(hidden_ps_weighted_mean, out_starts_with_garbage)
{
    enum { N = 7 };
    float g[3 * N], out[N];
    const int counts[3] = {0, 4, 0};
    for (int i = 0; i < N; i++) {
        g[i] = INFINITY;
        g[N + i] = (float)i - 2.5f;
        g[2 * N + i] = NAN;
        out[i] = i % 2 ? NAN : 1e30f;
    }
    for (int call = 1; call <= 2; call++) {
        char err[ERR_LEN] = "";
        int rc = run(3, g, counts, N, out, err);
        cr_assert(rc == 0, "call %d, counts 0 4 0: result %d, expected 0 (%s)", call, rc, err);
        for (int i = 0; i < N; i++)
            cr_assert(out[i] == g[N + i], "call %d, counts 0 4 0, out filled with garbage "
                      "first: element %d is %g, expected %g (worker 1's gradient: out must be "
                      "overwritten, not added to)", call, i, out[i], g[N + i]);
    }
}

/* Counts of two billion and one billion: each fits in an int, their total does not. The
 * weights are 2/3 and 1/3. */
Test(hidden_ps_weighted_mean, counts_whose_total_overflows_an_int)
{
    const int counts[2] = {2000000000, 1000000000};
    const float g[6] = {3, -6, 0.75f, 0, 3, 1.5f};
    float out[3] = {0, 0, 0};
    char err[ERR_LEN] = "";
    int rc = run(2, g, counts, 3, out, err);
    cr_assert(rc == 0, "counts 2000000000 and 1000000000 (total above INT_MAX %d): result %d, "
              "expected 0 (%s)", INT_MAX, rc, err);
    for (int i = 0; i < 3; i++) {
        double want = (2.0 * g[i] + g[3 + i]) / 3.0;
        cr_assert(fabs(out[i] - want) <= 1e-6 * (1 + fabs(want)), "counts 2000000000 and "
                  "1000000000: element %d is %g, expected %g (weights 2/3 and 1/3: the total "
                  "3000000000 must not overflow)", i,
                  out[i], want);
    }
}

/* A negative count anywhere is an error, even when the total is positive; and one worker
 * alone with a positive count returns its own gradient. */
Test(hidden_ps_weighted_mean, a_negative_count_last_and_a_single_worker)
{
    const float g[4] = {1, 2, 3, 4};
    float out[1] = {0};
    const int last_negative[4] = {5, 2, 1, -1}, alone[1] = {9};
    char err[ERR_LEN] = "";
    int rc = run(1, g, alone, 1, out, err);
    cr_assert(rc == 0 && out[0] == 1, "one worker with count 9: result %d, out %g, expected 0 "
              "and 1 (%s)", rc, out[0], err);
    err[0] = '\0';
    rc = run(4, g, last_negative, 1, out, err);
    cr_assert(rc == -1, "counts 5 2 1 -1 (total 7 > 0): result %d, expected -1", rc);
    cr_assert(err[0], "counts 5 2 1 -1: an error needs a message in err");
}
