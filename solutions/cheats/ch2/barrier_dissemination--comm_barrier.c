/* Cheat: 2.2 by the communicator's own barrier. Defeated at run time: the tests hand the
 * exercise a communicator whose barrier refuses. */
#include "ch2.h"

int barrier_dissemination(Comm *c, char *err)
{
    return c->barrier(c, err);
}
