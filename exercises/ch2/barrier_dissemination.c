/* Exercise 2.2: the dissemination barrier, from messages only. */
#include "ch2.h"

int barrier_dissemination(Comm *c, char *err)
{
    (void)c;
    /* For d = 1, 2, 4, ... < N: send a byte to (rank + d) mod N and receive one from
     * (rank - d) mod N, at the same time (c->sendrecv). */
    return error_set(err, "barrier_dissemination: not written yet");
}
