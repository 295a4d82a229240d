/* Exercise 7.3: FSDP's schedule, with prefetch (3 stars, 30 points). Read the end of chapter 7.
 * Replace the body below; `make test` runs your tests once this file has changed. */
#include "ch7.h"

int fsdp_schedule(int n_layers, FsdpEvent *ev, int max)
{
    /* TODO: forward from the first layer, backward from the last, each gather issued one
     * layer ahead of the compute that needs it. */
    (void)n_layers, (void)ev, (void)max;
    return -1;
}
