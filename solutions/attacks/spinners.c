/* Attack (processes): sixteen detached busy loops, to slow every later exercise until their
 * tests run out of time. Without the jail they spin on after the grade; in the jail the
 * warden kills them after the test, and each has a CPU-time limit besides. */
#include "common.h"

__attribute__((constructor)) static void attack(void)
{
    for (int i = 0; i < 16; i++)
        if (detached())
            for (volatile unsigned long k = 0;; k++)
                ;
}
