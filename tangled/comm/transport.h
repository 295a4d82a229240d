/**
 * @file transport.h
 * @brief The transport table: how a run's ranks come to be and reach each other
 *        (chapters 2 and 6).
 */
#ifndef DPS_TRANSPORT_H
#define DPS_TRANSPORT_H

#include <stddef.h>

#include "comm.h"

/** A run's shared world, when its ranks are forked (comm_shm.h). */
typedef struct ShmWorld ShmWorld;
/** A transport: one row of the table, as --transport names it. */
typedef struct TransportDef {
    const char *name;  /**< --transport NAME */
    const char *title; /**< what it does, for --help */
    /**
     * The ranks were started by another program (mpirun): join them, learning this
     * process's rank and their number. NULL: the run forks its ranks over a shared world.
     */
    int (*join)(int *rank, int *size, char *err);
    /** With join: leave the job cleanly before a communicator is open (a refused run). */
    void (*leave)(void);
    /** With join: end the whole job with exit status @p status after a rank's failure. */
    void (*abort)(int status);
    /** Rank @p rank's communicator for buffers on @p dev, over @p w when forked. */
    Comm *(*open)(ShmWorld *w, int rank, const Device *dev, char *err);
    /** The communicator for host messages beside @p c, or NULL: @p c carries them. */
    Comm *(*host)(Comm *c, char *err);
} TransportDef;
/** Every row, in the order --help lists them; NULL-terminated. */
extern const TransportDef *const transport_table[];
/** The row named @p name, or NULL. */
const TransportDef *transport_find(const char *name);
/** The rows' names joined by @p sep into @p buf (@p len bytes). */
void transport_names(char *buf, size_t len, const char *sep);
/**
 * Open rank @p rank's communicators with @p t (over @p w when the ranks are forked):
 * *host carries host memory beside *c (c itself on the CPU). 0, or -1 with @p err.
 */
int comm_open_rank(const TransportDef *t, ShmWorld *w, int rank, const Device *dev, Comm **c,
                   Comm **host, char *err);
/** Close what comm_open_rank() opened (collective). */
void comm_close_rank(Comm *c, Comm *host);
/** Fork the ranks on this machine, over shared memory (chapter 2). */
extern const TransportDef transport_shm;
/** One rank per process of mpirun (chapter 6). */
extern const TransportDef transport_mpi;

#endif
