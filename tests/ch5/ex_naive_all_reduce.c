/* Tests of exercise 5.3, naive_all_reduce. */
#include "../ch4/cases.h"
#include "ch5.h"
#include "helpers.h"

/* Non-integer data, so the order of the additions shows in the bits. */
static float noisy(int rank, size_t i)
{
    uint64_t x = (uint64_t)rank * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    return (float)(x % 1000003) / 997.0f - 500.0f;
}

static int rank_main(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Comm *inner = rank_comm(rank, err);
    if (!inner)
        return -1;
    const size_t sizes[] = {0, 1, 7, 1009, 65536};
    float *host = xcalloc(65537, sizeof *host);
    float *buf = guarded(inner->dev, 65536);
    for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
        size_t count = sizes[j];
        Watched w;
        Comm *c = watch(&w, inner, 0);
        int rc = in_place_call(c, naive_all_reduce, noisy, host, buf, 65536, count,
                               (size_t)size * count, err);
        if (rc)
            return rc < 0 ? -1
                          : error_set(err, "rank %d wrote past the end of scratch or buf",
                                      rank);
        for (size_t i = 0; i < count; i++) {
            float s = noisy(0, i);
            for (int q = 1; q < size; q++)
                s += noisy(q, i);
            if (memcmp(&host[i], &s, sizeof s) != 0)
                return error_set(err, "%zu elements on %d ranks: rank %d has %.9g at %zu, "
                                 "expected %.9g (the sum in rank order, bit for bit)", count,
                                 size, rank, host[i], i, s);
        }
        unsigned long long others = ((1ull << size) - 1) & ~bit(rank);
        if (w.to != others || w.bytes != (size_t)(size - 1) * count * sizeof(float))
            return error_set(err, "%zu elements: rank %d must send its whole buffer once to "
                             "each other rank (sent %zu bytes, to mask %llx)", count, rank,
                             w.bytes, w.to);
    }
    inner->close(inner);
    return 0;
}

Test(ex_naive_all_reduce, one_to_five_ranks)
{
    for (int n = 1; n <= 5; n++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(n, 0, 30, rank_main, NULL, 60, err) == 0, "N = %d: %s", n, err);
    }
}

/* Rank @p rank's side of one all-reduce of 600 elements, checked as rank_main checks. */
static int rank_large(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    enum { COUNT = 600 };
    float *host = xcalloc(COUNT + 1, sizeof *host);
    float *buf = guarded(c->dev, COUNT);
    int rc = in_place_call(c, naive_all_reduce, noisy, host, buf, COUNT, COUNT,
                           (size_t)size * COUNT, err);
    for (size_t i = 0; rc == 0 && i < COUNT; i++) {
        float s = noisy(0, i);
        for (int q = 1; q < size; q++)
            s += noisy(q, i);
        if (memcmp(&host[i], &s, sizeof s) != 0)
            rc = error_set(err, "rank %d has %.9g at %zu, expected %.9g", rank, host[i], i, s);
    }
    if (rc > 0)
        rc = error_set(err, "rank %d wrote past the end of scratch or buf", rank);
    c->close(c);
    return rc ? -1 : 0;
}

/* A buffer larger than the channel between two ranks: a rank that sends to everyone before
 * it receives from anyone waits for a receive that no rank reaches. */
Test(ex_naive_all_reduce, a_buffer_larger_than_the_channel)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(2, 1024, 5, rank_large, NULL, 30, err) == 0,
              "600 elements on 2 ranks, channels of 1024 bytes, so a buffer (2400 bytes) is "
              "larger than a channel: receive while you send, or the ranks wait for each "
              "other: %s",
              err);
}
