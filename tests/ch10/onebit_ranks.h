/* The harness of the public tests of exercise 10.2: ranks launched with a watched
 * communicator on the CPU, each calling onebit_all_reduce step after step, and checking what
 * must hold whatever the compressor linked (the book's where the grader has it, else the
 * student's own 10.1): at most (N - 1) messages' bytes sent, every rank with the same bits,
 * and error feedback losing nothing across the ranks (what the ranks returned, times N, plus
 * every rank's error still held, is what they were given). Nothing here works out what a
 * rank should return: the comparison with the book's, bit for bit, is among the hidden tests. */
#ifndef DPS_TEST_ONEBIT_RANKS_H
#define DPS_TEST_ONEBIT_RANKS_H

#include <string.h>

#include "../ch2/ranks.h"
#include "ch10.h"
#include "onebit.h"

/* What the ranks of a run do: `steps` calls of n floats, with the gradient
 * onebit_value(rank, i, step); `shared` (shared_zeroed) holds every rank's result and error,
 * 2 N (n + 1) floats. */
typedef struct OnebitLaws {
    size_t n;
    int steps;
    float *shared;
} OnebitLaws;

static inline int onebit_laws_rank(Comm *c, Watched *w, const OnebitLaws *job, char *err)
{
    int N = c->size, rank = c->rank;
    size_t n = job->n, m = onebit_message_bytes(n);
    float *grad = xcalloc(n + 1, sizeof *grad), *error = xcalloc(n + 1, sizeof *error);
    double *given = xcalloc(n + 1, sizeof *given), *sent = xcalloc(n + 1, sizeof *sent);
    double *scale = xcalloc(n + 1, sizeof *scale);
    unsigned char *scratch = xcalloc((size_t)N * m + 1, 1);
    float *mine = job->shared + (size_t)rank * (n + 1), *errors = job->shared + (size_t)N * (n + 1);
    int rc = 0;
    for (int t = 0; t < job->steps && rc == 0; t++) {
        for (size_t i = 0; i < n; i++)
            grad[i] = onebit_value(rank, i, t);
        for (int q = 0; q < N; q++)
            for (size_t i = 0; i < n; i++) {
                given[i] += onebit_value(q, i, t);
                scale[i] += fabs(onebit_value(q, i, t));
            }
        size_t before = w->bytes;
        if (onebit_all_reduce(c, grad, error, n, scratch, err)) {
            rc = -1;
            break;
        }
        size_t bytes = w->bytes - before, most = (size_t)(N - 1) * m;
        if (bytes > most) {
            rc = error_set(err, "N = %d, n = %zu, step %d: rank %d sent %zu bytes; at most "
                           "(N - 1) x %zu = %zu, one message of the bits and the two means per "
                           "other rank", N, n, t, rank, bytes, m, most);
            break;
        }
        for (size_t i = 0; i < n; i++) {
            sent[i] += (double)grad[i] * N;
            scale[i] += fabs((double)grad[i] * N);
        }
        /* Every rank's result side by side, compared with rank 0's, then room for the next. */
        memcpy(mine, grad, n * sizeof *grad);
        if (c->barrier(c, err)) {
            rc = -1;
            break;
        }
        for (size_t i = 0; i < n && rc == 0; i++)
            if (memcmp(&mine[i], &job->shared[i], sizeof *mine) != 0)
                rc = error_set(err, "N = %d, n = %zu, step %d: rank %d has %.9g at %zu, rank 0 "
                               "%.9g: every rank must end with the same bits", N, n, t, rank,
                               (double)mine[i], i, (double)job->shared[i]);
        if (rc == 0 && c->barrier(c, err))
            rc = -1;
    }
    /* Error feedback loses nothing: N x the results plus every rank's error is what was given. */
    memcpy(errors + (size_t)rank * (n + 1), error, n * sizeof *error);
    if (rc == 0 && c->barrier(c, err))
        rc = -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        double held = 0, size = scale[i];
        for (int q = 0; q < N; q++) {
            held += errors[(size_t)q * (n + 1) + i];
            size += fabs(errors[(size_t)q * (n + 1) + i]);
        }
        if (fabs(sent[i] + held - given[i]) > 1e-4 * size + 1e-30)
            rc = error_set(err, "N = %d, n = %zu, after %d steps: at %zu, N x the means returned "
                           "add up to %.9g, and with the ranks' errors to %.9g; the gradients "
                           "given add up to %.9g", N, n, job->steps, i, sent[i], sent[i] + held,
                           given[i]);
    }
    free(grad), free(error), free(given), free(sent), free(scale), free(scratch);
    return rc;
}

static inline int onebit_laws_main(int rank, int size, void *arg, char *err)
{
    (void)size;
    Watched w;
    Comm *c = cpu_watched(rank, &w, err);
    if (!c)
        return -1;
    if (onebit_laws_rank(c, &w, arg, err))
        return -1;
    c->close(c);
    return 0;
}

/* `steps` calls of n floats on N ranks; a failure fails the test with the rank's message. */
static inline void onebit_laws(int N, size_t n, int steps)
{
    OnebitLaws job = {n, steps, shared_zeroed(2 * (size_t)N * (n + 1) * sizeof(float) + 1)};
    cr_assert(job.shared, "no shared memory for the test");
    char err[ERR_LEN];
    cr_assert(run_ranks(N, 0, 3.0, onebit_laws_main, &job, 60, err) == 0, "N = %d: %s", N, err);
}

#endif
