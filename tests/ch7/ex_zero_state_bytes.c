/* Tests of exercise 7.1, zero_state_bytes: hand-worked counts for chunks of two sizes, the
 * arguments the contract refuses beside the ones it accepts, and the shards of stage 3 adding
 * up to one replica of stage 0. The comparison with a reference, every stage of every small
 * model, is among the hidden tests: no public test computes an answer. */
#include "ch7.h"
#include "helpers.h"
#include "zero_bytes.h"

/* Ten parameters over four ranks: chunk_start(10, 4, k) = 2k + floor(2k / 4) is 0, 2, 5, 7,
 * 10, so the chunks hold 2, 3, 2 and 3 parameters. Per stage, optimizer (SGD, momentum,
 * AdamW) and rank, counted by hand: stage 0 is 4 * 10 * (2 + s); stage 1, 80 + 4 s c;
 * stage 2, 40 + 4 (1 + s) c; stage 3, 4 (2 + s) c. Then the book's table, for 1,000
 * parameters that 4 divides: 16, 10, 7 and 4 bytes per parameter with AdamW. */
Test(ex_zero_state_bytes, hand_worked_uneven_chunks)
{
    const size_t chunk[4] = {2, 3, 2, 3};
    const size_t want[4][3][4] = {
        {{80, 80, 80, 80}, {120, 120, 120, 120}, {160, 160, 160, 160}},
        {{80, 80, 80, 80}, {88, 92, 88, 92}, {96, 104, 96, 104}},
        {{48, 52, 48, 52}, {56, 64, 56, 64}, {64, 76, 64, 76}},
        {{16, 24, 16, 24}, {24, 36, 24, 36}, {32, 48, 32, 48}},
    };
    for (int stage = 0; stage <= 3; stage++)
        for (int sf = 0; sf <= 2; sf++)
            for (int r = 0; r < 4; r++)
                expect(stage, 10, 4, r, sf, chunk[r], want[stage][sf][r]);
    const size_t adamw[4] = {16000, 10000, 7000, 4000};
    for (int stage = 0; stage <= 3; stage++)
        for (int r = 0; r < 4; r++)
            expect(stage, 1000, 4, r, 2, 250, adamw[stage]);
}

/* 0 for a stage outside 0..3, a rank outside 0..ranks-1 and ranks < 1; the arguments just
 * inside those bounds are counted as usual. */
Test(ex_zero_state_bytes, invalid_arguments_return_zero)
{
    const struct {
        int stage, ranks, rank;
        const char *what;
    } bad[] = {
        {-1, 4, 0, "stage -1"},
        {4, 4, 0, "stage 4"},
        {1, 4, -1, "rank -1 of 4"},
        {1, 4, 4, "rank 4 of 4"},
        {3, 4, 5, "rank 5 of 4"},
        {0, 0, 0, "rank 0 of 0 ranks"},
        {2, -1, 0, "rank 0 of -1 ranks"},
        {0, -2, -1, "rank -1 of -2 ranks"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int sf = 0; sf <= 2; sf++) {
            size_t got = zero_state_bytes(bad[i].stage, 10, bad[i].ranks, bad[i].rank, sf);
            cr_assert(got == 0, "%s (10 parameters, %s): %zu bytes, expected 0, the answer "
                      "to arguments outside the contract", bad[i].what, optimizer_name(sf), got);
        }
    expect(0, 10, 4, 0, 2, 2, 160);  /* the lowest stage, the first rank */
    expect(3, 10, 4, 3, 2, 3, 48);   /* the highest stage, the last rank */
    expect(3, 10, 1, 0, 1, 10, 120); /* one rank keeps everything, even at stage 3 */
}

/* Stage 3 keeps no copies: what the ranks keep together is one replica, stage 0 on any one
 * rank, which is 4 + 4 + 4 s bytes for each parameter. */
Test(ex_zero_state_bytes, stage_3_summed_over_ranks_is_stage_0)
{
    const size_t sizes[] = {1, 7, 10, 97, 1000, 65537};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int ranks = 1; ranks <= 5; ranks++)
            for (int sf = 0; sf <= 2; sf++) {
                size_t n = sizes[i], one = (4 + 4 + 4 * (size_t)sf) * n, sum = 0;
                for (int r = 0; r < ranks; r++)
                    sum += zero_state_bytes(3, n, ranks, r, sf);
                size_t got0 = zero_state_bytes(0, n, ranks, ranks - 1, sf);
                cr_assert(got0 == one, "stage 0, %zu parameters, %s, rank %d of %d: %zu bytes, "
                          "expected %zu", n, optimizer_name(sf), ranks - 1, ranks, got0, one);
                cr_assert(sum == one, "stage 3, %zu parameters, %s, %d ranks: the ranks keep "
                          "%zu bytes together, expected %zu (one replica: every parameter in "
                          "exactly one chunk)", n, optimizer_name(sf), ranks, sum, one);
            }
}
