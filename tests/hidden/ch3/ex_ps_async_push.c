/* Hidden tests of exercise 3.3, ps_async_push: other bounds, versions beyond the range of an
 * int, sizes from 0 to 100003 elements, and a run with bound 0 (not in the students'
 * handout). */
#include <math.h>

#include "ch3.h"
#include "helpers.h"
#include "ch3/on_device.h"

/* A weight or gradient value with a fractional part. */
static float value(int seed, size_t i)
{
    return (float)((long)((i * 2654435761u + (size_t)seed * 40503u) % 1999) - 999) / 32.0f;
}

/* For bounds 0, 1 and 7: tau = bound is applied with lr / (1 + bound), and tau = bound + 1
 * is dropped, bit for bit. */
Test(hidden_ps_async_push, every_bound_is_inclusive)
{
    enum { N = 5 };
    const int bounds[3] = {0, 1, 7};
    const float lr = 0.3f;
    for (int b = 0; b < 3; b++) {
        int bound = bounds[b];
        float w[N], w0[N], g[N];
        for (int i = 0; i < N; i++)
            w[i] = w0[i] = value(1, (size_t)i), g[i] = value(2, (size_t)i);
        long version = 20, gv = 20 - bound;
        char err[ERR_LEN] = "";
        int rc = push(w, &version, g, N, gv, bound, lr, err);
        cr_assert(rc == 1, "bound %d, staleness %d (= bound): result %d, expected 1 (%s)", bound,
                  bound, rc, err);
        cr_assert(version == 21, "bound %d, staleness %d: version %ld after an applied push, "
                  "expected 21", bound, bound, version);
        for (int i = 0; i < N; i++) {
            double want = w0[i] - (double)lr / (1.0 + bound) * g[i];
            cr_assert(fabs(w[i] - want) <= 1e-6 * (1 + fabs(want)), "bound %d, staleness %d, "
                      "lr %g: element %d is %.8g, expected %.8g (step lr / (1 + tau))", bound,
                      bound, lr, i, w[i], want);
        }
        for (int i = 0; i < N; i++)
            w0[i] = w[i];
        version = 20;
        gv = 20 - bound - 1;
        rc = push(w, &version, g, N, gv, bound, lr, err);
        cr_assert(rc == 0, "bound %d, staleness %d (= bound + 1): result %d, expected 0 "
                  "(dropped)", bound, bound + 1, rc);
        cr_assert(version == 20, "bound %d, staleness %d: a dropped gradient moved the version "
                  "to %ld, expected 20", bound, bound + 1, version);
        for (int i = 0; i < N; i++)
            cr_assert(w[i] == w0[i], "bound %d, staleness %d: a dropped gradient changed "
                      "element %d from %g to %g", bound, bound + 1, i, w0[i], w[i]);
    }
}

/* Versions are longs: a server past version 2^32 applies a gradient of staleness 2, drops one
 * of staleness 2^32 + 1 (which is 1 when cut to an int), and refuses one from 2^32 versions
 * in the future (which is 0 behind when cut to an int). */
Test(hidden_ps_async_push, versions_beyond_the_range_of_an_int)
{
    const long big = 5000000000L, wrap = 4294967296L;
    float w[2] = {1, -1};
    const float g[2] = {4, 2}; /* lr / (1 + 2) = 0.25, exact in binary: no rounding to differ */
    long version = big;
    char err[ERR_LEN] = "";
    int rc = push(w, &version, g, 2, big - 2, 3, 0.75f, err);
    cr_assert(rc == 1 && version == big + 1, "server at version %ld, gradient of version %ld "
              "(staleness 2, bound 3): result %d, version %ld, expected 1 and %ld (%s)", big,
              big - 2, rc, version, big + 1, err);
    cr_assert(w[0] == 0 && w[1] == -1.5f, "staleness 2, lr 0.75: got %g %g, expected 0 -1.5",
              w[0], w[1]);
    version = wrap + 1;
    rc = push(w, &version, g, 2, 0, 3, 0.5f, err);
    cr_assert(rc == 0, "server at version %ld, gradient of version 0 (staleness %ld, bound 3): "
              "result %d, expected 0 (dropped; keep tau in a long)", wrap + 1, wrap + 1, rc);
    cr_assert(version == wrap + 1 && w[0] == 0 && w[1] == -1.5f, "a dropped gradient changed "
              "the server: version %ld, weights %g %g", version, w[0], w[1]);
    version = 3;
    err[0] = '\0';
    rc = push(w, &version, g, 2, wrap + 3, 3, 0.5f, err);
    cr_assert(rc == -1 && err[0], "server at version 3, gradient of version %ld (from the "
              "future): result %d, expected -1 with a message", wrap + 3, rc);
    cr_assert(version == 3 && w[0] == 0 && w[1] == -1.5f, "an error changed the server: "
              "version %ld, weights %g %g", version, w[0], w[1]);
}

