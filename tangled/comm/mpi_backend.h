/**
 * @file mpi_backend.h
 * @brief The MPI transport's calls, in a table that libdps_mpi.so fills (chapter 6).
 */
#ifndef DPS_MPI_BACKEND_H
#define DPS_MPI_BACKEND_H

#include "comm.h"

/** The shared library that holds the MPI transport, loaded on first use. */
#define DPS_MPI_BACKEND "libdps_mpi.so"
/** Its entry point: a function returning the table. */
#define DPS_MPI_ENTRY "mpi_backend_ops"

/** The MPI transport, as comm_mpi.h's calls reach it. */
typedef struct MpiOps {
    /** Start MPI (once per process); this process's rank and the world's size. */
    int (*init)(int *rank, int *size, char *err);
    /** The communicator over MPI_COMM_WORLD; a rank waits @p wait s for a host's peer. */
    Comm *(*open)(const Device *dev, double wait, char *err);
    /** End the whole job with exit status @p status. */
    void (*abort)(int status);
    /** Finalise MPI. */
    void (*finalize)(void);
} MpiOps;

/** The type of DPS_MPI_ENTRY. */
typedef const MpiOps *(*MpiOpsFn)(void);

#endif
