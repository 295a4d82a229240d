/* Hidden tests of exercise 5.2, rabenseifner_all_reduce: odd sizes that halve unevenly,
 * non-integer data, halves larger than a channel, and the refusal of N = 3 or 5 whatever the
 * count (not in the students' handout). */
#include <float.h>

#include "ch4/cases.h"
#include "ch5.h"
#include "helpers.h"

/* A rank that waits this long without progress fails, so that a deadlock fails fast. */
#define WAIT_S 2.0
#define LIMIT_S 20.0

/* Non-integer data, so that the sum is rounded and the order of the additions shows. */
static float noisy(int rank, size_t i)
{
    uint64_t x = (uint64_t)(rank + 7) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 32;
    return (float)(x % 2000003) / 1013.0f - 987.0f;
}

typedef struct Run5 {
    size_t count;
    int noisy;      /* 1: noisy() data, checked within rounding; 0: case_value(), exact */
    float *results; /* shared: every rank's result, rank after rank (noisy runs) */
} Run5;

static int rank_main(int rank, int size, void *arg, char *err)
{
    const Run5 *k = arg;
    size_t count = k->count, most = chunk_max(count, 2);
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    Watched w;
    Comm *c = watch(&w, inner, 0);
    float *host = xcalloc(count + 1, sizeof *host);
    for (size_t i = 0; i < count; i++)
        host[i] = k->noisy ? noisy(rank, i) : case_value(rank, i);
    float *buf = guarded(c->dev, count), *scratch = guarded(c->dev, most);
    c->dev->upload(buf, host, count * sizeof(float));
    if (rabenseifner_all_reduce(c, buf, count, scratch, err))
        return -1;
    if (!guard_ok(c->dev, scratch, most))
        return error_set(err, "%zu elements on %d ranks: rank %d wrote past the end of scratch "
                         "(chunk_max(count, 2) = %zu floats)", count, size, rank, most);
    if (!guard_ok(c->dev, buf, count))
        return error_set(err, "%zu elements on %d ranks: rank %d wrote past the end of buf",
                         count, size, rank);
    c->dev->download(host, buf, count * sizeof(float));
    for (size_t i = 0; i < count; i++) {
        if (!k->noisy) {
            if (host[i] != case_sum(size, i))
                return error_set(err, "%zu elements on %d ranks: rank %d has %g at %zu, "
                                 "expected %g", count, size, rank, host[i], i,
                                 case_sum(size, i));
            continue;
        }
        double sum = 0, mag = 0;
        for (int q = 0; q < size; q++) {
            sum += noisy(q, i);
            mag += fabs(noisy(q, i));
        }
        if (fabs(host[i] - sum) > 4 * FLT_EPSILON * mag)
            return error_set(err, "%zu non-integer elements on %d ranks: rank %d has %.9g at "
                             "%zu, expected %.9g (the sum in double, within float rounding)",
                             count, size, rank, host[i], i, sum);
        k->results[(size_t)rank * count + i] = host[i];
    }
    if (w.sends != 2 * ceil_log2(size))
        return error_set(err,
                         "%zu elements on %d ranks: rank %d sent %ld messages, expected %d "
                         "(log2 N halving steps, log2 N doubling steps)",
                         count, size, rank, w.sends, 2 * ceil_log2(size));
    for (int q = 0; q < size; q++)
        if ((w.to | w.from) & bit(q) && __builtin_popcount((unsigned)(q ^ rank)) != 1)
            return error_set(err, "%zu elements on %d ranks: rank %d talked to rank %d, which is "
                             "not a partner of recursive halving (one bit apart)", count, size,
                             rank, q);
    c->dev->release(buf);
    c->dev->release(scratch);
    free(host);
    c->close(c);
    return 0;
}

