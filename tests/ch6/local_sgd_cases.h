/* The cases of exercise 6.3's tests (public and hidden): one configuration of levels, and a
 * run of calls, each with what it must do, worked out by hand: stay quiet, refuse, or average
 * within groups of a given size. Every rank checks its own weights, what it sent and to whom;
 * the test then checks that the ranks of each group ended with the same bits. */
#ifndef DPS_TEST_LOCAL_SGD_CASES_H
#define DPS_TEST_LOCAL_SGD_CASES_H

#include <float.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>

#include "ch4/cases.h"
#include "ch6.h"
#include "helpers.h"

/* A rank that waits this long without progress fails, so that a deadlock fails fast. */
#define LSGD_WAIT_S 2.0
#define LSGD_LIMIT_S 30.0
#define LSGD_CALLS 16

enum { QUIET = 0, REFUSE = -1 }; /* what a call must do; above 0, the size of the groups */

typedef struct Call {
    long step;
    int must; /* QUIET, REFUSE, or the size of the groups that average */
} Call;

typedef struct LsgdCase {
    size_t n;
    int noisy; /* 1: non-integer weights, checked within rounding; 0: small integers */
    long warmup;
    int levels, periods[4], sizes[4];
    int calls;
    Call call[LSGD_CALLS];
} LsgdCase;

/* What the ranks are handed: the case, and where they leave each call's weights on each rank
 * ([call][rank][n], shared). */
typedef struct LsgdRun {
    const LsgdCase *k;
    float *results;
} LsgdRun;

/* The weights of a rank before call j: small integers, or non-integer ones. */
static float lsgd_weight(const LsgdCase *k, int rank, int j, size_t i)
{
    if (!k->noisy)
        return (float)((rank + 1) * 100 + (long)(i % 13) - j);
    uint64_t x = (uint64_t)(rank + 11) * 0x9E3779B97F4A7C15ull + i * 0xD1B54A32D192ED03ull +
                 (uint64_t)j * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    return (float)(x % 1000003) / 977.0f - 511.0f;
}

/* What call j sent that it must not have: a message when quiet, one outside the group, more
 * than 2 (g - 1) chunk_max(n, g) floats. NULL, or the reason. */
static const char *lsgd_bad_traffic(const LsgdCase *k, const Watched *w, int rank, int must,
                                    char *why, size_t len)
{
    if (must <= 0)
        return w->sends ? (snprintf(why, len, "sent %ld messages, expected none (%s)", w->sends,
                                    must == REFUSE ? "the levels are refused" : "not its step"),
                           why)
                        : NULL;
    int base = rank - rank % must;
    unsigned long long group = must >= 64 ? ~0ull : ((1ull << must) - 1) << base;
    if (w->to & ~group)
        return snprintf(why, len, "sent to ranks outside its group of ranks %d..%d (mask %#llx)",
                        base, base + must - 1, w->to & ~group),
               why;
    size_t most = 2 * (size_t)(must - 1) * chunk_max(k->n, must) * sizeof(float);
    if (w->bytes > most)
        return snprintf(why, len, "sent %zu bytes, above 2 (g - 1) chunk_max(n, g) floats = %zu "
                        "(g = %d)", w->bytes, most, must),
               why;
    return NULL;
}

static int lsgd_rank(int rank, int size, void *arg, char *err)
{
    const LsgdCase *k = ((const LsgdRun *)arg)->k;
    float *results = ((const LsgdRun *)arg)->results;
    size_t n = k->n;
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    float *host = xcalloc(n + 1, sizeof *host);
    float *p = guarded(inner->dev, n), *scratch = guarded(inner->dev, n);
    for (int j = 0; j < k->calls; j++) {
        const Call *a = &k->call[j];
        for (size_t i = 0; i < n; i++)
            host[i] = lsgd_weight(k, rank, j, i);
        inner->dev->upload(p, host, n * sizeof(float));
        Watched w;
        Comm *c = watch(&w, inner, 0);
        w.comm.allreduce = NULL; /* the averaging is the exercise's, by messages */
        char why[ERR_LEN] = "", bad[200];
        int rc = local_sgd_sync(c, p, n, a->step, k->warmup, k->periods, k->sizes, k->levels,
                                scratch, why);
        if (a->must == REFUSE && rc == 0)
            return error_set(err, "step %ld: rank %d returned 0; these levels must be refused",
                             a->step, rank);
        if (a->must == REFUSE && !strstr(why, "level") && !strstr(why, "warmup"))
            return error_set(err, "step %ld: rank %d refused with \"%s\", which names neither "
                             "the level nor the warmup", a->step, rank, why);
        if (a->must != REFUSE && rc)
            return error_set(err, "step %ld, %zu weights: rank %d returned -1: %s", a->step, n,
                             rank, why);
        if (lsgd_bad_traffic(k, &w, rank, a->must, bad, sizeof bad))
            return error_set(err, "step %ld, %zu weights: rank %d %s", a->step, n, rank, bad);
        if (!guard_ok(c->dev, p, n) || !guard_ok(c->dev, scratch, n))
            return error_set(err, "step %ld, %zu weights: rank %d wrote past the end of params "
                             "or scratch (n floats each)", a->step, n, rank);
        c->dev->download(host, p, n * sizeof(float));
        int g = a->must > 0 ? a->must : 1, base = rank - rank % g;
        for (size_t i = 0; i < n; i++) {
            double want = 0, mag = 0;
            for (int q = base; q < base + g; q++) {
                double x = lsgd_weight(k, a->must > 0 ? q : rank, j, i);
                want += x, mag += fabs(x);
            }
            want /= g, mag /= g;
            if (a->must <= 0 ? host[i] != (float)want
                             : fabs(host[i] - want) > 8 * FLT_EPSILON * fmax(mag, 1e-30))
                return error_set(err, "step %ld, %zu weights: rank %d has %.9g at %zu, expected "
                                 "%.9g (%s)", a->step, n, rank, host[i], i, want,
                                 a->must > 0 ? "the mean over its group" : "its own, untouched");
            results[((size_t)j * size + rank) * n + i] = host[i];
        }
    }
    inner->dev->release(p);
    inner->dev->release(scratch);
    free(host);
    inner->close(inner);
    return 0;
}

/* Run case k on N ranks; then the same bits on every rank of each averaging group. */
static void lsgd_check(int N, LsgdCase k)
{
    char err[ERR_LEN];
    size_t bytes = (size_t)k.calls * N * (k.n ? k.n : 1) * sizeof(float);
    LsgdRun run = {&k, shared_zeroed(bytes)};
    cr_assert(run.results, "no shared memory");
    cr_assert(run_ranks(N, 0, LSGD_WAIT_S, lsgd_rank, &run, LSGD_LIMIT_S, err) == 0,
              "N = %d: %s", N, err);
    for (int j = 0; j < k.calls; j++)
        for (int r = 0; k.call[j].must > 0 && r < N; r++) {
            int first = r - r % k.call[j].must;
            const float *mine = run.results + ((size_t)j * N + r) * k.n,
                        *theirs = run.results + ((size_t)j * N + first) * k.n;
            for (size_t i = 0; i < k.n; i++)
                cr_assert(memcmp(&mine[i], &theirs[i], sizeof(float)) == 0,
                          "N = %d, step %ld: rank %d has %.9g at %zu but rank %d, of its group, "
                          "has %.9g: a group must end with the same bits", N, k.call[j].step, r,
                          mine[i], i, first, theirs[i]);
        }
    munmap(run.results, bytes);
}

#endif
