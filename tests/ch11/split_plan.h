/* What exercise 11.1's tests (public and hidden) check of a plan: that it is one (pairs of a
 * column-parallel layer and the row-parallel one after it, only where T divides the units
 * they share) and what it costs by the header's rule, against the cost the function returned
 * and the cost the test expects. */
#ifndef DPS_TEST_SPLIT_PLAN_H
#define DPS_TEST_SPLIT_PLAN_H

#include <stdio.h>
#include <stdlib.h>

#include "ch11.h"
#include "helpers.h"

/* The floats per rank and all-reduced per sample of plan split; 0 with *why when it is not a
 * plan. */
static int plan_cost(const int *widths, int L, int T, const int *split, size_t *floats,
                     size_t *sent, char *why, size_t len)
{
    *floats = *sent = 0;
    for (int l = 0; l < L; l++) {
        size_t in = (size_t)widths[l], mid = (size_t)widths[l + 1];
        if (split[l] == 0) {
            *floats += (in + 1) * mid;
            continue;
        }
        if (split[l] != 1 || l + 1 == L || split[l + 1] != 2)
            return snprintf(why, len, "split[%d] = %d%s: a pair is 1 then 2, every other layer "
                            "0", l, split[l], split[l] == 1 && l + 1 < L ? " then not 2" : ""),
                   0;
        if (mid % (size_t)T)
            return snprintf(why, len, "layers %d and %d are a pair, but T = %d does not divide "
                            "their %zu hidden units", l, l + 1, T, mid),
                   0;
        size_t out = (size_t)widths[l + 2];
        *floats += (in + 1) * mid / T + mid * out / T + out;
        *sent += out + (l > 0 ? in : 0);
        l++;
    }
    return 1;
}

/* Plan the model, check the plan and its returned cost, and that it costs want_floats per
 * rank and want_sent all-reduced per sample. */
static void check_plan(const char *what, const int *widths, int L, int T, size_t want_floats,
                       size_t want_sent)
{
    int *split = xcalloc((size_t)L + 1, sizeof *split);
    for (int l = 0; l <= L; l++)
        split[l] = 7; /* not a value of the plan: every entry must be written */
    size_t sent = 12345, floats = tensor_split_plan(widths, L, T, split, &sent), f, s;
    char why[200];
    cr_assert(split[L] == 7, "%s: split[%d] was written, past the L = %d layers", what, L, L);
    cr_assert(plan_cost(widths, L, T, split, &f, &s, why, sizeof why), "%s, T = %d: %s", what, T,
              why);
    cr_assert(f == floats && s == sent, "%s, T = %d: the plan costs %zu floats per rank and %zu "
              "all-reduced, but the function returned %zu and %zu", what, T, f, s, floats, sent);
    cr_assert(f == want_floats && s == want_sent, "%s, T = %d: a plan of %zu floats per rank and "
              "%zu all-reduced per sample, expected %zu and %zu", what, T, f, s, want_floats,
              want_sent);
    free(split);
}

#endif
