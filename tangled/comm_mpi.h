/**
 * @file comm_mpi.h
 * @brief The MPI transport: the Comm interface over MPI_COMM_WORLD (chapter 6).
 */
#ifndef DPS_COMM_MPI_H
#define DPS_COMM_MPI_H

#include <stdbool.h>

#include "comm.h"
#include "launch.h"
#include "options.h"

/** Whether this build has MPI (mpicc was found and NO_MPI=1 was not given). */
bool comm_mpi_available(void);
/**
 * Initialise MPI (once per process) and return this process's rank and the world's size.
 * Returns 0, or -1 with @p err (for instance in a build without MPI).
 */
int comm_mpi_init(int *rank, int *size, char *err);
/**
 * The communicator over MPI_COMM_WORLD for buffers on @p dev (the CPU only). Its close()
 * finalises MPI. Returns NULL with @p err.
 */
Comm *comm_mpi_open(const Device *dev, char *err);
/** End the whole MPI job with exit status @p status (after a rank's failure). */
void comm_mpi_abort(int status);
/** Finalise MPI without a communicator (every rank, before a clean early exit). */
void comm_mpi_finalize(void);

/**
 * For a program under mpirun with --transport mpi: initialise MPI, refuse an explicit
 * --n_gpus that differs from the world's size, and set o->n_gpus to it. Returns this
 * process's rank, or -1 (the reason printed, MPI finalised) when the program must exit
 * with EXIT_USAGE.
 */
int comm_mpi_start(Options *o);
/** Run @p fn as rank @p rank of @p size; if it fails, print why and end the whole job. */
void comm_mpi_run(RankMain fn, void *arg, int rank, int size);
/**
 * Open rank @p rank's communicators: over the shared world @p w, or over MPI when @p w is
 * NULL. *host carries host memory beside *c (c itself on the CPU). 0, or -1 with @p err.
 */
int comm_open_rank(ShmWorld *w, int rank, const Device *dev, Comm **c, Comm **host, char *err);
/** Close what comm_open_rank() opened (collective). */
void comm_close_rank(Comm *c, Comm *host);

#endif
