/* Solution 11.1: which layers to split. The best plan for layers l..L-1 does not depend on
 * what came before layer l (a pair's cost is its own), so it is the better of two: layer l
 * whole, then the best plan from l + 1; or layers l and l + 1 a pair, where T divides the
 * units they share, then the best from l + 2. Computed from the last layer back, each
 * layer's best once: L steps, where trying every plan would take Fibonacci(L) of them. Costs
 * compare by floats per rank, then by floats all-reduced. */
#include <stdlib.h>

#include "ch11.h"

typedef struct {
    size_t floats, sent;
} Cost;

static int cheaper(Cost a, Cost b)
{
    return a.floats < b.floats || (a.floats == b.floats && a.sent < b.sent);
}

size_t tensor_split_plan(const int *widths, int L, int T, int *split, size_t *allreduced)
{
    Cost *best = xcalloc((size_t)L + 2, sizeof *best);
    char *pair = xcalloc((size_t)L + 1, 1);
    for (int l = L - 1; l >= 0; l--) {
        size_t in = (size_t)widths[l], mid = (size_t)widths[l + 1];
        best[l] = (Cost){(in + 1) * mid + best[l + 1].floats, best[l + 1].sent};
        if (l + 1 < L && mid % (size_t)T == 0) {
            size_t out = (size_t)widths[l + 2];
            Cost p = {(in + 1) * mid / T + mid * out / T + out + best[l + 2].floats,
                      out + (l > 0 ? in : 0) + best[l + 2].sent};
            if (cheaper(p, best[l]))
                best[l] = p, pair[l] = 1;
        }
    }
    for (int l = 0; l < L; l++)
        if (pair[l])
            split[l] = 1, split[l + 1] = 2, l++;
        else
            split[l] = 0;
    size_t floats = best[0].floats;
    *allreduced = best[0].sent;
    free(best);
    free(pair);
    return floats;
}
