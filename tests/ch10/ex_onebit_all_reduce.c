/* Tests of exercise 10.2, onebit_all_reduce: a case worked by hand on two ranks, and what must
 * hold on one to four ranks (ch10/onebit_ranks.h). The compressor it calls is linked by
 * tests/grade.sh: the book's own where the grader has it (so a wrong 10.1 is not charged
 * twice), else your own 10.1. */
#include "ch10/onebit_ranks.h"
#include "helpers.h"

/* Rank 0 gives {1, -2, 3}, rank 1 {-1, -1, 5}, their errors 0. Rank 0's best code sends
 * {1, 3} as their mean 2 and -2 as itself (a squared error of 2; {-2, 1} and {3} leave 4.5),
 * so it decodes to {2, -2, 2} and keeps the error {-1, 0, 1}; rank 1's sends {-1, -1} as -1
 * and 5 as 5: {-1, -1, 5}, error 0. Both end with the mean, {0.5, -1.5, 3.5}. */
static int hand_worked(int rank, int size, void *arg, char *err)
{
    (void)size, (void)arg;
    Watched w;
    Comm *c = cpu_watched(rank, &w, err);
    if (!c)
        return -1;
    const float g[2][3] = {{1, -2, 3}, {-1, -1, 5}}, e[2][3] = {{-1, 0, 1}, {0, 0, 0}};
    const float want[3] = {0.5f, -1.5f, 3.5f};
    float grad[3], error[3] = {0, 0, 0};
    unsigned char scratch[2 * 16];
    memcpy(grad, g[rank], sizeof grad);
    if (onebit_all_reduce(c, grad, error, 3, scratch, err))
        return -1;
    for (int i = 0; i < 3; i++)
        if (grad[i] != want[i] || error[i] != e[rank][i])
            return error_set(err, "rank %d: at %d the result is %g and the error %g, expected %g "
                             "and %g (worked by hand: the comment above the test)", rank, i,
                             (double)grad[i], (double)error[i], (double)want[i],
                             (double)e[rank][i]);
    c->close(c);
    return 0;
}

Test(ex_onebit_all_reduce, a_case_worked_by_hand_on_two_ranks)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(2, 0, 3.0, hand_worked, NULL, 60, err) == 0, "%s", err);
}

Test(ex_onebit_all_reduce, the_same_bits_everywhere_and_nothing_lost_on_one_to_four_ranks)
{
    const size_t sizes[] = {0, 1, 7, 8, 1000};
    for (int N = 1; N <= 4; N++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
            onebit_laws(N, sizes[k], 3);
}

/* 4,096 floats are 16 KiB, their bits 512 bytes: a rank sends one message of 520 bytes to
 * each other rank, or the same bytes around a ring. */
Test(ex_onebit_all_reduce, one_message_of_bits_and_means_per_rank)
{
    for (int N = 2; N <= 4; N++) {
        onebit_laws(N, 4096, 1);
        onebit_laws(N, 4093, 1);
    }
}
