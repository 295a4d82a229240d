/* The harness of the tests of exercise 7.2 (clip_grad_norm_sharded), public and hidden: in
 * each rank, calls with one max_norm after the other on the rank's gradients, followed by
 * guard floats. A call that must be refused is refused with a message; any other returns a
 * norm, which the test checks, and leaves each gradient multiplied by exactly the float
 * max_norm / (norm + 1e-6) when the norm is above max_norm, untouched otherwise, and the
 * guards untouched. After the run, every rank must have got the same bits of the norm. */
#ifndef DPS_TEST_CLIP_H
#define DPS_TEST_CLIP_H

#include <math.h>
#include <sys/mman.h>

#include "../ch2/ranks.h"
#include "ch7.h"

/* A rank that waits this long for a peer fails, so that a deadlock fails fast. */
#define WAIT_S  2.0
#define LIMIT_S 20.0
/* Floats after each rank's n elements that it must leave alone. */
#define GUARDS      4
#define GUARD_VALUE 12345.0f
/* The most ranks, and the most calls, of a case. */
#define CLIP_MAX 8

typedef struct ClipCall {
    double max_norm;
    int refuse; /* 1: this max_norm must be refused */
} ClipCall;

/* Whether the norm a rank got in a call is right: 0, or -1 with err. arg is the
 * ClipRank's. */
typedef int (*NormCheck)(const void *arg, int rank, int size, double max, double norm,
                         char *err);

/* One case, as each of its ranks runs it. */
typedef struct ClipRank {
    const char *what;                             /* the case, for messages */
    const size_t *n;                              /* elements on each rank */
    float (*value)(int seed, int rank, size_t i); /* element i of a rank */
    int seed;
    int calls;
    const ClipCall *call;
    NormCheck norm_ok;
    const void *arg;
    double *norms; /* shared: the norm rank r got in call j, at j * CLIP_MAX + r */
    int digits;    /* of max_norm in the messages: 6 (as %g prints it) or 17 */
} ClipRank;

/* The gradient or guard at i of a rank that holds n elements. */
static inline float clip_g0(const ClipRank *k, int rank, size_t n, size_t i)
{
    return i < n ? k->value(k->seed, rank, i) : GUARD_VALUE;
}

/* After a call with max_norm max that returned norm: the rank's n gradients in g clipped,
 * or untouched when the norm is not above max; the guards after them untouched. */
static inline int clip_elements_ok(const ClipRank *k, int rank, const float *g, size_t n,
                                   double max, double norm, char *err)
{
    int clip = norm > max;
    float f = (float)(max / (norm + 1e-6));
    for (size_t i = 0; i < n + GUARDS; i++) {
        float g0 = clip_g0(k, rank, n, i);
        float want = i < n && clip ? g0 * f : g0;
        if (memcmp(&g[i], &want, sizeof want) != 0)
            return error_set(err,
                             "%s, max_norm = %.*g, norm %.17g: rank %d has %.9g at %zu, "
                             "expected %.9g (%s)",
                             k->what, k->digits, max, norm, rank, g[i], i, want,
                             i >= n ? "past the rank's n elements: must not be written"
                             : clip ? "the element times the float max_norm / (norm + 1e-6)"
                                    : "unchanged: the norm is not above max_norm");
    }
    return 0;
}

/* Rank @p rank's side of the case (a RankMain's, with the ClipRank as arg). */
static inline int clip_rank(int rank, int size, void *arg, char *err)
{
    const ClipRank *k = arg;
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    size_t n = k->n[rank];
    float *g = xcalloc(n + GUARDS, sizeof *g);
    for (int j = 0; j < k->calls; j++) {
        double max = k->call[j].max_norm, norm = NAN;
        for (size_t i = 0; i < n + GUARDS; i++)
            g[i] = clip_g0(k, rank, n, i);
        char why[ERR_LEN] = "";
        int rc = clip_grad_norm_sharded(c, g, n, max, &norm, why);
        if (k->call[j].refuse) {
            if (rc == 0)
                return error_set(err,
                                 "%s, max_norm = %g: rank %d returned 0; a max_norm that "
                                 "is not positive must be refused",
                                 k->what, max, rank);
            if (!why[0])
                return error_set(err,
                                 "%s, max_norm = %g: rank %d refused without a message",
                                 k->what, max, rank);
            continue;
        }
        if (rc)
            return error_set(err, "%s, max_norm = %.*g: rank %d returned -1: %s", k->what,
                             k->digits, max, rank, why);
        if (k->norm_ok(k->arg, rank, size, max, norm, err))
            return -1;
        k->norms[j * CLIP_MAX + rank] = norm;
        if (clip_elements_ok(k, rank, g, n, max, norm, err))
            return -1;
    }
    free(g);
    c->close(c);
    return 0;
}

/* Run k on N ranks, then check that every rank got the same bits of the norm in every call
 * that is not refused; a failure's message ends with same_why. */
static inline void clip_run(int N, ClipRank k, const char *same_why)
{
    cr_assert(N <= CLIP_MAX && k.calls <= CLIP_MAX, "clip.h holds %d ranks and %d calls",
              CLIP_MAX, CLIP_MAX);
    size_t bytes = CLIP_MAX * CLIP_MAX * sizeof(double);
    double *norms = shared_zeroed(bytes);
    cr_assert(norms, "mmap failed");
    k.norms = norms;
    char err[ERR_LEN];
    cr_assert(run_ranks(N, 0, WAIT_S, clip_rank, &k, LIMIT_S, err) == 0, "N = %d: %s", N,
              err);
    for (int j = 0; j < k.calls; j++)
        for (int q = 1; q < N && !k.call[j].refuse; q++)
            cr_assert(
                memcmp(&norms[j * CLIP_MAX + q], &norms[j * CLIP_MAX], sizeof(double)) == 0,
                "%s, max_norm = %.*g: rank %d got norm %.17g, rank 0 %.17g: every rank "
                "must get the same bits%s",
                k.what, k.digits, k.call[j].max_norm, q, norms[j * CLIP_MAX + q],
                norms[j * CLIP_MAX], same_why);
    munmap(norms, bytes);
}

#endif
