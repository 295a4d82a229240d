/* Exercise 10.1, reference solution. */
#include <stdlib.h>

#include "ch10.h"

/* An entry of M and where it came from. */
typedef struct Entry {
    float m;
    size_t i;
} Entry;

static int by_value(const void *a, const void *b)
{
    float x = ((const Entry *)a)->m, y = ((const Entry *)b)->m;
    return (x > y) - (x < y);
}

/* The best code is a threshold: with its two values fixed, every entry goes to the nearer, so
 * the entries sent as lo are the k smallest for some k. For a split after the k smallest, the
 * squared error left is the scatter of all n about their mean less k (n - k) / n (mean_lo -
 * mean_hi)^2: the best k makes k (n - k) (mean_lo - mean_hi)^2 the largest. The prefix sums,
 * in double, give every k's means in one pass after the sort. */
static size_t best_split(const Entry *e, size_t n, double total)
{
    size_t best = 0;
    double best_gain = -1, below = 0;
    for (size_t k = 1; k < n; k++) {
        below += e[k - 1].m;
        if (e[k - 1].m == e[k].m) /* equal entries stay together */
            continue;
        double d = below / (double)k - (total - below) / (double)(n - k);
        double gain = (double)k * (double)(n - k) * d * d;
        if (gain > best_gain)
            best_gain = gain, best = k;
    }
    return best;
}

void onebit_compress(const float *g, float *error, size_t n, uint8_t *bits, float *hi,
                     float *lo)
{
    *hi = *lo = 0.0f;
    if (n == 0)
        return;
    Entry *e = xcalloc(n, sizeof *e);
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        e[i].m = g[i] + error[i];
        e[i].i = i;
        total += e[i].m;
    }
    qsort(e, n, sizeof *e, by_value);
    size_t k = best_split(e, n, total); /* 0: all equal, one value */
    double below = 0;
    for (size_t j = 0; j < k; j++)
        below += e[j].m;
    if (k > 0)
        *lo = (float)(below / (double)k);
    *hi = (float)((total - below) / (double)(n - k));
    for (size_t b = 0; b < (n + 7) / 8; b++)
        bits[b] = 0;
    for (size_t j = 0; j < n; j++) {
        size_t i = e[j].i;
        int up = j >= k;
        if (up)
            bits[i / 8] |= (uint8_t)(1u << (i % 8));
        error[i] = e[j].m - (up ? *hi : *lo);
    }
    free(e);
}
