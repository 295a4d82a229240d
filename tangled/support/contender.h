/**
 * @file contender.h
 * @brief A contender of a benchmark: a command that prints an nccl-tests table, run as a
 *        child and read back (chapter 6).
 */
#ifndef DPS_CONTENDER_H
#define DPS_CONTENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/** Most rows a table can have. */
#define MAX_ROWS 64
/** Most times a contender can be run, each run a round (chapter 8). */
#define MAX_ROUNDS 9

/** One contender: the command that measures it and the rows it printed. */
typedef struct Contender {
    const char *title;      /**< its heading */
    const char *key;        /**< its CSV columns are KEY_us and KEY_busbw (KEY_bw if !bus) */
    bool bus;               /**< its bandwidth is a bus bandwidth, not bytes/time */
    char *argv[40];         /**< the command */
    bool ran;               /**< it was run */
    char why[96];           /**< why not, or why it failed */
    int rows;               /**< rows read */
    size_t size[MAX_ROWS];  /**< bytes */
    size_t count[MAX_ROWS]; /**< elements */
    double us[MAX_ROWS];    /**< median time */
    double busbw[MAX_ROWS]; /**< GB/s */
    long wrong[MAX_ROWS];   /**< wrong elements */
    int rounds;             /**< runs read (chapter 8) */
    double round_us[MAX_ROUNDS][MAX_ROWS]; /**< each round's time of each row */
    double bw_us[MAX_ROWS];                /**< bandwidth x time: what the bandwidth counts */
} Contender;

/** What contender_at() reads. */
enum ContenderField { CONTENDER_US, CONTENDER_BUSBW, CONTENDER_WRONG };

/**
 * Run @p col's command and read its rows; on failure say why in col->why. Run again, it
 * reads another round, and each row's time becomes the median of its rounds (chapter 8).
 */
void contender_run(Contender *col);
/** @p field of @p col at @p size bytes, or NAN when it has no such row. */
double contender_at(const Contender *col, size_t size, enum ContenderField field);
/** One line describing this machine (CPU, cores, kernel, day), for the CSV files. */
void machine_line(char *buf, size_t len);
/**
 * Print the @p n contenders side by side on stdout, one row per size that col[@p base]
 * measured (or the first contender that measured any): each one's time and bandwidth,
 * the wrong elements of all, and col[base]'s bandwidth as a share of col[vs[j]]'s for the
 * @p n_vs contenders in @p vs; the same as CSV into @p csv (or NULL). Then a line for
 * each contender that did not run or failed. Returns 1 when an element was wrong or a
 * contender failed, else 0.
 */
int contender_table(FILE *csv, const Contender *col, int n, int base, const int *vs, int n_vs);

#endif
