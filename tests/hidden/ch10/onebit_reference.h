/* The book's own 1-bit compressor, for the hidden tests of chapter 10 and the autograder:
 * written apart from the reference solution (signs first, then the means, then the bytes
 * packed from the top bit down). It stands in for onebit_compress when 10.2 is graded (in
 * its hidden tests, in onebit_compress_supply.c, which tests/grade.sh links to 10.2's public tests,
 * and in the autograder's jail, tests/jail/exercises.c), so that 10.2 is graded on its own.
 * No Criterion here: the jail's host includes this file (not in the students' handout). */
#ifndef DPS_TEST_ONEBIT_REFERENCE_H
#define DPS_TEST_ONEBIT_REFERENCE_H

#include "../../ch10/onebit.h"

/* Exercise 10.1's contract (exercises/ch10/ch10.h), computed another way. */
static inline void onebit_reference(const float *g, float *error, size_t n, uint8_t *bits,
                                    float *pos, float *neg)
{
    unsigned char *sign = malloc(n + 1);
    float *M = malloc((n + 1) * sizeof *M);
    if (!sign || !M) {
        fprintf(stderr, "onebit_reference: out of memory\n");
        abort();
    }
    for (size_t i = 0; i < n; i++) {
        M[i] = g[i] + error[i];
        sign[i] = !(M[i] < 0.0f); /* +0 and -0 both compare equal to 0: bit 1 */
    }
    double up = 0, down = 0;
    size_t ups = 0;
    for (size_t i = 0; i < n; i++) /* each side in the order of i */
        if (sign[i])
            up += (double)M[i], ups++;
    for (size_t i = 0; i < n; i++)
        if (!sign[i])
            down += (double)M[i];
    *pos = ups ? (float)(up / (double)ups) : 0.0f;
    *neg = n - ups ? (float)(down / (double)(n - ups)) : 0.0f;
    for (size_t byte = 0; byte < (n + 7) / 8; byte++) {
        unsigned v = 0;
        for (int k = 7; k >= 0; k--) {
            size_t i = byte * 8 + (size_t)k;
            v = v << 1 | (i < n && sign[i]);
        }
        bits[byte] = (uint8_t)v;
    }
    for (size_t i = 0; i < n; i++)
        error[i] = M[i] - (sign[i] ? *pos : *neg);
    free(sign);
    free(M);
}

#endif
