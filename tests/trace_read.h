/* Reading a --trace file back (appendix A): the book writes one event per line, so a line
 * reader is enough; the tests need the complete events ("ph":"X") and the brackets. */
#ifndef DPS_TEST_TRACE_READ_H
#define DPS_TEST_TRACE_READ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* One complete event. */
typedef struct Span {
    char name[48];
    double ts, dur; /* microseconds */
    int pid, tid;
} Span;

/* The spans of the trace at @p path, in file order, into *out (malloc'd); returns how many.
 * Fails the test unless the file is a JSON array with one object per line between "[" and
 * "]" and every "X" event has a name, a start, a length, a process and a lane. */
static inline int trace_read(const char *path, Span **out)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "no trace at %s", path);
    char line[512];
    int n = 0, cap = 1024, lines = 0;
    bool open = false, closed = false;
    Span *s = malloc((size_t)cap * sizeof *s);
    while (fgets(line, sizeof line, f)) {
        lines++;
        if (lines == 1) {
            open = strcmp(line, "[\n") == 0;
            continue;
        }
        if (strcmp(line, "]\n") == 0) {
            closed = true;
            continue;
        }
        cr_assert(!closed, "%s: line %d after the closing bracket", path, lines);
        cr_assert(line[0] == '{', "%s: line %d is not an object: %s", path, lines, line);
        if (!strstr(line, "\"ph\":\"X\""))
            continue;
        if (n == cap)
            s = realloc(s, (size_t)(cap *= 2) * sizeof *s);
        Span *e = &s[n];
        const char *ts = strstr(line, "\"ts\":"), *dur = strstr(line, "\"dur\":"),
                   *pid = strstr(line, "\"pid\":"), *tid = strstr(line, "\"tid\":");
        cr_assert(sscanf(line, "{\"name\":\"%47[^\"]\"", e->name) == 1 && ts && dur && pid &&
                      tid && sscanf(ts, "\"ts\":%lf", &e->ts) == 1 &&
                      sscanf(dur, "\"dur\":%lf", &e->dur) == 1 &&
                      sscanf(pid, "\"pid\":%d", &e->pid) == 1 &&
                      sscanf(tid, "\"tid\":%d", &e->tid) == 1,
                  "%s: line %d is not a complete event: %s", path, lines, line);
        cr_assert(e->dur >= 0, "%s: line %d lasts %g us", path, lines, e->dur);
        n++;
    }
    fclose(f);
    cr_assert(open && closed, "%s: not a closed JSON array (%d lines)", path, lines);
    *out = s;
    return n;
}

/* How many spans of process @p pid on lane @p tid have a name starting with @p prefix. */
static inline int trace_count(const Span *s, int n, int pid, int tid, const char *prefix)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += s[i].pid == pid && s[i].tid == tid && strncmp(s[i].name, prefix, strlen(prefix)) == 0;
    return k;
}

#endif
