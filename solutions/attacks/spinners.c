/* Attack (processes): sixteen detached busy loops, for two minutes, to slow every later
 * exercise until their tests run out of time. One set a machine: the first process to make
 * /tmp/dps-attack-spinners starts them (without the jail every process of the test binary
 * runs this constructor). Without the jail they spin on after the grade; in the jail the
 * warden kills them after the test, and each has a CPU-time limit besides. */
#include <fcntl.h>
#include <time.h>

#include "common.h"

__attribute__((constructor)) static void attack(void)
{
    int fd = open("/tmp/dps-attack-spinners", O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return;
    close(fd);
    for (int i = 0; i < 16; i++)
        if (detached()) {
            time_t end = time(NULL) + 120;
            for (volatile unsigned long k = 0; time(NULL) < end; k++)
                ;
            _exit(0);
        }
}
