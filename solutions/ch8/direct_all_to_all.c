/* Exercise 8.3, reference solution. */
#include "ch8.h"

int direct_all_to_all(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    if (!c->peer_buffer)
        return error_set(err, "direct_all_to_all: the %s transport has no memory the peers "
                         "can read", c->name);
    int n = c->size, me = c->rank;
    size_t block = count * sizeof(float);
    uint32_t base = c->progress(c);
    c->advance(c, base + 1); /* my blocks are there to read */
    /* Each peer's block for me, once that peer has announced its data; into scratch, since
     * my own buf is still being read by the others. Starting at me + 1 spreads the reads. */
    for (int k = 0; k < n; k++) {
        int q = (me + k) % n;
        const float *theirs = q == me ? buf : c->peer_buffer(c, q, buf);
        if (!theirs)
            return error_set(err, "direct_all_to_all: buf is not from alloc_shared");
        if (q != me && c->wait_for(c, q, base + 1, err))
            return -1;
        c->dev->copy(scratch + (size_t)q * count, theirs + (size_t)me * count, block);
    }
    c->advance(c, base + 2); /* done reading everyone's buf */
    for (int q = 0; q < n; q++) /* and nobody reads mine any more once all say so */
        if (q != me && c->wait_for(c, q, base + 2, err))
            return -1;
    c->dev->copy(buf, scratch, (size_t)n * block);
    return 0;
}
