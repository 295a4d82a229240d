/**
 * @file util.c
 * @brief Error reporting, allocation and the clock.
 */
#line 152 "chapters/A1-support.nw"
#include "util.h"

#line 136 "chapters/A1-support.nw"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#line 185 "chapters/A1-support.nw"
static const char *progname = "dps";

void set_program_name(const char *argv0)
{
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    if (argv0 && *argv0)
        progname = slash ? slash + 1 : argv0;
}

const char *program_name(void)
{
    return progname;
}

#line 216 "chapters/A1-support.nw"
void fatal(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s: ", progname);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(EXIT_RUNTIME);
}

#line 237 "chapters/A1-support.nw"
int error_set(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, ERR_LEN, fmt, ap);
    va_end(ap);
    return -1;
}

#line 262 "chapters/A1-support.nw"
void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        fatal("out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

#line 287 "chapters/A1-support.nw"
double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#line 307 "chapters/A1-support.nw"
int cores_available(void)
{
    cpu_set_t allowed;
    long n = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        n = CPU_COUNT(&allowed);
    if (n < 1)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

#line 348 "chapters/A1-support.nw"
int read_file(const char *path, unsigned char **buf, size_t *len, char *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return error_set(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return error_set(err, "%s: not a regular file", path);
    }
    *len = (size_t)st.st_size;
    *buf = xcalloc(*len + 1, 1);
    size_t got = fread(*buf, 1, *len, f);
    int e = errno;
    fclose(f);
    if (got != *len) {
        free(*buf);
        return error_set(err, "%s: read error after %zu of %zu bytes: %s", path, got, *len,
                         strerror(e));
#line 368 "chapters/A1-support.nw"
    }
    return 0;
}

#line 397 "chapters/A1-support.nw"
__attribute__((weak)) const char *exercises_linked(void)
{
    return NULL;
}

void exercises_banner(const char *prefix)
{
    const char *linked = exercises_linked();
    if (linked)
        printf("%s%s (make EXERCISES=1)\n", prefix, linked);
}
