/* Exercise 4.2: share-reduce on a bidirectional ring. */
#include "ch4.h"

int ring_reduce_scatter_bidir(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    (void)c;
    (void)buf;
    (void)count;
    (void)scratch;
    /* First halves go to rank r+1 as in the book; second halves to rank r-1, mirrored. */
    return error_set(err, "ring_reduce_scatter_bidir: not written yet");
}
