/* The harness of the tests of exercise 7.1 (zero_state_bytes), public and hidden: one count
 * checked, with the optimizer and the rank's chunk named in the message. */
#ifndef DPS_TEST_ZERO_BYTES_H
#define DPS_TEST_ZERO_BYTES_H

#include "ch7.h"
#include "helpers.h"

static inline const char *optimizer_name(int state_floats)
{
    return state_floats == 0   ? "SGD (0 state floats)"
           : state_floats == 1 ? "momentum (1 state float)"
                               : "AdamW (2 state floats)";
}

/* zero_state_bytes(...) must be want; chunk (the parameters of the rank's chunk) goes into
 * the message. */
static inline void expect(int stage, size_t n, int ranks, int rank, int sf, size_t chunk,
                          size_t want)
{
    size_t got = zero_state_bytes(stage, n, ranks, rank, sf);
    cr_assert(got == want,
              "stage %d, %zu parameters, %s, rank %d of %d (its chunk: %zu "
              "parameters): %zu bytes, expected %zu",
              stage, n, optimizer_name(sf), rank, ranks, chunk, got, want);
}

#endif
