/* The book's own 1-bit compressor, for the hidden tests of chapter 10 and the autograder:
 * written apart from the reference solution (the values sorted alone, each split scored on
 * entries centred on their mean, a threshold chosen, then the means in the order of i and the
 * bytes packed from the top bit down). It stands in for onebit_compress when 10.2 is graded
 * (in its hidden tests, in onebit_compress_supply.c, which tests/grade.sh links to 10.2's
 * public tests, and in the autograder's jail, tests/jail/exercises.c), so that 10.2 is graded
 * on its own. No Criterion here: the jail's host includes this file (not in the students'
 * handout). */
#ifndef DPS_TEST_ONEBIT_REFERENCE_H
#define DPS_TEST_ONEBIT_REFERENCE_H

#include <string.h>

#include "../../ch10/onebit.h"

static int onebit_float_order(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* The threshold of the best two-value code of M[0..n): the entries at or above it are sent as
 * hi. Entries centred on their mean mu (in double): a split after the k smallest leaves the
 * scatter less c^2 n / (k (n - k)), c the sum of the k smallest centred, so the best split
 * makes that the largest. -inf when all are equal (one value). */
static inline float onebit_threshold(const float *M, size_t n)
{
    float *v = malloc((n + 1) * sizeof *v);
    if (!v) {
        fprintf(stderr, "onebit_reference: out of memory\n");
        abort();
    }
    memcpy(v, M, n * sizeof *v);
    qsort(v, n, sizeof *v, onebit_float_order);
    double mu = 0;
    for (size_t i = 0; i < n; i++)
        mu += v[i];
    mu /= (double)n;
    double c = 0, best = -1;
    float t = -INFINITY;
    for (size_t k = 1; k < n; k++) {
        c += (double)v[k - 1] - mu;
        if (!(v[k - 1] < v[k]))
            continue;
        double score = c * c * (double)n / ((double)k * (double)(n - k));
        if (score > best)
            best = score, t = v[k];
    }
    free(v);
    return t;
}

/* Exercise 10.1's contract (exercises/ch10/ch10.h), computed another way. */
static inline void onebit_reference(const float *g, float *error, size_t n, uint8_t *bits,
                                    float *hi, float *lo)
{
    *hi = *lo = 0.0f;
    if (n == 0)
        return;
    float *M = malloc(n * sizeof *M);
    unsigned char *up = malloc(n);
    if (!M || !up) {
        fprintf(stderr, "onebit_reference: out of memory\n");
        abort();
    }
    for (size_t i = 0; i < n; i++)
        M[i] = g[i] + error[i];
    float t = onebit_threshold(M, n);
    double sum[2] = {0, 0};
    size_t count[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        up[i] = M[i] >= t;
        sum[up[i]] += M[i], count[up[i]]++;
    }
    if (count[0])
        *lo = (float)(sum[0] / (double)count[0]);
    *hi = (float)(sum[1] / (double)count[1]);
    for (size_t byte = 0; byte < (n + 7) / 8; byte++) {
        unsigned v = 0;
        for (int k = 7; k >= 0; k--) {
            size_t i = byte * 8 + (size_t)k;
            v = v << 1 | (i < n && up[i]);
        }
        bits[byte] = (uint8_t)v;
    }
    for (size_t i = 0; i < n; i++)
        error[i] = M[i] - (up[i] ? *hi : *lo);
    free(M);
    free(up);
}

#endif
