/**
 * @file report.h
 * @brief Progress bar, per-epoch lines, CSV log and time breakdown.
 */
#ifndef DPS_REPORT_H
#define DPS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

/** Where IEEE half would put a gradient's entries, as they are and times 2^16 (ch. 10). */
typedef struct HalfCensus {
    bool measured;       /**< false: no census (no log, or a strategy that shards) */
    double absmax;       /**< the largest magnitude */
    double already_zero; /**< fraction of the entries that are 0 already */
    double lost[2];      /**< fraction half rounds to 0: as they are, and times 2^16 */
    double subnormal[2]; /**< fraction half holds as subnormals: likewise */
} HalfCensus;
/** Count g[0..n) into @p c (n > 0). */
void half_census(const float *g, size_t n, HalfCensus *c);

/** Figures of one epoch, as printed and as logged. */
typedef struct EpochStats {
    int epoch;            /**< 1-based */
    int epochs;           /**< of the run */
    double loss;          /**< mean training loss over the epoch */
    double train_acc;     /**< fraction of training samples classified right during the epoch */
    double test_acc;      /**< fraction of the test set classified right after the epoch */
    double seconds;       /**< training time of the epoch (evaluation excluded) */
    double samples_per_s; /**< global training samples per second */
    double step_ms;       /**< mean time of one step */
    size_t state_bytes;   /**< rank 0's parameters, gradients and optimizer state (ch. 7) */
    HalfCensus half;      /**< where half would put the last gradient's entries (ch. 10) */
} EpochStats;

/** Most phases a run can time. */
#define MAX_PHASES 12

/** Seconds spent in named phases ("compute", "update", ...). */
typedef struct Timers {
    int n;                        /**< phases in use */
    const char *name[MAX_PHASES]; /**< their names, in order of first use */
    double seconds[MAX_PHASES];   /**< their totals */
} Timers;

/** Add @p seconds to the phase called @p name (a string literal), creating it. */
void timers_add(Timers *t, const char *name, double seconds);
/** Seconds recorded under @p name, 0 if none. */
double timers_get(const Timers *t, const char *name);
/** Print "time: a 1.20 s (60.0%) | b ..." on one line. */
void report_breakdown(FILE *f, const Timers *t);

/** A progress bar for one epoch; silent unless the stream is a terminal. */
typedef struct Progress {
    FILE *f;      /**< where to draw */
    bool active;  /**< a terminal, and not quiet */
    int epoch;    /**< the epoch drawn, 1-based */
    int epochs;   /**< epochs in the run */
    long total;   /**< steps in the epoch */
    double start; /**< when the epoch began (now_seconds) */
    double last;  /**< when the bar was last drawn */
} Progress;

/** Start a bar for @p total steps of epoch @p epoch of @p epochs. */
void progress_begin(Progress *p, FILE *f, bool quiet, int epoch, int epochs, long total);
/** Redraw the bar after @p done steps (at most ten times a second). */
void progress_update(Progress *p, long done, long samples_per_step);
/** Erase the bar, leaving the line for the epoch's figures. */
void progress_end(Progress *p);

/** Print the epoch's line. */
void report_epoch(FILE *f, const EpochStats *e);
/** Write the CSV header row. */
void report_csv_header(FILE *f);
/** Write the epoch's CSV row and flush it. */
void report_csv_row(FILE *f, const EpochStats *e);
/** Write @p v with thousands separators ("20,000") into @p buf (at least 32 bytes). */
const char *format_count(char *buf, long long v);
/** Write a byte count with a binary unit ("8 B", "4 KiB", "256 MiB") into @p buf (32 bytes). */
const char *format_bytes(char *buf, size_t bytes);
/** The median of @p v[0..n) (n > 0); sorts @p v in place. The benchmarks report it. */
double median(double *v, int n);

#endif
