/* The harness of the tests of chapter 8's exercises, public and hidden: the data and what a
 * broadcast or a reduce leaves; the progress a call must make; a short random delay; ranks
 * launched with a communicator on the CPU, watched, and a buffer from its window; calls
 * back to back with random delays. */
#ifndef DPS_TEST_WINDOWS_H
#define DPS_TEST_WINDOWS_H

#include <time.h>

#include "../ch2/ranks.h"
#include "rng.h"

/* Seconds a rank waits for a peer before it gives up: a protocol that deadlocks fails in
 * this time instead of hanging. */
#define WAIT_S 3.0

/* Rank r's element i of call k: an integer, exact in float, that changes from call to call. */
static inline float win_value(int r, size_t i, int k)
{
    return (float)((long)((i * 13 + (size_t)r * 29 + (size_t)k * 7) % 97) - 48 + r);
}

/* Rank r's element i: a float whose sums depend on the order they are added in. */
static inline float win_rough(int r, size_t i)
{
    uint64_t x = (uint64_t)(r + 1) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    return (float)((double)(x >> 40) / (1 << 22) - 2.0) * (r % 2 ? 1e-3f : 1.0f);
}

/* buf[0..n) = rank's win_value of call k. */
static inline void win_fill(float *buf, size_t n, int rank, int k)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = win_value(rank, i, k);
}

/* Data: element i of rank q in call k. */
typedef float (*WinData)(int q, size_t i, int k);

/* The sum of value(q, i, k) over `size` ranks, in rank order. */
static inline float win_sum(WinData value, int k, int size, size_t i)
{
    float sum = value(0, i, k);
    for (int q = 1; q < size; q++)
        sum += value(q, i, k);
    return sum;
}

/* What rank holds at i after a reduce of value to root: the sum at the root, its own value
 * elsewhere. */
static inline float win_reduced(WinData value, int k, int rank, int root, int size,
                                size_t i)
{
    return rank == root ? win_sum(value, k, size, i) : value(rank, i, k);
}

/* Sleep up to max_us microseconds, at random. */
static inline void win_delay(Rng *g, int max_us)
{
    struct timespec ts = {0, (long)rng_below(g, (uint64_t)max_us + 1) * 1000};
    nanosleep(&ts, NULL);
}

/* What a rank of a test does with its communicator (the CPU's, watched in *w) and buf, a
 * buffer from the communicator's window: 0, or -1 with err. */
typedef int (*WinBody)(Comm *c, const Watched *w, float *buf, char *err);

typedef struct WinJob {
    WinBody body;
    size_t floats; /* of buf */
} WinJob;

/* A rank of win_run: the job's body on a fresh communicator, closed after it. */
static inline int win_main(int rank, int size, void *arg, char *err)
{
    (void)size;
    const WinJob *job = arg;
    Watched w;
    Comm *c = cpu_watched(rank, &w, err);
    if (!c)
        return -1;
    float *buf = c->alloc_shared(c, job->floats * sizeof(float));
    if (job->body(c, &w, buf, err))
        return -1;
    c->close(c);
    return 0;
}

/* Run body on n ranks, each with a buffer of `floats` floats from its window (waits of
 * WAIT_S, limit s in all); a failure fails the test with the rank's message. */
static inline void win_run(int n, WinBody body, size_t floats, double limit)
{
    WinJob job = {body, floats};
    char err[ERR_LEN];
    cr_assert(run_ranks(n, 0, WAIT_S, win_main, &job, limit, err) == 0, "%s", err);
}

/* A rooted collective: direct_broadcast, direct_reduce. */
typedef int (*Rooted)(Comm *c, float *buf, size_t count, int root, char *err);

/* What `rank` holds at i after call k of a rooted collective from root (win_value data). */
typedef float (*WinAfter)(int rank, int root, int size, size_t i, int k);

static inline float win_value_broadcast(int rank, int root, int size, size_t i, int k)
{
    (void)rank, (void)size;
    return win_value(root, i, k);
}

static inline float win_value_reduced(int rank, int root, int size, size_t i, int k)
{
    return win_reduced(win_value, k, rank, root, size, i);
}

/* Forty calls of fn on n floats of win_value data, back to back, the root of call k being
 * k * step mod N, every rank sleeping a random few microseconds first (seeded with seed
 * and its rank): a rank that returned while a peer still read or wrote its buffer would
 * find the next call's data spoiled. After each call buf[i] must be after(...); a failure
 * says "SAID x" of the value x it expected. */
static inline int win_back_to_back(Comm *c, float *buf, Rooted fn, size_t n, int step,
                                   uint64_t seed, WinAfter after, const char *said,
                                   char *err)
{
    int rank = c->rank, size = c->size;
    Rng g;
    rng_seed(&g, seed, (uint64_t)rank);
    for (int call = 0; call < 40; call++) {
        int root = (call * step) % size;
        win_fill(buf, n, rank, call);
        win_delay(&g, 40);
        if (fn(c, buf, n, root, err))
            return -1;
        for (size_t i = 0; i < n; i++) {
            float want = after(rank, root, size, i, call);
            if (buf[i] != want)
                return error_set(err, "call %d, root %d: rank %d has %g at %zu, %s %g",
                                 call, root, rank, buf[i], i, said, want);
        }
    }
    return 0;
}

/* Exercise 8.3's data: rank r's element i of its block for rank j in call k. */
static inline float win_a2a_value(int r, int j, size_t i, int k)
{
    return win_value(r * 8 + j, i, k);
}

/* Rank's blocks of call k, count floats each, into buf. */
static inline void win_a2a_fill(float *buf, size_t count, int rank, int size, int k)
{
    for (int j = 0; j < size; j++)
        for (size_t i = 0; i < count; i++)
            buf[(size_t)j * count + i] = win_a2a_value(rank, j, i, k);
}

/* After call k: block j of rank's buf holds rank j's block for rank (0), or -1 with err. */
static inline int win_a2a_check(const float *buf, size_t count, int rank, int size, int k,
                                char *err)
{
    for (int j = 0; j < size; j++)
        for (size_t i = 0; i < count; i++) {
            float want = win_a2a_value(j, rank, i, k), got = buf[(size_t)j * count + i];
            if (got != want)
                return error_set(err, "N = %d, call %d, %zu floats a block: rank %d has %g at "
                                 "%zu of block %d, rank %d's block for it holds %g", size, k,
                                 count, rank, got, i, j, j, want);
        }
    return 0;
}

#endif
