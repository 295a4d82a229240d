/* Tests of exercise 10.2, onebit_all_reduce. */
#include "ch10/onebit_ranks.h"
#include "helpers.h"

/* The compressor that onebit_all_reduce calls: the book's own, so that 10.2 is graded apart
 * from 10.1 (the autograder's jail supplies the same one). */
void onebit_compress(const float *g, float *error, size_t n, uint8_t *bits, float *pos,
                     float *neg)
{
    onebit_reference(g, error, n, bits, pos, neg);
}

Test(ex_onebit_all_reduce, the_same_bits_as_the_reference_on_one_to_four_ranks)
{
    const size_t sizes[] = {0, 1, 7, 8, 1000};
    OnebitJob job = {sizes, 5, 2, 0};
    for (int N = 1; N <= 4; N++)
        onebit_run(N, 0, 3.0, &job);
}

/* 4,096 floats are 16 KiB, their bits 512 bytes: a rank sends one message of 520 bytes to
 * each other rank, or the same bytes around a ring. */
Test(ex_onebit_all_reduce, one_message_of_bits_and_means_per_rank)
{
    const size_t sizes[] = {4096, 4093};
    OnebitJob job = {sizes, 2, 1, 0};
    for (int N = 2; N <= 4; N++)
        onebit_run(N, 0, 3.0, &job);
}
