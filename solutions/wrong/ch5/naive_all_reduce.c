/* Wrong on purpose: every rank sends its whole buffer to all the others before it receives
 * anything, which works while a buffer fits in the channel between two ranks and deadlocks
 * once it does not (each send waits for a receive that no rank has reached).
 * Fails: ex_naive_all_reduce::a_buffer_larger_than_the_channel
 * Fails: hidden_naive_all_reduce::buffers_larger_than_the_channel
 */
/* Exercise 5.3, from the reference solution. */
#include "ch5.h"

int naive_all_reduce(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    int n = c->size, r = c->rank;
    c->dev->copy(scratch + (size_t)r * count, buf, count * sizeof(float));
    for (int q = 0; q < n; q++)
        if (q != r && c->send(c, q, buf, count * sizeof(float), err))
            return -1;
    for (int q = 0; q < n; q++)
        if (q != r && c->recv(c, q, scratch + (size_t)q * count, count * sizeof(float), err))
            return -1;
    c->dev->copy(buf, scratch, count * sizeof(float));
    for (int q = 1; q < n; q++)
        c->dev->axpy(count, 1.0f, scratch + (size_t)q * count, buf);
    return 0;
}
