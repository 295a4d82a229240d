/**
 * @file param_server.h
 * @brief The parameter server: rank 0 keeps the weights, ranks 1..N-1 compute gradients.
 */
#ifndef DPS_PARAM_SERVER_H
#define DPS_PARAM_SERVER_H

#include "comm.h"
#include "model.h"
#include "train.h"

/** What the server measured, summed over the run. */
typedef struct PsReport {
    double wait;      /**< seconds waiting for gradients */
    double update;    /**< seconds averaging and stepping */
    double send;      /**< seconds sending the weights */
    double bytes_in;  /**< bytes received */
    double bytes_out; /**< bytes sent */
    long steps;       /**< steps served */
} PsReport;

/**
 * Serve the workers (ranks 1..size-1 of @p c) for @p epochs epochs of @p steps steps:
 * each step receive every gradient, average, take an SGD step of @p lr on @p m's weights,
 * send the weights back. @p host carries the small host-side messages (the same
 * communicator on the CPU). Returns 0, or -1 with @p err.
 */
int ps_serve(Comm *c, Comm *host, Model *m, int epochs, long steps, float lr, PsReport *rep,
             char *err);
/**
 * Make @p s the strategy of a worker of @p c (rank >= 1): worker rank-1 of size-1. The
 * strategy's state points at @p c and @p host, which must outlive it.
 */
void ps_worker(Strategy *s, Comm *c, Comm *host, Comm **state);
/** Print the server's line: bytes in and out per step, and where its time went. */
void ps_report(FILE *f, const PsReport *rep);

#endif
