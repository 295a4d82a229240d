/**
 * @file report.c
 * @brief What a training run prints.
 */
#line 2080 "chapters/A1-support.nw"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"
#include "util.h"

#line 2108 "chapters/A1-support.nw"
void timers_add(Timers *t, const char *name, double seconds)
{
#line 2719 "chapters/A1-support.nw"
    if (trace_on()) {
        double end = now_seconds();
        trace_span(LANE_TRAIN, end - seconds, end, "%s", name);
    }
#line 2111 "chapters/A1-support.nw"
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->name[i], name) == 0) {
            t->seconds[i] += seconds;
            return;
        }
    if (t->n == MAX_PHASES)
        fatal("timers: more than %d phases", MAX_PHASES);
    t->name[t->n] = name;
    t->seconds[t->n++] = seconds;
}

double timers_get(const Timers *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->name[i], name) == 0)
            return t->seconds[i];
    return 0;
}

#line 2149 "chapters/A1-support.nw"
void report_breakdown(FILE *f, const Timers *t)
{
    double total = 0;
    for (int i = 0; i < t->n; i++)
        total += t->seconds[i];
    fprintf(f, "time:");
    for (int i = 0; i < t->n; i++)
        fprintf(f, "%s %s %.3f s (%.1f%%)", i ? " |" : "", t->name[i], t->seconds[i],
                total > 0 ? 100.0 * t->seconds[i] / total : 0.0);
    fprintf(f, "\n");
}
#line 2193 "chapters/A1-support.nw"
void progress_begin(Progress *p, FILE *f, bool quiet, int epoch, int epochs, long total)
{
    p->f = f;
    p->active = !quiet && isatty(fileno(f));
    p->epoch = epoch;
    p->epochs = epochs;
    p->total = total;
    p->start = p->last = now_seconds();
}

#line 2218 "chapters/A1-support.nw"
void progress_update(Progress *p, long done, long samples_per_step)
{
    if (!p->active)
        return;
    double now = now_seconds();
    if (now - p->last < 0.1 && done < p->total)
        return;
    p->last = now;
    enum { WIDTH = 30 };
    int fill = p->total ? (int)(WIDTH * done / p->total) : WIDTH;
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[WIDTH] = '\0';
    double rate = now > p->start ? (double)done * samples_per_step / (now - p->start) : 0;
    fprintf(p->f, "\repoch %d/%d [%s] %ld/%ld steps  %.0f samples/s\033[K", p->epoch, p->epochs,
            bar, done, p->total, rate);
    fflush(p->f);
}

#line 2245 "chapters/A1-support.nw"
void progress_end(Progress *p)
{
    if (p->active) {
        fprintf(p->f, "\r\033[K");
        fflush(p->f);
    }
}
#line 2283 "chapters/A1-support.nw"
void report_epoch(FILE *f, const EpochStats *e)
{
    fprintf(f,
            "epoch %*d/%d  loss %.4f  train_acc %6.2f%%  test_acc %6.2f%%  "
            "%.2f s  %.0f samples/s  %.3f ms/step\n",
            e->epochs >= 10 ? 2 : 1, e->epoch, e->epochs, e->loss, 100 * e->train_acc,
            100 * e->test_acc, e->seconds, e->samples_per_s, e->step_ms);
#line 2289 "chapters/A1-support.nw"
    fflush(f);
}

void report_csv_header(FILE *f)
{
    fprintf(f, "epoch,loss,train_acc,test_acc,seconds,samples_per_s,step_ms,state_bytes,"
               "grad_absmax,grad_zero,half_lost,half_subnormal," /* chapter 10's census */
               "half_lost_s16,half_subnormal_s16\n");
    fflush(f);
}

#line 2308 "chapters/A1-support.nw"
void report_csv_row(FILE *f, const EpochStats *e)
{
    fprintf(f, "%d,%.6f,%.6f,%.6f,%.6f,%.1f,%.6f,%zu", e->epoch, e->loss, e->train_acc,
            e->test_acc, e->seconds, e->samples_per_s, e->step_ms, e->state_bytes);
    const HalfCensus *h = &e->half; /* chapter 10: empty cells when not taken */
    if (h->measured)
        fprintf(f, ",%.6g,%.6f,%.6f,%.6f,%.6f,%.6f\n", h->absmax, h->already_zero, h->lost[0],
                h->subnormal[0], h->lost[1], h->subnormal[1]);
    else
        fprintf(f, ",,,,,,\n");
    fflush(f);
}

#line 2333 "chapters/A1-support.nw"
const char *format_count(char *buf, long long v)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%lld", v < 0 ? -v : v), o = 0;
    if (v < 0)
        buf[o++] = '-';
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

#line 2360 "chapters/A1-support.nw"
const char *format_bytes(char *buf, size_t bytes)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = (double)bytes;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, 32, v == (long long)v ? "%.0f %s" : "%.1f %s", v, unit[u]);
    return buf;
}

#line 2394 "chapters/A1-support.nw"
static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#line 684 "chapters/10-compress.nw"
void half_census(const float *g, size_t n, HalfCensus *c)
{
    size_t zeros = 0, lost[2] = {0, 0}, sub[2] = {0, 0};
    float absmax = 0;
    for (size_t i = 0; i < n; i++) {
        float a = fabsf(g[i]);
        absmax = a > absmax ? a : absmax;
        zeros += a == 0;
        for (int k = 0; k < 2 && a > 0; k++) {
            float x = k ? a * 0x1p16f : a;
            lost[k] += x <= 0x1p-25f;
            sub[k] += x > 0x1p-25f && x < 0x1p-14f - 0x1p-25f;
        }
    }
    *c = (HalfCensus){.measured = true, .absmax = absmax, .already_zero = (double)zeros / n};
    for (int k = 0; k < 2; k++) {
        c->lost[k] = (double)lost[k] / n;
        c->subnormal[k] = (double)sub[k] / n;
    }
}
