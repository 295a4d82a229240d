/* Exercise 8.1: Broadcast by direct reads (1 star, 10 points). Read the end of chapter 8.
 * Replace the body below; `make test` runs your tests once this file has changed. */
#include "ch8.h"

int direct_broadcast(Comm *c, float *buf, size_t count, int root, char *err)
{
    /* TODO: the root announces its data (base + 1); every other rank waits for it, copies
     * the root's buffer (c->peer_buffer) into its own, and announces base + 2; the root waits
     * for all of them before it announces base + 2 and returns. */
    (void)c;
    (void)buf;
    (void)count;
    (void)root;
    return error_set(err, "direct_broadcast: not written yet");
}
