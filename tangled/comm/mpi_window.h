/**
 * @file mpi_window.h
 * @brief Windows and progress counters between the MPI processes of one host (chapter 9).
 */
#ifndef DPS_MPI_WINDOW_H
#define DPS_MPI_WINDOW_H

#include "comm.h"

/**
 * Give @p c (the MPI transport's) the windows of chapter 8 among the ranks of its host:
 * MPI-3 shared memory on the host's communicator; a rank waits @p wait seconds for a peer's
 * progress before it gives up. Collective. Where MPI has no shared memory, @p c is left
 * without windows (the collectives then send). 0, or -1 with @p err.
 */
int mpi_windows_open(Comm *c, double wait, char *err);
/** Free the windows of @p c, before MPI is finalised (collective). */
void mpi_windows_close(Comm *c);

#endif
