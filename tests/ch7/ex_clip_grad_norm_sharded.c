/* Tests of exercise 7.2, clip_grad_norm_sharded: hand-worked norms on one, two and four
 * ranks (one of them empty) with max_norm above, at and below the norm; random gradients on
 * one to five ranks against a norm summed here in long double, the same bits of the norm on
 * every rank, and the clipped elements multiplied by exactly the float
 * max_norm / (norm + 1e-6); a max_norm that is not positive refused. */
#include <math.h>
#include <stdint.h>

#include "ch7.h"
#include "ch7/clip.h"
#include "helpers.h"

/* How far the norm may be from the one summed here in long double, relatively. */
#define TOL 1e-7

typedef struct Case {
    const char *what;                        /* the case, for messages */
    int N;                                   /* ranks */
    size_t n[5];                             /* elements on each rank */
    float (*value)(int seed, int rank, size_t i); /* element i of a rank */
    int seed;
    int exact;        /* 1: the norm must be want_norm exactly; 0: within TOL of long double */
    double want_norm; /* with exact */
    int calls;
    ClipCall call[4];
} Case;

/* The hand-worked cases: small integers, so that every norm below is exact. */
static float hand(int seed, int rank, size_t i)
{
    static const float g[3][5][5] = {
        {{3}, {4}},                            /* 2 ranks: 3, 4: norm 5 */
        {{1, 2, 2}},                           /* 1 rank: 1, 2, 2: norm 3 */
        {{1, 1}, {0}, {1, 1, 1, 1, 1}, {-3}},  /* 4 ranks, rank 1 empty: norm 4 */
    };
    return g[seed][rank][i];
}

/* Random gradients over a wide range of magnitudes, from 2^-8 to 2^8. */
static float random_value(int seed, int rank, size_t i)
{
    uint64_t x = (uint64_t)(seed + 1) * 0x9E3779B97F4A7C15ull +
                 (uint64_t)(rank + 7) * 0xD1B54A32D192ED03ull + i * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    float u = (float)(x % 2000001) / 1000000.0f - 1.0f;
    return ldexpf(u, (int)((x >> 40) % 17) - 8);
}

/* The norm a rank got: want_norm exactly, or within TOL of the norm summed here in long
 * double. */
static int norm_ok(const void *arg, int rank, int size, double max, double norm, char *err)
{
    const Case *k = arg;
    long double sum = 0;
    for (int q = 0; q < size; q++)
        for (size_t i = 0; i < k->n[q]; i++)
            sum += (long double)k->value(k->seed, q, i) * k->value(k->seed, q, i);
    double ref = (double)sqrtl(sum);
    if (k->exact ? norm != k->want_norm : !(fabs(norm - ref) <= TOL * ref))
        return error_set(err,
                         "%s, max_norm = %g: rank %d (%zu elements) got norm %.17g, "
                         "expected %.17g: the square root of the sum of the squares over "
                         "all %d ranks",
                         k->what, max, rank, k->n[rank], norm,
                         k->exact ? k->want_norm : ref, size);
    return 0;
}

/* Run k on its ranks (clip.h), then check that every rank got the same bits of the norm. */
static void check(Case k)
{
    ClipRank r = {k.what, k.n, k.value, k.seed, k.calls, k.call, norm_ok, &k, NULL, 6};
    clip_run(k.N, r, " (each rank's sum, then the ranks' sums added in rank order)");
}

/* 3 and 4 on two ranks make a norm of 5: not clipped at 10, nor at exactly 5 (clipping is for
 * norms above max_norm), clipped at 1. Then 1, 2, 2 on one rank (norm 3), and four ranks
 * holding 1, 1 / nothing / 1, 1, 1, 1, 1 / -3 (norm 4). */
Test(ex_clip_grad_norm_sharded, hand_worked_norms_and_the_threshold)
{
    check((Case){"3 on rank 0, 4 on rank 1", 2, {1, 1}, hand, 0, 1, 5.0, 3,
                 {{10, 0}, {5, 0}, {1, 0}}});
    check((Case){"1, 2, 2 on one rank", 1, {3}, hand, 1, 1, 3.0, 3,
                 {{3.5, 0}, {3, 0}, {2, 0}}});
    check((Case){"1, 1 / nothing / 1, 1, 1, 1, 1 / -3 on 4 ranks", 4, {2, 0, 5, 1}, hand, 2, 1,
                 4.0, 2, {{4, 0}, {2, 0}}});
}

/* Random gradients of magnitudes 2^-8 to 2^8 on 1 to 5 ranks, a different number on each rank
 * (rank 1 holds none from 3 ranks on): the norm within 1e-7 of the one summed here in long
 * double, the same on every rank, the gradients unchanged with max_norm at twice the norm,
 * and each multiplied by the float max_norm / (norm + 1e-6) at a third of it. */
Test(ex_clip_grad_norm_sharded, random_gradients_against_a_long_double_norm)
{
    for (int N = 1; N <= 5; N++) {
        Case k = {.N = N, .value = random_value, .seed = N};
        long double sum = 0;
        for (int q = 0; q < N; q++) {
            k.n[q] = N >= 3 && q == 1 ? 0 : (size_t)(137 * (q + 1) + 61 * N) % 700;
            for (size_t i = 0; i < k.n[q]; i++)
                sum += (long double)random_value(N, q, i) * random_value(N, q, i);
        }
        double ref = (double)sqrtl(sum);
        k.calls = 2;
        k.call[0] = (ClipCall){2 * ref, 0};
        k.call[1] = (ClipCall){ref / 3, 0};
        char what[128];
        snprintf(what, sizeof what, "random gradients on %d ranks (%zu, %zu, %zu, %zu, %zu "
                 "elements)", N, k.n[0], k.n[1], k.n[2], k.n[3], k.n[4]);
        k.what = what;
        check(k);
    }
}

/* max_norm 0 and -1 are refused with a message on every rank; a call with a positive
 * max_norm after them works. */
Test(ex_clip_grad_norm_sharded, max_norm_not_positive_is_refused)
{
    check((Case){"3 on rank 0, 4 on rank 1", 2, {1, 1}, hand, 0, 1, 5.0, 3,
                 {{0, 1}, {-1, 1}, {2, 0}}});
}
