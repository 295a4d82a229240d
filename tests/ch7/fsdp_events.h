/* The harness of the tests of exercise 7.3 (fsdp_schedule), public and hidden: an event
 * written as the book writes it, and a guard event that the schedule must not write
 * over. */
#ifndef DPS_TEST_FSDP_EVENTS_H
#define DPS_TEST_FSDP_EVENTS_H

#include <stdio.h>

#include "ch7.h"

/* An event no schedule holds, in the places it must leave alone. */
#define GUARD ((FsdpEvent){(FsdpOp)77, -7})

static inline int is_guard(FsdpEvent e)
{
    return (int)e.op == 77 && e.layer == -7;
}

/* ev[0..n) = GUARD. */
static inline void fill_guards(FsdpEvent *ev, int n)
{
    for (int i = 0; i < n; i++)
        ev[i] = GUARD;
}

/* An event as the book writes it: G0 for FSDP_GATHER of layer 0, and so on. */
static inline const char *event_text(FsdpEvent e, char *buf, size_t cap)
{
    static const char *name[] = {"G", "W", "F", "B", "S", "Fr"};
    if ((int)e.op >= 0 && (int)e.op <= FSDP_FREE)
        snprintf(buf, cap, "%s%d", name[e.op], e.layer);
    else
        snprintf(buf, cap, "op%d/%d", (int)e.op, e.layer);
    return buf;
}

#endif
