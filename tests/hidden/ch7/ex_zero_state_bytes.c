/* Hidden tests of exercise 7.1, zero_state_bytes: more ranks than parameters (chunks of no
 * parameters, and no model at all), byte counts beyond 32 bits, the refused arguments at
 * the ends of int, and random models of up to 2^40 parameters against a reference written
 * here (not in the students' handout). */
#include <limits.h>
#include <stdint.h>

#include "ch7.h"
#include "helpers.h"
#include "ch7/zero_bytes.h"

/* Worked by hand. 3 parameters over 5 ranks: chunk_start(3, 5, k) = floor(3k / 5) is 0, 0,
 * 1, 1, 2, 3, so the chunks hold 0, 1, 0, 1 and 1 parameters (not the first three ranks one
 * each); with AdamW, stage 1 is 24 + 8c, stage 2 is 12 + 12c, stage 3 is 16c. 1 parameter
 * over 4 ranks: only the last rank's chunk holds it; with momentum, 8 + 4c, 4 + 8c and 12c.
 * 2 over 5 with SGD: chunks 0, 0, 1, 0, 1. A rank with an empty chunk keeps nothing at
 * stage 3, and that is an answer, not a refusal; a model of no parameters keeps 0 bytes. */
Test(hidden_zero_state_bytes, more_ranks_than_parameters)
{
    const size_t c35[5] = {0, 1, 0, 1, 1};
    const size_t w35[4][5] = {{48, 48, 48, 48, 48},
                              {24, 32, 24, 32, 32},
                              {12, 24, 12, 24, 24},
                              {0, 16, 0, 16, 16}};
    const size_t c14[4] = {0, 0, 0, 1};
    const size_t w14[4][4] = {{12, 12, 12, 12}, {8, 8, 8, 12}, {4, 4, 4, 12}, {0, 0, 0, 12}};
    const size_t c25[5] = {0, 0, 1, 0, 1};
    const size_t w25[4][5] = {{16, 16, 16, 16, 16},
                              {16, 16, 16, 16, 16},
                              {8, 8, 12, 8, 12},
                              {0, 0, 8, 0, 8}};
    for (int stage = 0; stage <= 3; stage++) {
        for (int r = 0; r < 5; r++)
            expect(stage, 3, 5, r, 2, c35[r], w35[stage][r]);
        for (int r = 0; r < 4; r++)
            expect(stage, 1, 4, r, 1, c14[r], w14[stage][r]);
        for (int r = 0; r < 5; r++)
            expect(stage, 2, 5, r, 0, c25[r], w25[stage][r]);
        for (int r = 0; r < 3; r++)
            for (int sf = 0; sf <= 2; sf++)
                expect(stage, 0, 3, r, sf, 0, 0);
    }
}

/* Worked by hand: 10,000,000,003 parameters over 4 ranks: chunk_start is 0, 2.5e9,
 * 5e9 + 1, 7.5e9 + 2 and n, so the chunks hold 2,500,000,000 and then 2,500,000,001 three
 * times, more than an int holds; with AdamW every count is beyond 32 bits. Then 2^32 + 1
 * and 3e9 parameters over 2, 3 and 5 ranks, every stage and optimizer, against the counts
 * 4 (p + g + s x) computed here. */
Test(hidden_zero_state_bytes, counts_beyond_32_bits)
{
    const size_t n = 10000000003ull, lo = 2500000000ull, hi = 2500000001ull;
    const size_t want[4][2] = {{160000000048ull, 160000000048ull},
                               {100000000024ull, 100000000032ull},
                               {70000000012ull, 70000000024ull},
                               {40000000000ull, 40000000016ull}};
    for (int stage = 0; stage <= 3; stage++)
        for (int r = 0; r < 4; r++)
            expect(stage, n, 4, r, 2, r == 0 ? lo : hi, want[stage][r != 0]);
    const size_t sizes[] = {(1ull << 32) + 1, 3000000000ull};
    const int counts[] = {2, 3, 5};
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 3; j++) {
            size_t m = sizes[i];
            int ranks = counts[j];
            for (int r = 0; r < ranks; r++) {
                size_t c = (size_t)(r + 1) * m / (size_t)ranks - (size_t)r * m / (size_t)ranks;
                for (int sf = 0; sf <= 2; sf++) {
                    size_t s = (size_t)sf;
                    expect(0, m, ranks, r, sf, c, 4 * (m + m + s * m));
                    expect(1, m, ranks, r, sf, c, 4 * (m + m + s * c));
                    expect(2, m, ranks, r, sf, c, 4 * (m + c + s * c));
                    expect(3, m, ranks, r, sf, c, 4 * (c + c + s * c));
                }
            }
        }
}

