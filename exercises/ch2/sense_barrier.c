/* Exercise 2.1: a sense-reversing barrier on C11 atomics. */
#include <sched.h>

#include "ch2.h"

void sense_barrier_wait(SenseBarrier *b, int *local_sense)
{
    (void)b;
    (void)local_sense;
    /* Flip your local sense. The last rank to arrive (count reaches 0) resets count to n
     * and publishes the new sense; the others wait until the shared sense equals theirs.
     * Waiting: call sched_yield() while you spin, so a rank that has no core can run. */
}
