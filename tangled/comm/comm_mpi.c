/**
 * @file comm_mpi.c
 * @brief The MPI transport's calls: they load libdps_mpi.so on first use (chapter 6).
 */
#line 185 "chapters/06-production.nw"
#include "comm_mpi.h"

#include <stdio.h>
#include <stdlib.h>

#include "mpi_backend.h"
#include "transport.h"
#include "util.h"

#line 247 "chapters/06-production.nw"
/** MPI's table, once it is loaded. */
static const MpiOps *mpi_loaded;

/** MPI's table, loaded the first time; NULL with the reason in @p err when it cannot be. */
static const MpiOps *mpi_ops(char *err)
{
    if (mpi_loaded)
        return mpi_loaded;
#ifdef HAVE_MPI
    char why[ERR_LEN];
    MpiOpsFn ops;
    *(void **)&ops = backend_entry(DPS_MPI_BACKEND, DPS_MPI_ENTRY, why);
    if (ops)
        return mpi_loaded = ops();
    error_set(err, "--transport mpi: MPI could not be loaded (%.400s)", why);
#else
    error_set(err, "--transport mpi: this build has no MPI (install libopenmpi-dev "
                   "openmpi-bin and rebuild, without NO_MPI=1)");
#endif
    return NULL;
}

#line 275 "chapters/06-production.nw"
/** The run's --timeout, until the communicator opens. */
static double mpi_wait = 60;

bool comm_mpi_available(void)
{
    char why[ERR_LEN];
    return mpi_ops(why) != NULL;
}

int comm_mpi_init(int *rank, int *size, char *err)
{
    const MpiOps *mpi = mpi_ops(err);
    if (mpi)
        return mpi->init(rank, size, err);
    *rank = 0;
    *size = 1;
    return -1;
}

Comm *comm_mpi_open(const Device *dev, char *err)
{
    const MpiOps *mpi = mpi_ops(err);
    return mpi ? mpi->open(dev, mpi_wait, err) : NULL;
}

void comm_mpi_timeout(double seconds)
{
    mpi_wait = seconds;
}

#line 310 "chapters/06-production.nw"
void comm_mpi_abort(int status)
{
    if (mpi_loaded)
        mpi_loaded->abort(status);
    exit(status);
}

void comm_mpi_finalize(void)
{
    if (mpi_loaded)
        mpi_loaded->finalize();
}

#line 331 "chapters/06-production.nw"
/** The row's open: MPI's world needs no shared world, and knows the rank. */
static Comm *mpi_open(ShmWorld *w, int rank, const Device *dev, char *err)
{
    (void)w, (void)rank;
    return comm_mpi_open(dev, err);
}

const TransportDef transport_mpi = {
    .name = "mpi",
    .title = "one rank per process of mpirun",
    .join = comm_mpi_init,
    .leave = comm_mpi_finalize,
    .abort = comm_mpi_abort,
    .open = mpi_open,
};