static void check(int n, size_t chan, Run5 k)
{
    char what[64];
    snprintf(what, sizeof what, "N = %d, %zu elements", n, k.count);
    run_on_channels(
        n, chan, WAIT_S, rank_main, &k, LIMIT_S, what,
        " (a half larger than the channel: exchange with sendrecv, not send then "
        "recv)");
}

/* Sizes whose halves are uneven at some step (and empty at some ranks for the smallest):
 * partners must agree on where each half starts and how long it is, on the way down and on
 * the way back up. */
Test(hidden_rabenseifner_all_reduce, odd_sizes_halve_unevenly)
{
    const size_t sizes[] = {2, 5, 6, 7, 13, 100, 4097};
    for (int n = 2; n <= 4; n *= 2)
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++)
            check(n, 0, (Run5){sizes[j], 0, NULL});
}

/* Data that float addition rounds: the sum within rounding of the exact one, and the same
 * bits on every rank (each element is added up on one rank and then only copied). */
Test(hidden_rabenseifner_all_reduce, non_integer_data_same_bits_on_every_rank)
{
    const size_t count = 1001;
    float *res = shared_zeroed(4 * count * sizeof(float));
    cr_assert(res, "mmap failed");
    for (int n = 2; n <= 4; n *= 2) {
        check(n, 0, (Run5){count, 1, res});
        for (int q = 1; q < n; q++)
            for (size_t i = 0; i < count; i++)
                cr_assert(memcmp(&res[(size_t)q * count + i], &res[i], sizeof(float)) == 0,
                          "N = %d, %zu elements: rank %d has %.9g at %zu but rank 0 has %.9g: "
                          "every rank must hold the same bits", n, count, q,
                          res[(size_t)q * count + i], i, res[i]);
    }
    munmap(res, 4 * count * sizeof(float));
}

/* Halves many times the 256 bytes of a channel: partners must send and receive at once. */
Test(hidden_rabenseifner_all_reduce, halves_larger_than_the_channel)
{
    check(2, 256, (Run5){3001, 0, NULL});
    check(4, 256, (Run5){3001, 0, NULL});
}

/* N = 3 and 5 are refused at any count, even 0 (with no message sent), and N = 4 is not
 * refused at count 0 or 1. */
static int decided_by_n(int rank, int size, void *arg, char *err)
{
    size_t count = *(size_t *)arg;
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    Watched w;
    Comm *c = watch(&w, inner, 0);
    float *buf = guarded(c->dev, count), *scratch = guarded(c->dev, chunk_max(count, 2));
    c->dev->zero(buf, count * sizeof(float));
    c->dev->upload(buf, &(float){(float)rank + 1}, count ? sizeof(float) : 0);
    char why[ERR_LEN] = "";
    int rc = rabenseifner_all_reduce(c, buf, count, scratch, why);
    if ((size & (size - 1)) == 0) {
        if (rc)
            return error_set(err, "rank %d returned -1 (%s), expected 0", rank, why);
        float got = 0;
        c->dev->download(&got, buf, count ? sizeof(float) : 0);
        float want = count ? (float)(size * (size + 1) / 2) : 0;
        if (got != want)
            return error_set(err, "rank %d has %g at 0, expected %g", rank, got, want);
        return 0;
    }
    if (rc == 0)
        return error_set(err, "N is not a power of two, but rank %d returned 0 (check N "
                         "before anything else)", rank);
    if (!why[0] || w.sends != 0)
        return error_set(err, "rank %d refused with message '%s' after sending %ld messages; "
                         "expected a message and no message sent", rank, why, w.sends);
    return 0;
}

Test(hidden_rabenseifner_all_reduce, power_of_two_decides_not_the_count)
{
    const int ns[] = {4, 3, 5};
    const size_t counts[] = {0, 1, 100};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            size_t count = counts[b];
            char err[ERR_LEN];
            cr_assert(run_ranks(ns[a], 0, WAIT_S, decided_by_n, &count, LIMIT_S, err) == 0,
                      "N = %d, %zu elements: %s", ns[a], count, err);
        }
}
