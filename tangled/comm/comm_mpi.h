/**
 * @file comm_mpi.h
 * @brief The MPI transport: the Comm interface over MPI_COMM_WORLD (chapter 6).
 */
#ifndef DPS_COMM_MPI_H
#define DPS_COMM_MPI_H

#include <stdbool.h>

#include "comm.h"

/**
 * Whether MPI can be used: this build has the MPI backend (mpicc was found and NO_MPI=1 was
 * not given), and the backend loads. The first call loads it.
 */
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
/** Seconds a rank waits for a peer on its host before it gives up (chapter 9; default 60). */
void comm_mpi_timeout(double seconds);

#endif
