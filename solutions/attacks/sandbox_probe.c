/* Not an attack: a probe of what the student's code can see, graded in each mode to show
 * that the modes differ as the guide says. Its gemm_blocked answers 7000 plus
 *   100  when /proc lists more than 8 processes (the machine's, not its namespace's few),
 *    10  when /etc/passwd can be read (the machine's files, not the sandbox's few),
 *     1  when it runs in the machine's first user namespace (/proc/self/uid_map maps all);
 * so 7000 in the sandbox, 7111 in the jail alone (and with the jail off), quoted in the
 * visible failure messages of chapter 1's first exercise. */
#include <dirent.h>

#include "common.h"

__attribute__((constructor)) static void probe(void)
{
    int procs = 0, sees = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)))
        procs += e->d_name[0] >= '1' && e->d_name[0] <= '9';
    if (d)
        closedir(d);
    sees += procs > 8 ? 100 : 0;
    FILE *f = fopen("/etc/passwd", "r");
    if (f)
        sees += 10, fclose(f);
    unsigned long inside = 1, outside = 1, count = 0;
    f = fopen("/proc/self/uid_map", "r");
    if (f && fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 &&
        outside == 0 && count == 4294967295UL)
        sees += 1;
    if (f)
        fclose(f);
    attack_mark = 7000 + sees;
}
