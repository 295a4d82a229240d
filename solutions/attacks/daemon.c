/* Attack (processes): a daemon. The constructor leaves a detached process behind that wakes
 * every 100 ms for ten minutes, outliving its test and the grade. Without the jail it is
 * still running when run_autograder returns; in the jail the warden kills every process of
 * the jail's user after each test. */
#include "common.h"

__attribute__((constructor)) static void attack(void)
{
    if (!detached())
        return;
    for (int i = 0; i < 6000; i++)
        usleep(100000);
    _exit(0);
}
