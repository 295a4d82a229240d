/* Hidden tests of exercise 6.3, local_sgd_sync: five ranks and vectors shorter than the
 * ranks, non-integer weights, step numbers beyond the range of an int, and negative periods
 * (not in the students' handout). */
#include <float.h>
#include <limits.h>
#include <math.h>

#include "ch4/cases.h"
#include "ch6.h"
#include "helpers.h"

/* A rank that waits this long without progress fails, so that a deadlock fails fast. */
#define WAIT_S 2.0
#define LIMIT_S 20.0

enum { QUIET, AVERAGE, REFUSE }; /* what one call must do */

typedef struct Call {
    long step;
    int every;
    int must; /* QUIET, AVERAGE or REFUSE */
} Call;

typedef struct Case {
    size_t n;
    int noisy;      /* 1: non-integer weights, checked within rounding; 0: small integers */
    int calls;
    Call call[8];
    float *results; /* shared: every rank's weights after the first call, rank after rank */
} Case;

/* The weights of a rank before a call: small integers, or non-integer ones. */
static float weight(const Case *k, int rank, int call, size_t i)
{
    if (!k->noisy)
        return (float)((rank + 1) * 100 + (long)(i % 13) - call);
    uint64_t x = (uint64_t)(rank + 11) * 0x9E3779B97F4A7C15ull + i * 0xD1B54A32D192ED03ull +
                 (uint64_t)call * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    return (float)(x % 1000003) / 977.0f - 511.0f;
}

static int rank_main(int rank, int size, void *arg, char *err)
{
    const Case *k = arg;
    size_t n = k->n, most = chunk_max(n, size);
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    float *host = xcalloc(n + 1, sizeof *host);
    float *p = guarded(inner->dev, n), *scratch = guarded(inner->dev, most);
    for (int j = 0; j < k->calls; j++) {
        const Call *a = &k->call[j];
        for (size_t i = 0; i < n; i++)
            host[i] = weight(k, rank, j, i);
        inner->dev->upload(p, host, n * sizeof(float));
        Watched w;
        Comm *c = watch(&w, inner, 0);
        char why[ERR_LEN] = "";
        int rc = local_sgd_sync(c, p, n, a->step, a->every, scratch, why);
        if (a->must == REFUSE && rc == 0)
            return error_set(err, "step %ld, every = %d: rank %d returned 0; every < 1 must be "
                             "refused", a->step, a->every, rank);
        if (a->must == REFUSE && !why[0])
            return error_set(err, "step %ld, every = %d: rank %d refused without a message",
                             a->step, a->every, rank);
        if (a->must != REFUSE && rc)
            return error_set(err, "step %ld, every = %d, %zu weights: rank %d returned -1: %s",
                             a->step, a->every, n, rank, why);
        if (a->must != AVERAGE && w.sends)
            return error_set(err, "step %ld, every = %d: rank %d sent %ld messages, expected "
                             "none (%s)", a->step, a->every, rank, w.sends,
                             a->must == REFUSE ? "every < 1 is refused" : "not a sync step");
        if (!guard_ok(c->dev, p, n) || !guard_ok(c->dev, scratch, most))
            return error_set(err, "step %ld, every = %d, %zu weights: rank %d wrote past the end "
                             "of params (n floats) or scratch (chunk_max(n, N) = %zu floats)",
                             a->step, a->every, n, rank, most);
        c->dev->download(host, p, n * sizeof(float));
        for (size_t i = 0; i < n; i++) {
            double want = weight(k, rank, j, i), mag = fabs(want);
            if (a->must == AVERAGE) {
                want = mag = 0;
                for (int q = 0; q < size; q++) {
                    want += weight(k, q, j, i);
                    mag += fabs(weight(k, q, j, i));
                }
                want /= size;
                mag /= size;
            }
            if (a->must != AVERAGE ? host[i] != (float)want
                                   : fabs(host[i] - want) > 8 * FLT_EPSILON * fmax(mag, 1e-30))
                return error_set(err, "step %ld, every = %d, %zu weights: rank %d has %.9g at "
                                 "%zu, expected %.9g (%s)", a->step, a->every, n, rank, host[i],
                                 i, want, a->must == AVERAGE ? "the mean over the ranks"
                                                             : "its own weights, untouched");
            if (j == 0 && k->results)
                k->results[(size_t)rank * n + i] = host[i];
        }
    }
    inner->dev->release(p);
    inner->dev->release(scratch);
    free(host);
    inner->close(inner);
    return 0;
}

static void check(int N, Case k)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(N, 0, WAIT_S, rank_main, &k, LIMIT_S, err) == 0, "N = %d: %s", N, err);
}

/* Five ranks, with fewer weights than ranks (empty chunks in the ring) and odd counts;
 * every = 2 over steps 1 to 4. */
Test(hidden_local_sgd_sync, five_ranks_and_vectors_shorter_than_the_ranks)
{
    const size_t ns[] = {1, 3, 4, 6, 1001};
    for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
        check(5, (Case){ns[j], 0, 4,
                        {{1, 2, QUIET}, {2, 2, AVERAGE}, {3, 2, QUIET}, {4, 2, AVERAGE}},
                        NULL});
}

/* Non-integer weights: the mean within float rounding, and the same bits on every rank
 * (the replicas start the next K steps from identical weights). */
Test(hidden_local_sgd_sync, non_integer_weights_end_identical)
{
    const size_t n = 999;
    float *res = shared_zeroed(4 * n * sizeof(float));
    cr_assert(res, "mmap failed");
    for (int N = 2; N <= 4; N++) {
        check(N, (Case){n, 1, 2, {{6, 3, AVERAGE}, {7, 3, QUIET}}, res});
        for (int q = 1; q < N; q++)
            for (size_t i = 0; i < n; i++)
                cr_assert(memcmp(&res[(size_t)q * n + i], &res[i], sizeof(float)) == 0,
                          "N = %d, %zu weights: after averaging rank %d has %.9g at %zu but "
                          "rank 0 has %.9g: every rank must hold the same bits", N, n, q,
                          res[(size_t)q * n + i], i, res[i]);
    }
    munmap(res, 4 * n * sizeof(float));
}

/* step is a long: 3,000,000,000 and 2^32 + 2 are multiples of 3 (an int would read them as
 * -1,294,967,296 and 2), 3,000,000,001 is not; and a long period of 1,000. */
Test(hidden_local_sgd_sync, step_numbers_beyond_int_range)
{
    check(2, (Case){100, 0, 7,
                    {{3000000000L, 3, AVERAGE},
                     {3000000001L, 3, QUIET},
                     {4294967298L, 3, AVERAGE},
                     {1, 1000, QUIET},
                     {999, 1000, QUIET},
                     {1000, 1000, AVERAGE},
                     {2000, 1000, AVERAGE}},
                    NULL});
}

/* Every period below 1 is refused, with a message and no message sent, even when it divides
 * the step (3 % -1 == 0); a valid call before and after still averages. */
Test(hidden_local_sgd_sync, negative_every_is_refused)
{
    check(2, (Case){50, 0, 5,
                    {{4, 2, AVERAGE},
                     {3, -1, REFUSE},
                     {8, -4, REFUSE},
                     {4, INT_MIN, REFUSE},
                     {5, 5, AVERAGE}},
                    NULL});
}
