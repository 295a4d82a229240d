/**
 * @file trace.h
 * @brief Timelines: Chrome trace events of what each rank did, and when (appendix A).
 */
#ifndef DPS_TRACE_H
#define DPS_TRACE_H

#include <stdbool.h>
#include <stddef.h>

/** The lanes of a rank's timeline: Chrome's threads of the rank's process. */
enum TraceLane {
    LANE_TRAIN, /**< the training thread's phases, and each layer's forward and backward */
    LANE_COMM,  /**< the communication thread's collectives (chapters 6 and 7) */
    LANE_WAIT,  /**< the training thread waiting for the communication thread */
    TRACE_LANES
};
/** Most events a rank records; later ones are counted and dropped. */
#define TRACE_CAPACITY ((size_t)1 << 17)

/** Create (or empty) the trace file @p path and open its array. 0, or -1 with @p err. */
int trace_create(const char *path, char *err);
/** Record this process's spans from now on, as rank @p rank's; forget any recorded before. */
void trace_start(int rank);
/** Whether spans are being recorded. */
bool trace_on(void);
/** Record a span from @p t0 to @p t1 (now_seconds()) on @p lane, named by the format. */
__attribute__((format(printf, 4, 5))) void trace_span(int lane, double t0, double t1,
                                                      const char *fmt, ...);
/** Append the spans recorded to @p path in one write, and stop. 0, or -1 with @p err. */
int trace_write(const char *path, char *err);
/** Close the array of @p path, after every rank has written. 0, or -1 with @p err. */
int trace_close(const char *path, char *err);

#endif
