/* The harness of the hidden tests of exercise 10.2: ranks launched with a watched
 * communicator on the CPU, each calling onebit_all_reduce step after step, and checking
 * what it returns against every rank's compression as the book's compressor
 * (onebit_reference.h) does it, which each rank repeats for all ranks, their error feedback
 * included (not in the students' handout). */
#ifndef DPS_TEST_ONEBIT_RANKS_REFERENCE_H
#define DPS_TEST_ONEBIT_RANKS_REFERENCE_H

#include "../../ch2/ranks.h"
#include "ch10.h"
#include "onebit_reference.h"

/* What the ranks of a run do: `steps` calls for each of the sizes, with the gradient
 * onebit_value(rank, i, step); identity: instead of the bits of every step, only the sum
 * over the steps at the end (error feedback loses nothing). */
typedef struct OnebitJob {
    const size_t *sizes;
    int n_sizes, steps, identity;
} OnebitJob;

/* The step of the data of call t of size k. */
static inline int onebit_step(int k, int t)
{
    return 100 * k + t;
}

/* For every rank q, its gradient of step `step` compressed with its error e[q] (updated) by
 * the book's compressor; want[i] = the mean of the decoded values, added in double in rank
 * order; scale[i] += the magnitudes added. */
static inline void onebit_expected(int N, size_t n, int step, float **e, float *want,
                                   double *scale, float *g, uint8_t *bits)
{
    double *s = xcalloc(n + 1, sizeof *s);
    for (int q = 0; q < N; q++) {
        float hi, lo;
        for (size_t i = 0; i < n; i++)
            g[i] = onebit_value(q, i, step);
        onebit_reference(g, e[q], n, bits, &hi, &lo);
        for (size_t i = 0; i < n; i++) {
            double d = onebit_decoded(bits, hi, lo, i);
            s[i] += d;
            scale[i] += fabs(g[i]) + fabs(d);
        }
    }
    for (size_t i = 0; i < n; i++)
        want[i] = (float)(s[i] / N);
    free(s);
}

static inline int onebit_sizes(Comm *c, Watched *w, const OnebitJob *job, char *err)
{
    int N = c->size, rank = c->rank;
    for (int k = 0; k < job->n_sizes; k++) {
        size_t n = job->sizes[k], m = onebit_message_bytes(n);
        float *grad = xcalloc(n + 1, sizeof *grad), *error = xcalloc(n + 1, sizeof *error);
        float *want = xcalloc(n + 1, sizeof *want), *g = xcalloc(n + 1, sizeof *g);
        double *given = xcalloc(n + 1, sizeof *given), *sent = xcalloc(n + 1, sizeof *sent);
        double *scale = xcalloc(n + 1, sizeof *scale);
        uint8_t *bits = xcalloc(n / 8 + 1, 1);
        unsigned char *scratch = xcalloc((size_t)N * m, 1);
        float **e = xcalloc((size_t)N, sizeof *e);
        for (int q = 0; q < N; q++)
            e[q] = xcalloc(n + 1, sizeof **e);
        for (int t = 0; t < job->steps; t++) {
            int step = onebit_step(k, t);
            for (size_t i = 0; i < n; i++)
                grad[i] = onebit_value(rank, i, step);
            for (int q = 0; q < N; q++)
                for (size_t i = 0; i < n; i++)
                    given[i] += onebit_value(q, i, step);
            size_t before = w->bytes;
            if (onebit_all_reduce(c, grad, error, n, scratch, err))
                return -1;
            size_t bytes = w->bytes - before, most = (size_t)(N - 1) * m;
            if (bytes > most)
                return error_set(err,
                                 "N = %d, n = %zu, step %d: rank %d sent %zu bytes; at "
                                 "most (N - 1) x %zu = %zu, one message of the bits and the "
                                 "two means per other rank",
                                 N, n, t, rank, bytes, m, most);
            onebit_expected(N, n, step, e, want, scale, g, bits);
            for (size_t i = 0; i < n; i++)
                sent[i] += (double)grad[i] * N;
            if (job->identity)
                continue;
            for (size_t i = 0; i < n; i++)
                if (memcmp(&grad[i], &want[i], sizeof want[i]) != 0)
                    return error_set(err,
                                     "N = %d, n = %zu, step %d: rank %d has %.9g at %zu, "
                                     "expected %.9g (every rank's decoded values, added in "
                                     "double in rank order, divided by N)",
                                     N, n, t, rank, grad[i], i, want[i]);
            for (size_t i = 0; i < n; i++)
                if (memcmp(&error[i], &e[rank][i], sizeof error[i]) != 0)
                    return error_set(err,
                                     "N = %d, n = %zu, step %d: rank %d's error[%zu] is "
                                     "%.9g, expected %.9g (as onebit_compress leaves it)",
                                     N, n, t, rank, i, error[i], e[rank][i]);
        }
        /* The identity: what was sent plus what every rank still holds is what was given;
         * this rank's error is its own, the others' the book's. */
        for (size_t i = 0; job->identity && i < n; i++) {
            double held = error[i];
            for (int q = 0; q < N; q++)
                held += q == rank ? 0 : e[q][i];
            if (fabs(sent[i] + held - given[i]) > 1e-4 * scale[i])
                return error_set(err,
                                 "N = %d, n = %zu, after %d steps: at %zu, N x the "
                                 "means returned add up to %.9g, and with the ranks' errors "
                                 "(rank %d's %.9g) to %.9g; the gradients given add up to "
                                 "%.9g",
                                 N, n, job->steps, i, sent[i], rank, (double)error[i],
                                 sent[i] + held, given[i]);
        }
        for (int q = 0; q < N; q++)
            free(e[q]);
        free(e), free(grad), free(error), free(want), free(g), free(given), free(sent);
        free(scale), free(bits), free(scratch);
    }
    return 0;
}

static inline int onebit_main(int rank, int size, void *arg, char *err)
{
    (void)size;
    Watched w;
    Comm *c = cpu_watched(rank, &w, err);
    if (!c)
        return -1;
    if (onebit_sizes(c, &w, arg, err))
        return -1;
    c->close(c);
    return 0;
}

/* Run the job on N ranks whose channels hold chan bytes (0: the default), a peer waited for
 * `wait` s at most; a failure fails the test with the rank's message. */
static inline void onebit_run(int N, size_t chan, double wait, const OnebitJob *job)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(N, chan, wait, onebit_main, (void *)job, 60, err) == 0, "N = %d: %s", N,
              err);
}

#endif
