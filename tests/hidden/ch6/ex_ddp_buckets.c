/* Hidden tests of exercise 6.1, ddp_buckets: every split of small models tried, a model of
 * 1,500 layers against a reference written here (not in the students' handout), and the
 * cases where one term of the cost is free. */
#include <math.h>

#include "ch6.h"
#include "ch6/buckets_end.h"
#include "helpers.h"

#define MAX_L 1500

static bool close_to(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(1.0, fabs(b));
}

static void random_model(uint64_t *x, int L, size_t *f, double *ready, double *alpha,
                         double *beta)
{
    double t = 0;
    for (int l = L - 1; l >= 0; l--) {
        *x = *x * 2862933555777941757ull + 3037000493ull;
        f[l] = 1 + (*x >> 30) % 20000;
        t += (double)((*x >> 12) % 2000) * 1e-6;
        ready[l] = t;
    }
    *x = *x * 2862933555777941757ull + 3037000493ull;
    *alpha = (double)((*x >> 36) % 800) * 1e-6;
    *beta = (double)(1 + (*x >> 8) % 200) * 1e-10;
}

/* The exercise's answer on one model, checked: runs numbered from the last layer, the end
 * those runs have, nothing written past the last layer. Returns the end. */
static double checked(const char *what, const size_t *f, const double *ready, int L,
                      double alpha, double beta, int *of, int *n)
{
    of[L] = -7;
    double end = -1;
    *n = ddp_buckets(f, ready, L, alpha, beta, of, &end);
    cr_assert(*n >= 1 && *n <= L, "%s: %d buckets for %d layers", what, *n, L);
    cr_assert(of[L - 1] == 0 && of[0] == *n - 1, "%s: the last layer in bucket %d, the first in "
              "%d of %d", what, of[L - 1], of[0], *n);
    for (int l = L - 2; l >= 0; l--)
        cr_assert(of[l] == of[l + 1] || of[l] == of[l + 1] + 1, "%s: layer %d in bucket %d "
                  "after layer %d in %d", what, l, of[l], l + 1, of[l + 1]);
    cr_assert(of[L] == -7, "%s: wrote bucket_of[%d], past the last layer", what, L);
    double own = buckets_end(f, ready, L, alpha, beta, of);
    cr_assert(close_to(end, own, 1e-12), "%s: returned end %.17g, but its buckets end at %.17g",
              what, end, own);
    return end;
}

/* Up to 12 layers: every one of the 2^(L-1) ways to cut them into runs, and the earliest. */
Test(hidden_ddp_buckets, every_split_of_small_models)
{
    uint64_t x = 99;
    for (int trial = 0; trial < 400; trial++) {
        size_t f[13];
        double ready[13], alpha, beta;
        int of[13], cut[13], n, L = 1 + trial % 12;
        random_model(&x, L, f, ready, &alpha, &beta);
        double end = checked("a small model", f, ready, L, alpha, beta, of, &n), best = INFINITY;
        for (unsigned mask = 0; mask < 1u << (L - 1); mask++) {
            int b = 0; /* bit l of mask: a bucket closes after layer l + 1 (going down) */
            for (int l = L - 1; l >= 0; l--) {
                cut[l] = b;
                if (l > 0 && (mask >> (l - 1)) & 1)
                    b++;
            }
            best = fmin(best, buckets_end(f, ready, L, alpha, beta, cut));
        }
        cr_assert(close_to(end, best, 1e-12), "%d layers, alpha %g, beta %g: ends at %.17g, "
                  "the best of every split at %.17g", L, alpha, beta, end, best);
    }
}

/* The reference: the earliest end over the layers in the order backward finishes them,
 * kept for each count of them with a bucket closing there. */
static double reference(const size_t *f, const double *ready, int L, double alpha, double beta)
{
    static double E[MAX_L + 1];
    E[0] = -INFINITY;
    for (int j = 1; j <= L; j++) {
        double bytes = 0;
        E[j] = INFINITY;
        for (int i = j; i >= 1; i--) { /* the last bucket holds positions i-1 .. j-1 */
            bytes += 4.0 * (double)f[L - i];
            E[j] = fmin(E[j], fmax(E[i - 1], ready[L - j]) + alpha + beta * bytes);
        }
    }
    return E[L];
}

/* 1,500 layers (a split tried one by one would never end): against the reference. */
Test(hidden_ddp_buckets, fifteen_hundred_layers)
{
    static size_t f[MAX_L];
    static double ready[MAX_L];
    static int of[MAX_L + 1];
    uint64_t x = 4242;
    for (int trial = 0; trial < 3; trial++) {
        double alpha, beta;
        int n, L = trial == 0 ? MAX_L : 200 + 400 * trial;
        random_model(&x, L, f, ready, &alpha, &beta);
        double end = checked("a deep model", f, ready, L, alpha, beta, of, &n);
        double want = reference(f, ready, L, alpha, beta);
        cr_assert(close_to(end, want, 1e-9), "%d layers: ends at %.17g, the earliest is %.17g",
                  L, end, want);
    }
}

/* Free latency: a bucket a layer is never worse, so nothing ends before it. Free bytes: the
 * last bucket starts when layer 0 is ready, so nothing ends before ready[0] + alpha. All
 * layers ready at once, with latency: one bucket, alone the earliest. */
Test(hidden_ddp_buckets, one_term_free_or_all_ready_at_once)
{
    uint64_t x = 5;
    for (int trial = 0; trial < 200; trial++) {
        size_t f[24];
        double ready[24], alpha, beta, flat[24];
        int of[25], each[24], n, L = 1 + trial % 24;
        random_model(&x, L, f, ready, &alpha, &beta);
        for (int l = 0; l < L; l++)
            each[l] = L - 1 - l;
        double end = checked("alpha 0", f, ready, L, 0, beta, of, &n);
        double per_layer = buckets_end(f, ready, L, 0, beta, each);
        cr_assert(close_to(end, per_layer, 1e-12), "alpha 0, %d layers: ends at %.17g, a bucket "
                  "a layer at %.17g", L, end, per_layer);
        end = checked("beta 0", f, ready, L, alpha + 1e-6, 0, of, &n);
        cr_assert(close_to(end, ready[0] + alpha + 1e-6, 1e-12), "beta 0, %d layers: ends at "
                  "%.17g, expected ready[0] + alpha = %.17g", L, end, ready[0] + alpha + 1e-6);
        for (int l = 0; l < L; l++)
            flat[l] = ready[0];
        end = checked("all ready at once", f, flat, L, alpha + 1e-6, beta, of, &n);
        cr_assert(n == 1, "all %d layers ready at once, alpha %g: %d buckets, expected 1", L,
                  alpha + 1e-6, n);
    }
}
