/* Tests of exercise 6.1, ddp_buckets: cases worked by hand, the buckets it returns and the
 * end it claims for them, and DDP's rule of caps, which it must never lose to. */
#include <math.h>

#include "ch6.h"
#include "ch6/buckets_end.h"
#include "helpers.h"

#define MAX_L 16

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b));
}

/* The choice for a model worked by hand: its buckets and its end. */
static void expect(const char *what, const size_t *f, const double *ready, int L, double alpha,
                   double beta, const int *want, int n, double want_end)
{
    int of[MAX_L + 1];
    for (int l = 0; l <= MAX_L; l++)
        of[l] = -7;
    double end = -1;
    int got = ddp_buckets(f, ready, L, alpha, beta, of, &end);
    cr_assert(got == n, "%s: %d buckets, expected %d", what, got, n);
    for (int l = 0; l < L; l++)
        cr_assert(of[l] == want[l], "%s: layer %d in bucket %d, expected %d", what, l, of[l],
                  want[l]);
    cr_assert(of[L] == -7, "%s: wrote bucket_of[%d], past the last of %d layers", what, L, L);
    cr_assert(close_to(end, want_end), "%s: the last all-reduce ends at %.17g, expected %.17g",
              what, end, want_end);
}

/* Worked by hand: each is the only best choice. */
Test(ddp_buckets, hand_worked_cases)
{
    size_t one[] = {1, 1, 1}, four[] = {1, 1, 1, 1}, big[] = {5};
    /* Latency alone: every all-reduce costs 100, so one bucket, started at 3, ends at 103. */
    expect("alpha 100, beta 0", one, (double[]){3, 2, 1}, 3, 100, 0, (int[]){0, 0, 0}, 1, 103);
    /* Bandwidth alone, 4 s a layer, each ready as the one before is sent: one bucket a layer
     * keeps the link busy from 0 and ends at 12 (one bucket: 8 + 12 = 20). */
    expect("alpha 0, beta 1", one, (double[]){8, 4, 0}, 3, 0, 1, (int[]){2, 1, 0}, 3, 12);
    /* Both: the last layer alone first (0 to 6), the other three together (6 to 20); one
     * bucket ends at 21, a bucket a layer at 24. */
    expect("alpha 2, beta 1", four, (double[]){3, 2, 1, 0}, 4, 2, 1, (int[]){1, 1, 1, 0}, 2, 20);
    expect("one layer", big, (double[]){7}, 1, 1, 0.5, (int[]){0}, 1, 18);
    /* The book's: one layer (2 to 8), one (8 to 14), two (14 to 24); no pair of DDP's caps
     * ends before 25. */
    expect("two caps cannot", four, (double[]){11, 9, 7, 2}, 4, 2, 1, (int[]){2, 2, 1, 0}, 3,
           24);
}

/* A random model of L layers: sizes, times of readiness (the last layer first), alpha and
 * beta in ranges where neither term always wins. */
static void random_model(uint64_t *x, int L, size_t *f, double *ready, double *alpha,
                         double *beta)
{
    double t = 0;
    for (int l = L - 1; l >= 0; l--) {
        *x = *x * 6364136223846793005ull + 1442695040888963407ull;
        f[l] = 1 + (*x >> 33) % 5000;
        t += (double)((*x >> 20) % 1000) * 1e-6;
        ready[l] = t;
    }
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    *alpha = (double)((*x >> 40) % 500) * 1e-6;
    *beta = (double)(1 + (*x >> 10) % 100) * 1e-10;
}

/* For random models: the buckets are runs of layers numbered from the last, and the end
 * returned is the end those buckets have. */
Test(ddp_buckets, the_buckets_are_runs_and_end_when_it_says)
{
    uint64_t x = 12345;
    for (int trial = 0; trial < 2000; trial++) {
        size_t f[MAX_L];
        double ready[MAX_L], alpha, beta, end = -1;
        int of[MAX_L], L = 1 + trial % 12;
        random_model(&x, L, f, ready, &alpha, &beta);
        int n = ddp_buckets(f, ready, L, alpha, beta, of, &end);
        cr_assert(n >= 1 && n <= L, "%d buckets for %d layers", n, L);
        cr_assert(of[L - 1] == 0, "the last layer is in bucket %d, not 0", of[L - 1]);
        for (int l = L - 2; l >= 0; l--)
            cr_assert(of[l] == of[l + 1] || of[l] == of[l + 1] + 1,
                      "layer %d in bucket %d after layer %d in %d", l, of[l], l + 1, of[l + 1]);
        cr_assert(of[0] == n - 1, "the first layer is in bucket %d of %d", of[0], n);
        double own = buckets_end(f, ready, L, alpha, beta, of);
        cr_assert(close_to(end, own), "%d layers: returned end %.17g, but its buckets end at "
                  "%.17g", L, end, own);
    }
}

/* DDP's rule (bucket_assign) at every cap and first cap, powers of two from 4 bytes to the
 * whole model: the chosen buckets never end later than theirs. */
Test(ddp_buckets, no_cap_of_ddps_rule_ends_earlier)
{
    uint64_t x = 777;
    for (int trial = 0; trial < 300; trial++) {
        size_t f[MAX_L];
        double ready[MAX_L], alpha, beta, end = -1;
        int of[MAX_L], rule[MAX_L], L = 1 + trial % MAX_L;
        random_model(&x, L, f, ready, &alpha, &beta);
        int n = ddp_buckets(f, ready, L, alpha, beta, of, &end);
        cr_assert(n >= 1 && n <= L && of[0] == n - 1 && of[L - 1] == 0,
                  "%d layers: %d buckets, the first layer in bucket %d, the last in %d", L, n,
                  of[0], of[L - 1]);
        end = buckets_end(f, ready, L, alpha, beta, of); /* what its buckets take, whatever it says */
        for (size_t cap = 4; cap <= 4u * 5000 * MAX_L * 2; cap *= 2)
            for (size_t first = 4; first <= 4u * 5000 * MAX_L * 2; first *= 2) {
                bucket_assign(f, L, cap, first, rule);
                double theirs = buckets_end(f, ready, L, alpha, beta, rule);
                cr_assert(end <= theirs * (1 + 1e-12), "%d layers: ends at %.17g, but DDP's "
                          "rule with cap %zu and first cap %zu ends at %.17g", L, end, cap,
                          first, theirs);
            }
    }
}