/* 0 for arguments outside the contract at the ends of int, for a model large enough that
 * any count would be far from 0; and the valid arguments next to them still counted. */
Test(hidden_zero_state_bytes, invalid_arguments_at_the_extremes)
{
    const size_t n = 1ull << 36;
    const struct {
        int stage, ranks, rank;
        const char *what;
    } bad[] = {
        {INT_MIN, 4, 0, "stage INT_MIN"},
        {INT_MAX, 4, 0, "stage INT_MAX"},
        {5, 4, 1, "stage 5"},
        {0, 4, INT_MIN, "rank INT_MIN of 4"},
        {0, 4, INT_MAX, "rank INT_MAX of 4"},
        {3, 1, 1, "rank 1 of 1"},
        {2, 5, 5, "rank 5 of 5"},
        {1, INT_MIN, 0, "rank 0 of INT_MIN ranks"},
        {1, -3, 2, "rank 2 of -3 ranks"},
        {3, 0, -1, "rank -1 of 0 ranks"},
        {4, 0, 0, "stage 4, rank 0 of 0 ranks"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int sf = 0; sf <= 2; sf++) {
            size_t got = zero_state_bytes(bad[i].stage, n, bad[i].ranks, bad[i].rank, sf);
            cr_assert(got == 0, "%s (2^36 parameters, %s): %zu bytes, expected 0, the answer "
                      "to arguments outside the contract", bad[i].what, optimizer_name(sf), got);
        }
    expect(3, n, 1, 0, 0, n, 8 * n);                    /* rank 0 of 1: the whole model */
    expect(3, n, 5, 4, 2, n / 5 + 1, 16 * (n / 5 + 1)); /* 2^36 = 5q + 1: the last chunk */
    expect(2, n, 5, 0, 1, n / 5, 4 * n + 8 * (n / 5));
}

/* The parameters of rank r's chunk: chunk_start(n, N, k) is floor(k n / N). */
static size_t reference_chunk(size_t n, int ranks, int rank)
{
    return (size_t)(rank + 1) * n / (size_t)ranks - (size_t)rank * n / (size_t)ranks;
}

/* 1,000 random models of 1 to 2^40 parameters (a third of them under 64, where chunks of
 * one parameter and of none are common) over 1 to 5 ranks: every rank, stage and optimizer
 * against the floats each part keeps, and the ranks' chunks adding up to the model. */
Test(hidden_zero_state_bytes, random_models_against_a_reference)
{
    uint64_t x = 20240611;
    for (int trial = 0; trial < 1000; trial++) { /* each call a round trip in the jail */
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_t n = trial % 3 == 0 ? (x >> 58) + 1 : (x >> 24) + 1;
        int ranks = 1 + (int)((x >> 8) % 5);
        size_t sum = 0;
        for (int r = 0; r < ranks; r++) {
            size_t c = reference_chunk(n, ranks, r);
            sum += c;
            for (int sf = 0; sf <= 2; sf++) {
                size_t s = (size_t)sf;
                expect(0, n, ranks, r, sf, c, 4 * (n + n + s * n));
                expect(1, n, ranks, r, sf, c, 4 * (n + n + s * c));
                expect(2, n, ranks, r, sf, c, 4 * (n + c + s * c));
                expect(3, n, ranks, r, sf, c, 4 * (c + c + s * c));
            }
        }
        cr_assert(sum == n, "the reference's chunks of %zu parameters over %d ranks add up to "
                  "%zu (a bug in the test)", n, ranks, sum);
    }
}

/* The floats a rank keeps, per part: all n_params when the part is replicated at this
 * stage, the chunk when it is sharded (parameters at 3, gradients from 2, state from 1). */
static size_t reference(int stage, size_t n, int ranks, int rank, int sf)
{
    size_t c = reference_chunk(n, ranks, rank);
    size_t params = stage >= 3 ? c : n, grads = stage >= 2 ? c : n;
    size_t state = (size_t)sf * (stage >= 1 ? c : n);
    return 4 * (params + grads + state);
}

/* Every stage, optimizer and rank, for 0 to 40 parameters over 1 to 5 ranks. */
Test(hidden_zero_state_bytes, every_stage_of_small_models_against_a_reference)
{
    for (size_t n = 0; n <= 40; n++)
        for (int ranks = 1; ranks <= 5; ranks++)
            for (int r = 0; r < ranks; r++)
                for (int stage = 0; stage <= 3; stage++)
                    for (int sf = 0; sf <= 2; sf++)
                        expect(stage, n, ranks, r, sf, reference_chunk(n, ranks, r),
                               reference(stage, n, ranks, r, sf));
}
