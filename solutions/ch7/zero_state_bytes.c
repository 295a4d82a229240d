/* Exercise 7.1, reference solution. */
#include "ch7.h"

size_t zero_state_bytes(int stage, size_t n_params, int ranks, int rank, int state_floats)
{
    if (stage < 0 || stage > 3 || ranks < 1 || rank < 0 || rank >= ranks)
        return 0;
    size_t chunk = chunk_start(n_params, ranks, rank + 1) - chunk_start(n_params, ranks, rank);
    size_t state = (size_t)state_floats, f = sizeof(float);
    switch (stage) {
    case 0: /* everything replicated */
        return f * (2 + state) * n_params;
    case 1: /* parameters and gradients replicated, the state of the chunk */
        return f * (2 * n_params + state * chunk);
    case 2: /* parameters replicated, the gradients and state of the chunk */
        return f * (n_params + (1 + state) * chunk);
    default: /* only the chunk, of everything */
        return f * (2 + state) * chunk;
    }
}
