/* Tests of exercise 6.3, local_sgd_sync. */
#include <math.h>

#include "../ch2/ranks.h"
#include "ch6.h"
#include "helpers.h"

static float value(int rank, long step, size_t i)
{
    return (float)((rank + 1) * 100 + (long)(i % 13) - step);
}

static int rank_main(int rank, int size, void *arg, char *err)
{
    int every = *(int *)arg;
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    size_t n = 1009;
    float *p = xcalloc(n, sizeof *p), *scratch = xcalloc(chunk_max(n, size) + 1, sizeof(float));
    for (long step = 1; step <= 7; step++) {
        for (size_t i = 0; i < n; i++)
            p[i] = value(rank, step, i);
        Watched w;
        Comm *c = watch(&w, inner, 0);
        if (local_sgd_sync(c, p, n, step, every, scratch, err))
            return -1;
        bool due = step % every == 0;
        if (!due && w.sends)
            return error_set(err, "step %ld (every %d): %ld messages sent, expected none",
                             step, every, w.sends);
        for (size_t i = 0; i < n; i++) {
            double want = value(rank, step, i);
            if (due) {
                want = 0;
                for (int q = 0; q < size; q++)
                    want += value(q, step, i);
                want /= size;
            }
            if (fabs(p[i] - want) > 1e-5 * fmax(1, fabs(want)))
                return error_set(err, "rank %d, step %ld (every %d): element %zu is %g, "
                                 "expected %g", rank, step, every, i, p[i], want);
        }
    }
    char why[ERR_LEN];
    if (local_sgd_sync(inner, p, n, 3, 0, scratch, why) == 0)
        return error_set(err, "every = 0 was accepted");
    free(p);
    free(scratch);
    return 0;
}

Test(local_sgd_sync, averages_every_k_steps_and_sends_nothing_between)
{
    for (int N = 1; N <= 4; N++)
        for (int every = 1; every <= 3; every++) {
            char err[ERR_LEN];
            cr_assert(run_ranks(N, 0, 30, rank_main, &every, 60, err) == 0, "N = %d: %s", N,
                      err);
        }
}
