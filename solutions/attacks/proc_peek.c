/* Attack (the rest of the trust model): reach the process that judges. The constructor reads
 * its parent's environment and memory map through /proc and tries to trace it; what it gets
 * it prints, with LEAKED-, into the test's failure message. Without the jail its parent is the
 * test runner, root's, and everything is readable; in the jail its parent is the judge, another
 * user's, and /proc and ptrace refuse. */
#include <sys/ptrace.h>

#include "common.h"

__attribute__((constructor)) static void attack(void)
{
    char path[64], buf[4096], leaked[256] = "";
    snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    if (n > 0)
        snprintf(leaked, sizeof leaked, "%zu bytes of the judge's environment;", n);
    snprintf(path, sizeof path, "/proc/%d/mem", (int)getppid());
    f = fopen(path, "r");
    if (f)
        strcat(leaked, " its memory open;"), fclose(f);
    pid_t judge = getppid();
    if (ptrace(PTRACE_ATTACH, judge, NULL, NULL) == 0) { /* stopped: let it go again */
        int st;
        strcat(leaked, " traced");
        waitpid(judge, &st, __WALL);
        ptrace(PTRACE_DETACH, judge, NULL, NULL);
    }
    if (*leaked) {
        fprintf(stderr, "LEAKED-JUDGE: %s\n", leaked);
        abort();
    }
}
