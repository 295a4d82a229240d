/**
 * @file trace.c
 * @brief Timelines in Chrome's trace event format (appendix A).
 */
#line 2489 "chapters/A1-support.nw"
#include "trace.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

#line 2509 "chapters/A1-support.nw"
/** One span of a lane. */
typedef struct TraceEvent {
    double t0;     /**< its start, in seconds of now_seconds() */
    double t1;     /**< its end */
    int lane;      /**< a TraceLane */
    char name[48]; /**< "backward 3", "all-reduce bucket 1" */
} TraceEvent;

static struct {
    TraceEvent *ev; /* TRACE_CAPACITY slots, or NULL when not recording */
    size_t n;       /* slots claimed, possibly more than TRACE_CAPACITY */
    int rank;       /* the process's rank: Chrome's pid */
} trace;

#line 2525 "chapters/A1-support.nw"
void trace_start(int rank)
{
    free(trace.ev);
    trace.ev = xcalloc(TRACE_CAPACITY, sizeof *trace.ev);
    trace.n = 0;
    trace.rank = rank;
}

bool trace_on(void)
{
    return trace.ev != NULL;
}

void trace_span(int lane, double t0, double t1, const char *fmt, ...)
{
    if (!trace.ev)
        return;
    size_t i = __atomic_fetch_add(&trace.n, 1, __ATOMIC_RELAXED);
    if (i >= TRACE_CAPACITY)
        return;
    TraceEvent *e = &trace.ev[i];
    e->t0 = t0, e->t1 = t1, e->lane = lane;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->name, sizeof e->name, fmt, ap);
    va_end(ap);
}

#line 2570 "chapters/A1-support.nw"
int trace_write(const char *path, char *err)
{
    size_t n = trace.n < TRACE_CAPACITY ? trace.n : TRACE_CAPACITY, used = 0;
    if (!trace.ev || n == 0)
        return 0;
    size_t len = 512 + n * 160;
    char *text = xcalloc(len, 1);
#line 2594 "chapters/A1-support.nw"
    static const char *lanes[TRACE_LANES] = {"training", "communication", "waits"};
    used += (size_t)snprintf(text + used, len - used,
                             "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,"
                             "\"args\":{\"name\":\"rank %d\"}},\n",
                             trace.rank, trace.rank);
    for (int l = 0; l < TRACE_LANES; l++)
        used += (size_t)snprintf(text + used, len - used,
                                 "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                                 "\"args\":{\"name\":\"%s\"}},\n",
                                 trace.rank, l, lanes[l]);
#line 2578 "chapters/A1-support.nw"
    for (size_t i = 0; i < n; i++) {
        const TraceEvent *e = &trace.ev[i];
        used +=
            (size_t)snprintf(text + used, len - used,
                             "{\"name\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
                             "\"pid\":%d,\"tid\":%d},\n",
                             e->name, 1e6 * e->t0, 1e6 * (e->t1 - e->t0), trace.rank, e->lane);
    }
    if (trace.n > TRACE_CAPACITY)
        fprintf(stderr, "trace: rank %d recorded %zu events and kept the first %zu\n",
                trace.rank, trace.n, (size_t)TRACE_CAPACITY);
#line 2610 "chapters/A1-support.nw"
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    ssize_t wrote = fd < 0 ? -1 : write(fd, text, used);
    int rc = fd >= 0 && wrote == (ssize_t)used && close(fd) == 0 ? 0 : -1;
    if (rc && fd >= 0 && wrote != (ssize_t)used)
        close(fd);
    free(text);
    free(trace.ev);
    trace.ev = NULL;
    return rc ? error_set(err, "--trace %s: cannot append the events of rank %d", path,
                          trace.rank)
              : 0;
#line 2590 "chapters/A1-support.nw"
}

#line 2629 "chapters/A1-support.nw"
int trace_create(const char *path, char *err)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs("[\n", f) == EOF || fclose(f) != 0)
        return error_set(err, "--trace %s: cannot create the file", path);
    return 0;
}

int trace_close(const char *path, char *err)
{
    FILE *f = fopen(path, "a");
    if (!f ||
        fprintf(f,
                "{\"name\":\"end of run\",\"ph\":\"i\",\"s\":\"g\",\"ts\":%.3f,"
                "\"pid\":0,\"tid\":0}\n]\n",
                1e6 * now_seconds()) < 0 ||
        fclose(f) != 0)
        return error_set(err, "--trace %s: cannot close the array", path);
#line 2644 "chapters/A1-support.nw"
    return 0;
}
