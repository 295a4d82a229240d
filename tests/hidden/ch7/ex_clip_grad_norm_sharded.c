/* Hidden tests of exercise 7.2, clip_grad_norm_sharded: norms whose bits depend on the order
 * in which the ranks' sums are added, squares that a float would round, overflow or lose,
 * every rank empty and ranks of one element, and the edges of max_norm: refusals of -0, -inf
 * and a tiny negative, a max_norm equal to the norm and the double just below it (not in the
 * students' handout). */
#include <float.h>
#include <math.h>

#include "ch7.h"
#include "ch7/clip.h"
#include "helpers.h"

typedef struct Case {
    const char *what; /* the case, for messages */
    int N;            /* ranks */
    size_t n[5];      /* elements on each rank */
    float (*value)(int layout, int rank, size_t i); /* element i of a rank */
    int layout;
    const char *why; /* what the expected norm depends on, for messages */
    int calls;
    ClipCall call[8];
} Case;

/* The norm the contract asks for: each rank's sum of squares in double, then the ranks' sums
 * added in rank order 0..N-1, then the square root. Every case below makes each rank's sum
 * exact in double whatever order its own squares are added in, so this is the only answer. */
static double contract_norm(const Case *k)
{
    double total = 0;
    for (int q = 0; q < k->N; q++) {
        double own = 0;
        for (size_t i = 0; i < k->n[q]; i++)
            own += (double)k->value(k->layout, q, i) * (double)k->value(k->layout, q, i);
        total += own;
    }
    return sqrt(total);
}

/* The norm a rank got: the contract's, to the bit. */
static int norm_ok(const void *arg, int rank, int size, double max, double norm, char *err)
{
    const Case *k = arg;
    double want_norm = contract_norm(k);
    if (memcmp(&norm, &want_norm, sizeof norm) != 0)
        return error_set(err,
                         "%s, max_norm = %.17g: rank %d of %d (%zu elements) got norm "
                         "%.17g, expected %.17g (%s)",
                         k->what, max, rank, size, k->n[rank], norm, want_norm, k->why);
    return 0;
}

/* Run k on its ranks (clip.h), then check that every rank got the same bits of the norm. */
static void check(Case k)
{
    ClipRank r = {k.what, k.n, k.value, k.layout, k.calls, k.call, norm_ok, &k, NULL, 17};
    clip_run(k.N, r, "");
}

/* Layout L of five ranks: rank L holds 1, every other rank 2^-27 twice, a sum of squares of
 * 2^-53, half an ulp of 1. Added in rank order, each half ulp added to 1 rounds back to 1 (a
 * tie, to even) but half ulps added together first do not: with the 1 on rank 0 the norm is
 * exactly 1, with it on rank 2 or 4 it is 1 + 2^-52. The ranks' sums added in reverse, in a
 * tree, with rank 0's last, or from each rank's own give one of these cases the other. */
static float half_ulps(int layout, int rank, size_t i)
{
    (void)i;
    return rank == layout ? 1.0f : 0x1p-27f;
}

Test(hidden_clip_grad_norm_sharded, ranks_sums_added_in_rank_order)
{
    for (int big = 0; big < 5; big += 2) {
        char what[160];
        snprintf(what, sizeof what, "5 ranks: 1 on rank %d, 2^-27 twice on each other rank",
                 big);
        size_t n[5];
        for (int q = 0; q < 5; q++)
            n[q] = q == big ? 1 : 2;
        check((Case){what, 5, {n[0], n[1], n[2], n[3], n[4]}, half_ulps, big,
                     "each rank's sum of squares, then the ranks' sums added in rank order "
                     "0..N-1, starting from rank 0's", 2, {{1, 0}, {0.5, 0}}});
    }
}

/* Squares a float cannot hold: (1 + 2^-20)^2 = 1 + 2^-19 + 2^-40 needs 41 bits; 3e20 and
 * 4e20 square to more than FLT_MAX, 3e-25 and 4e-25 to less than the smallest float; and
 * 100,000 squares of 2^-26 beside a 1 vanish one by one from a float sum. In double each of
 * these is exact. */
static float wide(int layout, int rank, size_t i)
{
    switch (layout) {
    case 0:
        return 1.0f + 0x1p-20f;
    case 1:
        return rank == 0 ? 3e20f : -4e20f;
    case 2:
        return rank == 0 ? -3e-25f : 4e-25f;
    default:
        return i == 0 && rank == 0 ? 1.0f : 0x1p-13f;
    }
}

Test(hidden_clip_grad_norm_sharded, squares_summed_in_double)
{
    const char *why = "the squares and their sums in double, where each is exact here";
    check((Case){"1 + 2^-20 on one rank", 1, {1}, wide, 0, why, 2, {{2, 0}, {1, 0}}});
    check((Case){"1 + 2^-20 on each of 3 ranks", 3, {1, 1, 1}, wide, 0, why, 1, {{1, 0}}});
    check((Case){"3e20 on rank 0, nothing on rank 1, -4e20 on rank 2", 3, {1, 0, 1}, wide, 1,
                 why, 2, {{1e21, 0}, {1, 0}}});
    check((Case){"-3e-25 on rank 0, 4e-25 on rank 1", 2, {1, 1}, wide, 2, why, 2,
                 {{1, 0}, {1e-25, 0}}});
    check((Case){"1 and 100,000 times 2^-13 on rank 0, 2^-13 three times on rank 1", 2,
                 {100001, 3}, wide, 3, why, 2, {{1.5, 0}, {1, 0}}});
}

/* Nothing on any of 3 ranks (a norm of 0, never above max_norm), one element on one rank of
 * five, and one element on each of four ranks. */
static float sparse(int layout, int rank, size_t i)
{
    (void)i;
    static const float one[4] = {1, -2, 2, -4};
    return layout == 1 ? -7.0f : one[rank];
}

Test(hidden_clip_grad_norm_sharded, empty_ranks_and_single_elements)
{
    const char *why = "the square root of the sum of the squares over all ranks";
    check((Case){"3 ranks, no elements on any", 3, {0, 0, 0}, sparse, 0, why, 1,
                 {{1e-30, 0}}});
    check((Case){"5 ranks, -7 on rank 3 only", 5, {0, 0, 0, 1, 0}, sparse, 1, why, 2,
                 {{7, 0}, {2, 0}}});
    check((Case){"4 ranks, 1 / -2 / 2 / -4", 4, {1, 1, 1, 1}, sparse, 0, why, 2,
                 {{5, 0}, {4.5, 0}}});
}

/* 1 on two of three ranks: a norm of sqrt(2). -0, -inf and -1e-300 are refused, with a
 * message; sqrt(2) itself does not clip, the double just below it does; infinity never
 * clips, and 1e-300 scales everything to zero. */
static float two_ones(int layout, int rank, size_t i)
{
    (void)layout;
    (void)rank;
    (void)i;
    return 1.0f;
}

Test(hidden_clip_grad_norm_sharded, refusals_and_max_norm_at_the_norm)
{
    double r2 = sqrt(2.0);
    check((Case){"1 on rank 0, 1 on rank 1, nothing on rank 2", 3, {1, 1, 0}, two_ones, 0,
                 "sqrt(2)", 7,
                 {{-0.0, 1}, {-INFINITY, 1}, {-1e-300, 1}, {r2, 0}, {nextafter(r2, 0), 0},
                  {INFINITY, 0}, {1e-300, 0}}});
}
