/* Attack 1 (make autograder-check): an empty relu_bias_backward, and a constructor that
 * writes "passed" for whichever test is running. It finds the test runner's --tap= file and
 * --filter= test in its own command line or its parent's, writes "ok - suite::name" there
 * and ends the process before any test runs. Without the jail it takes full marks; in the
 * jail it runs in the host, as nobody, where neither the file nor the verdict is in reach. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ch1.h"

void relu_bias_backward(float *dy, const float *y, float *dbias, int rows, int cols)
{
    (void)dy, (void)y, (void)dbias, (void)rows, (void)cols;
}

/* Forge the verdict of the process `pid` describes in its command line; 0 when written. */
static int forge(const char *pid)
{
    char path[64], args[4096], tap[1024] = "", test[512] = "";
    snprintf(path, sizeof path, "/proc/%s/cmdline", pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(args, 1, sizeof args - 1, f) : 0;
    if (f)
        fclose(f);
    for (size_t i = 0; i < n; i += strlen(args + i) + 1) {
        if (strncmp(args + i, "--tap=", 6) == 0)
            snprintf(tap, sizeof tap, "%s", args + i + 6);
        if (strncmp(args + i, "--filter", 8) == 0 && i + strlen(args + i) + 1 < n)
            snprintf(test, sizeof test, "%s", args + i + strlen(args + i) + 1);
    }
    char *slash = strchr(test, '/');
    FILE *out = *tap && slash ? fopen(tap, "w") : NULL;
    if (!out)
        return -1;
    *slash = 0;
    fprintf(out, "TAP version 13\n1..1\nok - %s::%s\n", test, slash + 1);
    return fclose(out);
}

__attribute__((constructor)) static void attack(void)
{
    char parent[32];
    snprintf(parent, sizeof parent, "%d", (int)getppid());
    if (forge("self") == 0 || forge(parent) == 0)
        _exit(0);
}
