/* Hidden tests of exercise 10.2, onebit_all_reduce, against the book's compressor and sums
 * bit for bit: one to six ranks, uneven sizes, nothing on three ranks, ten steps of error
 * feedback, a large gradient on small channels (not in the students' handout). */
#include "onebit_ranks_reference.h"
#include "helpers.h"

/* The book's compressor, so that 10.2 is graded apart from 10.1. */
void onebit_compress(const float *g, float *error, size_t n, uint8_t *bits, float *hi,
                     float *lo)
{
    onebit_reference(g, error, n, bits, hi, lo);
}

Test(hidden_onebit_all_reduce, five_and_six_ranks_uneven_sizes)
{
    const size_t sizes[] = {3, 13, 999, 4099};
    OnebitJob job = {sizes, 4, 2, 0};
    onebit_run(5, 0, 2.0, &job);
    onebit_run(6, 0, 2.0, &job);
}

Test(hidden_onebit_all_reduce, nothing_on_three_ranks_then_one_entry)
{
    const size_t sizes[] = {0, 0, 1};
    OnebitJob job = {sizes, 3, 1, 0};
    onebit_run(3, 0, 2.0, &job);
}

Test(hidden_onebit_all_reduce, ten_steps_lose_nothing_across_ranks)
{
    const size_t sizes[] = {777};
    OnebitJob job = {sizes, 1, 10, 1};
    onebit_run(4, 0, 2.0, &job);
}

/* 100,003 floats: 400 KB as floats, 12.5 KB as bits, on channels of 4 KiB. */
Test(hidden_onebit_all_reduce, a_large_gradient_as_bits_on_small_channels)
{
    const size_t sizes[] = {100003};
    OnebitJob job = {sizes, 1, 2, 0};
    onebit_run(3, 4096, 2.0, &job);
}

Test(hidden_onebit_all_reduce, the_same_bits_as_the_book_on_one_to_four_ranks)
{
    const size_t sizes[] = {0, 1, 7, 8, 1000};
    OnebitJob job = {sizes, 5, 2, 0};
    for (int N = 1; N <= 4; N++)
        onebit_run(N, 0, 3.0, &job);
}
