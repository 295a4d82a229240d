/* Attack (processes and files): fill /tmp and /dev/shm, and leave the files there, so that
 * whatever writes there next (the compiler, the grader's own files) finds no room. Without
 * the jail the files stay after the grade; in the jail each file is limited to 64 MiB and the
 * warden removes every file of the jail's user after the test. */
#include <fcntl.h>

#include "common.h"

static void fill(const char *dir)
{
    static char block[1 << 16];
    memset(block, 'x', sizeof block);
    for (int i = 0; i < 100000; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/dps-attack-fill-%d-%d", dir, (int)getpid(), i);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0)
            return;
        signal(SIGXFSZ, SIG_IGN);
        long n = 0;
        while (write(fd, block, sizeof block) == (ssize_t)sizeof block)
            n++;
        close(fd);
        if (n == 0)
            return; /* full */
    }
}

__attribute__((constructor)) static void attack(void)
{
    fill("/tmp");
    fill("/dev/shm");
}
