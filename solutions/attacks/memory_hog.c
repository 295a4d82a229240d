/* Attack (processes): a memory hog. A detached process takes 1.5 GiB, touches every page,
 * and keeps it, so that the later exercises' tests run short of memory. Without the jail it
 * is still holding it after the grade; in the jail it is first in line for the
 * out-of-memory killer, limited in its own memory, and killed by the warden after the test. */
#include "common.h"

__attribute__((constructor)) static void attack(void)
{
    if (!detached())
        return;
    size_t want = (size_t)3 << 29, got = 0;
    for (size_t step = (size_t)64 << 20; got < want; got += step) {
        char *p = malloc(step);
        if (!p)
            break;
        memset(p, 1, step);
    }
    for (;;)
        pause();
}
