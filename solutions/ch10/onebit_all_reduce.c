/* Exercise 10.2, reference solution. */
#include <string.h>

#include "ch10.h"

int onebit_all_reduce(Comm *c, float *grad, float *error, size_t n, void *scratch, char *err)
{
    size_t m = onebit_message_bytes(n), nb = (n + 7) / 8;
    int N = c->size;
    unsigned char *all = scratch, *mine = all + (size_t)c->rank * m;
    float hi, lo;
    onebit_compress(grad, error, n, mine, &hi, &lo);
    memcpy(mine + nb, &hi, sizeof hi);
    memcpy(mine + nb + sizeof hi, &lo, sizeof lo);
    /* N chunks of one element of m bytes: chunk q is rank q's message. */
    if (ring_all_gather(c, all, (size_t)N, m, err))
        return -1;
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (int q = 0; q < N; q++) {
            const unsigned char *msg = all + (size_t)q * m;
            float d;
            memcpy(&d, msg + nb + (msg[i / 8] >> (i % 8) & 1 ? 0 : sizeof(float)), sizeof d);
            s += d;
        }
        grad[i] = (float)(s / N);
    }
    return 0;
}
