/**
 * @file comm_shm.c
 * @brief The shared-memory transport: a rank's communicator opened and closed, and the
 *        transport's row (chapters 2, 8).
 */
#line 2703 "chapters/02-shm.nw"
#include "shm_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "transport.h"
#include "util.h"

#line 2356 "chapters/02-shm.nw"
static void shm_close(Comm *comm)
{
    ShmComm *c = (ShmComm *)comm;
    char err[ERR_LEN];
    if (shm_on_device(c)) {
        bool met = shm_barrier(comm, err) == 0;
        for (int r = 0; r < c->w->size; r++)
            if (c->dev_out[r])
                comm->dev->ipc_close(c->dev_out[r]);
#line 354 "chapters/08-direct.nw"
        for (int k = 0; k < c->dev_windows; k++)
            for (int r = 0; r < c->w->size; r++)
                if (c->dev_window[k][r] && r != c->comm.rank)
                    comm->dev->ipc_close(c->dev_window[k][r]);
#line 2366 "chapters/02-shm.nw"
        if (met && shm_barrier(comm, err) == 0) /* no peer maps this rank's memory any more */
#line 2384 "chapters/02-shm.nw"
        {
            for (int r = 0; r < c->w->size; r++)
                if (c->dev_in[r])
                    comm->dev->release(c->dev_in[r]);
#line 361 "chapters/08-direct.nw"
            for (int k = 0; k < c->dev_windows; k++)
                if (c->dev_window[k][c->comm.rank])
                    comm->dev->release(c->dev_window[k][c->comm.rank]);
#line 2389 "chapters/02-shm.nw"
        } else
            fprintf(stderr,
                    "shm: rank %d: closing: %s; its GPU memory is kept until the "
                    "process ends, since a peer may still map it\n",
                    comm->rank, err);
#line 2372 "chapters/02-shm.nw"
    }
    free(c);
}

#line 2403 "chapters/02-shm.nw"
Comm *comm_shm_open(ShmWorld *w, int rank, const Device *dev, char *err)
{
    if (rank < 0 || rank >= w->size) {
        error_set(err, "shm: rank %d of a world of %d", rank, w->size);
        return NULL;
    }
    ShmComm *c = xcalloc(1, sizeof *c);
    c->comm = (Comm){.name = "shm",
                     .rank = rank,
                     .size = w->size,
                     .dev = dev,
                     .send = shm_send,
                     .recv = shm_recv,
                     .sendrecv = shm_sendrecv,
                     .sendrecv2 = shm_sendrecv2,
                     .barrier = shm_barrier,
                     .close = shm_close,
                     .state = c};
#line 2415 "chapters/02-shm.nw"
    c->w = w;
    long cores = cores_available();
    c->spin = w->size <= cores ? 20000 : 0;
#line 486 "chapters/08-direct.nw"
    if ((dev->kind == DEVICE_CPU && w->window) ||
        (dev->kind != DEVICE_CPU && dev->ipc_export && dev->ipc_open && dev->ipc_close)) {
        c->comm.alloc_shared = shm_alloc_shared;
        c->comm.peer_buffer = shm_peer_buffer;
        c->comm.progress = shm_progress;
        c->comm.advance = shm_advance;
        c->comm.wait_for = shm_wait_for;
    }
#line 2419 "chapters/02-shm.nw"
    if (dev->kind != DEVICE_CPU && shm_open_device_rings(c, err)) {
        free(c);
        return NULL;
    }
    return &c->comm;
}

#line 2442 "chapters/02-shm.nw"
Comm *comm_shm_host(Comm *c, char *err)
{
    if (c->dev->kind == DEVICE_CPU)
        return c;
    return comm_shm_open(((ShmComm *)c)->w, c->rank, device_cpu(), err);
}

#line 3150 "chapters/02-shm.nw"
const TransportDef transport_shm = {
    .name = "shm",
    .title = "fork --n_gpus ranks on this machine, over shared memory",
    .open = comm_shm_open,
    .host = comm_shm_host,
};
