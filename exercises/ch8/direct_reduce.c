/* Exercise 8.2: Reduce to one rank, the adding shared (2 stars, 20 points). Read the end of
 * chapter 8. Replace the body below; `make test` runs your tests once this file has changed. */
#include "ch8.h"

int direct_reduce(Comm *c, float *buf, size_t count, int root, char *err)
{
    /* TODO: announce your buffer (base + 1) and wait for everyone's; add chunk r of every
     * buffer in rank order (c->dev->reduce) into the root's buffer; announce base + 2 and
     * wait for everyone's before returning. */
    (void)c;
    (void)buf;
    (void)count;
    (void)root;
    return error_set(err, "direct_reduce: not written yet");
}
