/* Exercise 11.1: which layers to split (2 stars, 20 points). Read the end of chapter 11.
 * Replace the body below; `make test` runs your tests once this file has changed. */
#include "ch11.h"

size_t tensor_split_plan(const int *widths, int L, int T, int *split, size_t *allreduced)
{
    /* TODO: the pairs that leave each rank the fewest floats (then the fewest all-reduced). */
    (void)widths, (void)L, (void)T, (void)split;
    *allreduced = 0;
    return 0;
}
