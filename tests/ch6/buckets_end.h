/* Exercise 6.1's schedule, for its tests, public and hidden: when the last all-reduce ends
 * with the buckets of bucket_of, run as the header says, from the bucket of the last layers,
 * each starting at the later of its lowest layer's readiness and the end of the one before.
 * This evaluates a choice; it does not make one. */
#ifndef DPS_TEST_BUCKETS_END_H
#define DPS_TEST_BUCKETS_END_H

#include <math.h>
#include <stddef.h>

static inline double buckets_end(const size_t *f, const double *ready, int L, double alpha,
                                 double beta, const int *of)
{
    double t = -INFINITY, bytes = 0;
    for (int l = L - 1; l >= 0; l--) {
        bytes += 4.0 * (double)f[l];
        if (l == 0 || of[l - 1] != of[l]) { /* layer l is its bucket's lowest */
            t = fmax(t, ready[l]) + alpha + beta * bytes;
            bytes = 0;
        }
    }
    return t;
}

#endif
