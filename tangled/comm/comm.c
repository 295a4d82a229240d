/**
 * @file comm.c
 * @brief Choosing a rank's transport: the shared world, or MPI (chapters 2 and 6).
 */
#line 2673 "chapters/02-shm.nw"
#include "comm.h"

#include "comm_mpi.h"

int comm_open_rank(ShmWorld *w, int rank, const Device *dev, Comm **c, Comm **host, char *err)
{
#line 2680 "chapters/02-shm.nw"
    *host = NULL;
    *c = w ? comm_shm_open(w, rank, dev, err) : comm_mpi_open(dev, err);
    if (*c)
        *host = w ? comm_shm_host(*c, err) : *c;
    return *host ? 0 : -1; /* on failure the rank ends: closing is collective, so don't */
}

void comm_close_rank(Comm *c, Comm *host)
{
    if (host != c)
        host->close(host);
    c->close(c);
}
