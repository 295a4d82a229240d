/* Exercise 2.1, reference solution: a sense-reversing barrier on C11 atomics. */
#include <sched.h>

#include "ch2.h"

void sense_barrier_wait(SenseBarrier *b, int *local_sense)
{
    int sense = !*local_sense;
    *local_sense = sense;
    if (atomic_fetch_sub(&b->count, 1) == 1) {
        /* The last to arrive: reset the count for the next round before releasing the
         * others, who may enter it at once. */
        atomic_store(&b->count, b->n);
        atomic_store(&b->sense, sense);
        return;
    }
    while (atomic_load(&b->sense) != sense)
        sched_yield();
}
