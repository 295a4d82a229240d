/* Tests of exercise 3.3, ps_async_push (on the device under test). */
#include <math.h>

#include "ch3.h"
#include "helpers.h"
#include "on_device.h"

Test(ex_ps_async_push, a_fresh_gradient_is_plain_sgd)
{
    float w[2] = {1, -2};
    const float g[2] = {4, 8};
    long version = 5;
    char err[ERR_LEN];
    cr_assert(push(w, &version, g, 2, 5, 0, 0.25f, err) == 1, "tau = 0, bound 0: %s", err);
    cr_assert(w[0] == 0 && w[1] == -4, "got %g %g, expected 0 -4", w[0], w[1]);
    cr_assert(version == 6, "version %ld after one applied push, expected 6", version);
}

Test(ex_ps_async_push, a_stale_gradient_takes_a_smaller_step)
{
    /* tau = 3: step lr / 4 */
    float w[3] = {1, 1, 1};
    const float g[3] = {8, -8, 0};
    long version = 10;
    char err[ERR_LEN];
    cr_assert(push(w, &version, g, 3, 7, 3, 0.5f, err) == 1, "tau = 3 = bound: %s", err);
    cr_assert(w[0] == 0 && w[1] == 2 && w[2] == 1, "got %g %g %g, expected 0 2 1 "
              "(lr / (1 + tau) = 0.125)", w[0], w[1], w[2]);
    cr_assert(version == 11, "version %ld, expected 11", version);
}

Test(ex_ps_async_push, too_stale_is_dropped)
{
    float w[2] = {1.5f, -2.5f};
    const float g[2] = {100, 100};
    long version = 10;
    char err[ERR_LEN];
    cr_assert(push(w, &version, g, 2, 6, 3, 0.5f, err) == 0, "tau = 4 > bound 3 must be "
              "dropped (result 0)");
    cr_assert(w[0] == 1.5f && w[1] == -2.5f, "a dropped gradient changed the weights to %g %g",
              w[0], w[1]);
    cr_assert(version == 10, "a dropped gradient moved the version to %ld", version);
}

Test(ex_ps_async_push, impossible_versions_are_errors)
{
    float w[1] = {3};
    const float g[1] = {1};
    long version = 3;
    char err[ERR_LEN] = "";
    cr_assert(push(w, &version, g, 1, 3, 10, 1, err) == 1 && w[0] == 2 && version == 4,
              "a valid push first: result, weight, version should be 1, 2, 4 (%s)", err);
    w[0] = 3;
    cr_assert(push(w, &version, g, 1, 5, 10, 0.1f, err) == -1, "a gradient from the future");
    cr_assert(err[0], "an error needs a message");
    err[0] = 0;
    cr_assert(push(w, &version, g, 1, -1, 10, 0.1f, err) == -1, "a negative version");
    cr_assert(err[0], "an error needs a message");
    err[0] = 0;
    cr_assert(push(w, &version, g, 1, 4, -1, 0.1f, err) == -1, "a negative bound");
    cr_assert(err[0], "an error needs a message");
    cr_assert(w[0] == 3 && version == 4, "an error changed the server (w %g, version %ld)",
              w[0], version);
}

/* Asynchronous SGD on f(w) = |w - t|^2 / 2 (gradient w - t) with four workers pushing in a
 * seeded random order, each from the copy of the weights it pulled last. The test replays
 * the same schedule in double precision with its own bookkeeping and compares. */
Test(ex_ps_async_push, an_asynchronous_run)
{
    enum { W = 4, N = 37, PUSHES = 800 };
    const int bound = 2;
    const float lr = 0.5f;
    float w[N], copy[W][N], g[N];
    double ref[N], ref_copy[W][N], target[N];
    long version = 0, ref_version = 0, pulled[W] = {0};
    int applied = 0, ref_applied = 0;
    for (int i = 0; i < N; i++) {
        target[i] = (double)((i * 29) % 17) - 8;
        w[i] = 0;
        ref[i] = 0;
    }
    for (int k = 0; k < W; k++)
        for (int i = 0; i < N; i++)
            copy[k][i] = 0, ref_copy[k][i] = 0;
    unsigned long long rng = 12345;
    char err[ERR_LEN];
    for (int p = 0; p < PUSHES; p++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = (int)((rng >> 33) % W);
        for (int i = 0; i < N; i++)
            g[i] = copy[k][i] - (float)target[i];
        int rc = push(w, &version, g, N, pulled[k], bound, lr, err);
        cr_assert(rc >= 0, "push %d: %s", p, err);
        long tau = ref_version - pulled[k];
        int expect = tau <= bound;
        cr_assert(rc == expect, "push %d from worker %d (staleness %ld, bound %d): result %d, "
                  "expected %d", p, k, tau, bound, rc, expect);
        if (expect) {
            for (int i = 0; i < N; i++)
                ref[i] -= lr / (1.0 + (double)tau) * (ref_copy[k][i] - target[i]);
            ref_version++;
            ref_applied++;
        }
        applied += rc;
        cr_assert(version == ref_version, "push %d: version %ld, expected %ld", p, version,
                  ref_version);
        for (int i = 0; i < N; i++) {
            cr_assert(fabs(w[i] - ref[i]) < 1e-4 * (1 + fabs(ref[i])), "push %d (staleness "
                      "%ld), element %d: %g, expected %g", p, tau, i, w[i], ref[i]);
            copy[k][i] = w[i], ref_copy[k][i] = ref[i]; /* the worker pulls */
        }
        pulled[k] = version;
    }
    cr_assert(applied == ref_applied && applied > PUSHES / 2, "applied %d of %d pushes",
              applied, PUSHES);
    for (int i = 0; i < N; i++)
        cr_assert(fabs(w[i] - target[i]) < 1e-3, "element %d did not converge: %g, target %g",
                  i, w[i], target[i]);
}