/* One element, 100003 elements, and none: the step covers every element, and a push of
 * nothing still counts as a version. */
Test(hidden_ps_async_push, sizes_from_zero_to_a_hundred_thousand)
{
    const size_t sizes[3] = {1, 100003, 0};
    const float lr = 0.3f;
    float *w = xcalloc(100003, 4), *w0 = xcalloc(100003, 4), *g = xcalloc(100003, 4);
    for (int s = 0; s < 3; s++) {
        size_t n = sizes[s];
        for (size_t i = 0; i < n; i++)
            w[i] = w0[i] = value(3, i), g[i] = value(4, i);
        long version = 9;
        char err[ERR_LEN] = "";
        int rc = push(w, &version, g, n, 7, 2, lr, err);
        cr_assert(rc == 1 && version == 10, "n = %zu, staleness 2, bound 2: result %d, version "
                  "%ld, expected 1 and 10 (%s)", n, rc, version, err);
        for (size_t i = 0; i < n; i++) {
            double want = w0[i] - (double)lr / 3.0 * g[i];
            cr_assert(fabs(w[i] - want) <= 1e-6 * (1 + fabs(want)), "n = %zu, staleness 2, "
                      "lr %g: element %zu is %.8g, expected %.8g", n, lr, i, w[i], want);
        }
    }
    free(w);
    free(w0);
    free(g);
}

/* Three workers with bound 0 in a seeded random order, each pushing from the copy it pulled
 * last: only a worker that pulled the current version gets its gradient in. Every fifth
 * push also sends a gradient from a version the server has not reached, which must be an
 * error that changes nothing. The test replays the schedule in double precision. */
Test(hidden_ps_async_push, bound_zero_with_errors_in_between)
{
    enum { W = 3, N = 11, PUSHES = 300 };
    const float lr = 0.4f;
    float w[N], copy[W][N], g[N];
    double ref[N], ref_copy[W][N], target[N];
    long version = 0, ref_version = 0, pulled[W] = {0};
    int applied = 0;
    for (int i = 0; i < N; i++) {
        target[i] = (double)((i * 13) % 7) - 3;
        w[i] = 0, ref[i] = 0;
        for (int k = 0; k < W; k++)
            copy[k][i] = 0, ref_copy[k][i] = 0;
    }
    unsigned long long rng = 2024;
    for (int p = 0; p < PUSHES; p++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = (int)((rng >> 33) % W);
        for (int i = 0; i < N; i++)
            g[i] = copy[k][i] - (float)target[i];
        char err[ERR_LEN] = "";
        if (p % 5 == 4) {
            float before[N];
            memcpy(before, w, sizeof w);
            int rc = push(w, &version, g, N, version + 1, 0, lr, err);
            cr_assert(rc == -1 && err[0], "push %d: a gradient of version %ld at a server at "
                      "version %ld: result %d, expected -1 with a message", p, version + 1,
                      version, rc);
            cr_assert(version == ref_version && memcmp(before, w, sizeof w) == 0,
                      "push %d: an error changed the server (version %ld, expected %ld)", p,
                      version, ref_version);
        }
        long tau = ref_version - pulled[k];
        int expect = tau == 0;
        int rc = push(w, &version, g, N, pulled[k], 0, lr, err);
        cr_assert(rc == expect, "push %d from worker %d (staleness %ld, bound 0): result %d, "
                  "expected %d (%s)", p, k, tau, rc, expect, err);
        if (expect) {
            for (int i = 0; i < N; i++)
                ref[i] -= lr * (ref_copy[k][i] - target[i]);
            ref_version++;
            applied++;
        }
        cr_assert(version == ref_version, "push %d: version %ld, expected %ld", p, version,
                  ref_version);
        for (int i = 0; i < N; i++) {
            cr_assert(fabs(w[i] - ref[i]) < 1e-4 * (1 + fabs(ref[i])), "push %d (staleness "
                      "%ld, bound 0), element %d: %g, expected %g", p, tau, i, w[i], ref[i]);
            copy[k][i] = w[i], ref_copy[k][i] = ref[i]; /* the worker pulls */
        }
        pulled[k] = version;
    }
    cr_assert(applied > PUSHES / 4 && applied < PUSHES, "applied %d of %d pushes: the test's "
              "schedule should drop some and apply many", applied, PUSHES);
}
