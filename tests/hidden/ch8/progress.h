/* What the hidden tests of chapter 8 check beyond the public ones: the progress a collective
 * leaves behind (not in the students' handout). */
#ifndef DPS_TESTS_HIDDEN_PROGRESS_H
#define DPS_TESTS_HIDDEN_PROGRESS_H

#include <stdint.h>

#include "comm.h"
#include "util.h"

/* A collective of call `call` moved rank's progress counter from before to base + 2, as the
 * contract says (0), or not (-1 with err). */
static inline int win_progress_ok(Comm *c, uint32_t before, int call, char *err)
{
    if (c->progress(c) == before + 2)
        return 0;
    return error_set(err,
                     "call %d: rank %d's progress went from %u to %u; a call ends at "
                     "base + 2",
                     call, c->rank, before, c->progress(c));
}

#endif
