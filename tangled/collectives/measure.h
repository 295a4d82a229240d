/**
 * @file measure.h
 * @brief What the measuring programs share: a checked, timed ping-pong of one size
 *        (chapter 2) and the collectives under test (chapters 4-6).
 */
#ifndef DPS_MEASURE_H
#define DPS_MEASURE_H

#include <stdbool.h>
#include <stddef.h>

#include "comm.h"

/** How one size is measured. */
typedef struct Timing {
    int warmup; /**< untimed runs first */
    int iters;  /**< timed runs: the median is kept */
    bool check; /**< check the result before timing */
} Timing;

/** Times of one size, as rank 0 measured them. */
typedef struct PingRow {
    double oneway; /**< seconds: half the median round trip */
    double both;   /**< seconds: the median sendrecv */
    long wrong;    /**< bytes that came back wrong */
} PingRow;

/**
 * Ranks 0 and 1 of @p c: check and time @p size bytes between them, from @p sbuf into
 * @p rbuf (device buffers; @p host a host buffer of @p size, @p times room for
 * tm->iters). Rank 0's figures in *row. 0, or -1 with @p err.
 */
int pingpong_size(Comm *c, const Timing *tm, size_t size, unsigned char *host, void *sbuf,
                  void *rbuf, double *times, PingRow *row, char *err);
/**
 * One collective: fill, run, count wrong elements; busbw = algbw x bus x (N-1)/N, or algbw
 * when bus is 0 (a copy on each rank, no traffic between them).
 */
typedef struct Op {
    const char *name; /**< as --op spells it */
    int bus;          /**< 1: reduce-scatter, all-gather; 2: all-reduce; 0: a local copy */
    bool native;      /**< it is the transport's own all-reduce (MPI's; chapter 6) */
    bool nccl;        /**< it runs over NCCL's communicator (chapter 6) */
    /** Fill rank @p r's host buffer of @p count elements of @p size ranks. */
    void (*fill)(int r, int size, float *x, size_t count);
    /** Run the collective on device buffer @p buf. */
    int (*run)(Comm *c, float *buf, size_t count, float *scratch, char *err);
    /** Count the elements of rank @p r's result @p x that are wrong. */
    long (*wrong)(int r, int size, const float *x, size_t count);
} Op;

/** The row of --op @p name, or NULL. */
const Op *op_find(const char *name);
/** Every row's name, joined by "|": --op's choices. */
const char *op_names(void);
/**
 * Check and time @p count elements of @p op on @p c (device buffers @p buf and @p scratch,
 * host buffer @p host, @p times room for tm->iters): the median seconds in *t, this rank's
 * wrong elements in *wrong. 0, or -1 with @p err.
 */
int op_measure(Comm *c, const Timing *tm, const Op *op, size_t count, float *host, float *buf,
               float *scratch, double *times, double *t, long *wrong, char *err);

#endif
