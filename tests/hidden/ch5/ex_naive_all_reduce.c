/* Hidden tests of exercise 5.3, naive_all_reduce: a hand-made case where the order of the
 * additions and the sign of zero show, buffers larger than a channel, and guards right after
 * buf and scratch (not in the students' handout). */
#include "ch4/cases.h"
#include "ch5.h"
#include "helpers.h"

/* A rank that waits this long without progress fails, so that a deadlock fails fast. */
#define WAIT_S 2.0
#define LIMIT_S 20.0

/* Non-integer data, so that the order of the additions shows in the bits. */
static float noisy(int rank, size_t i)
{
    uint64_t x = (uint64_t)(rank + 3) * 0xD1B54A32D192ED03ull + i * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    return (float)(x % 1000033) / 991.0f - 504.0f;
}

/* The hand-made case: element 0 is -0 on every rank, whose sum is -0 (a sum started from +0
 * is +0); elements 1 and 2 mix 1e8 and 1, where float addition loses the 1 unless it comes
 * after the 1e8 has cancelled, so the result depends on the order. */
static float handmade(int rank, size_t i)
{
    static const float e1[5] = {1e8f, 1.0f, -1e8f, 1.0f, 1.0f};
    static const float e2[5] = {1.0f, 1e8f, 1.0f, -1e8f, 0.5f};
    return i == 0 ? -0.0f : i == 1 ? e1[rank] : e2[rank];
}

typedef struct Case {
    size_t count;
    int handmade; /* 1: handmade(), else noisy() */
} Case;

static float value(const Case *k, int rank, size_t i)
{
    return k->handmade ? handmade(rank, i) : noisy(rank, i);
}

static int rank_main(int rank, int size, void *arg, char *err)
{
    const Case *k = arg;
    size_t count = k->count, all = (size_t)size * count;
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    float *host = xcalloc(count + 1, sizeof *host);
    for (size_t i = 0; i < count; i++)
        host[i] = value(k, rank, i);
    float *buf = guarded(c->dev, count), *scratch = guarded(c->dev, all);
    c->dev->upload(buf, host, count * sizeof(float));
    if (naive_all_reduce(c, buf, count, scratch, err))
        return -1;
    if (!guard_ok(c->dev, buf, count))
        return error_set(err, "%zu elements on %d ranks: rank %d wrote past the end of buf",
                         count, size, rank);
    if (!guard_ok(c->dev, scratch, all))
        return error_set(err, "%zu elements on %d ranks: rank %d wrote past the end of scratch "
                         "(N * count = %zu floats)", count, size, rank, all);
    c->dev->download(host, buf, count * sizeof(float));
    for (size_t i = 0; i < count; i++) {
        float s = value(k, 0, i);
        for (int q = 1; q < size; q++)
            s += value(k, q, i);
        if (memcmp(&host[i], &s, sizeof s) != 0)
            return error_set(err, "%zu elements on %d ranks: rank %d has %.9g at %zu, expected "
                             "%.9g: %s", count, size, rank, host[i], i, s,
                             host[i] == 0 && s == 0 ? "a sum started from +0 loses the sign of "
                                                      "-0; start from x_0"
                                                    : "the sum x_0 + x_1 + ... in rank order, "
                                                      "bit for bit");
    }
    c->dev->release(buf);
    c->dev->release(scratch);
    free(host);
    c->close(c);
    return 0;
}

static void check(int n, size_t chan, Case k)
{
    char what[64];
    snprintf(what, sizeof what, "N = %d, %zu elements", n, k.count);
    run_on_channels(
        n, chan, WAIT_S, rank_main, &k, LIMIT_S, what,
        " (a buffer larger than the channel: a rank that sends to everyone before "
        "it receives waits forever; pair each send with a receive, as sendrecv "
        "does)");
}

/* -0 on every rank sums to -0; 1e8 + 1 - 1e8 + 1 is 1 in float, in this order only. */
Test(hidden_naive_all_reduce, negative_zero_and_cancellation)
{
    for (int n = 1; n <= 5; n++)
        check(n, 0, (Case){3, 1});
}

/* Whole buffers many times the 256 bytes of a channel. */
Test(hidden_naive_all_reduce, buffers_larger_than_the_channel)
{
    check(2, 256, (Case){1000, 0});
    check(3, 256, (Case){257, 0});
    check(5, 256, (Case){1000, 0});
}

/* Odd counts with a guard right after count floats of buf and N * count of scratch. */
Test(hidden_naive_all_reduce, guards_right_after_buf_and_scratch)
{
    const size_t counts[] = {2, 3, 5, 4099};
    for (int n = 2; n <= 5; n++)
        for (size_t j = 0; j < sizeof counts / sizeof counts[0]; j++)
            check(n, 0, (Case){counts[j], 0});
}
