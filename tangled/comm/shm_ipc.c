/**
 * @file shm_ipc.c
 * @brief The shared-memory transport on a GPU: its rings and windows in GPU memory, opened
 *        through CUDA IPC handles (chapters 2, 8).
 */
#line 2684 "chapters/02-shm.nw"
#include "shm_internal.h"

#include "util.h"

#line 2330 "chapters/02-shm.nw"
/** After a failed opening: close the mappings of the peers' rings, and free this rank's own
 * unless @p peers_may_map them (the rank came to the barrier); those are left to the process's
 * end, which the failure brings. */
static void drop_device_rings(ShmComm *c, bool peers_may_map)
{
    const Device *dev = c->comm.dev;
    for (int r = 0; r < c->w->size; r++) {
        if (c->dev_out[r])
            dev->ipc_close(c->dev_out[r]);
        if (c->dev_in[r] && !peers_may_map)
            dev->release(c->dev_in[r]);
        c->dev_out[r] = c->dev_in[r] = NULL;
    }
}

#line 2287 "chapters/02-shm.nw"
int shm_open_device_rings(ShmComm *c, char *err)
{
    ShmWorld *w = c->w;
    const Device *dev = c->comm.dev;
    int me = c->comm.rank;
    if (!dev->ipc_export || !dev->ipc_open)
        return error_set(err, "shm: device %s cannot share memory between processes",
                         dev->name);
    for (int src = 0; src < w->size; src++)
        if (src != me) {
            if (!(c->dev_in[src] = dev->alloc(w->dev_bytes)))
                return drop_device_rings(c, false),
                       error_set(err,
                                 "shm: rank %d: no device memory for the ring from "
                                 "rank %d (%zu bytes)",
                                 me, src, w->dev_bytes);
#line 2301 "chapters/02-shm.nw"
            if (dev->ipc_export(c->dev_in[src], shm_ipc_slot(w, src, me), err))
                return drop_device_rings(c, false), -1;
        }
    if (shm_barrier(&c->comm, err))
        return drop_device_rings(c, true), -1;
    for (int dst = 0; dst < w->size; dst++)
        if (dst != me && !(c->dev_out[dst] = dev->ipc_open(shm_ipc_slot(w, me, dst), err)))
            return drop_device_rings(c, true), -1;
    return 0;
}

#line 293 "chapters/08-direct.nw"
/** Allocate this rank's next window on its device, export it, and open every peer's. */
int shm_open_device_windows(ShmComm *c, char *err)
{
    const Device *dev = c->comm.dev;
    int me = c->comm.rank, k = c->dev_windows;
    unsigned char **win = c->dev_window[k];
    if (k > 0 && shm_barrier(&c->comm, err)) /* every peer has read my last handle */
        return -1;
    if (!(win[me] = dev->alloc(c->dev_window_bytes[k])))
        return error_set(err, "shm: rank %d: no device memory for its window %d (%zu bytes)",
                         me, k, c->dev_window_bytes[k]);
    if (dev->ipc_export(win[me], shm_ipc_slot(c->w, me, me), err))
        return dev->release(win[me]), win[me] = NULL, -1;
    c->dev_windows = k + 1; /* closing gives back what is open of it */
    if (shm_barrier(&c->comm, err))
        return -1;
    for (int q = 0; q < c->w->size; q++)
        if (q != me && !(win[q] = dev->ipc_open(shm_ipc_slot(c->w, q, q), err)))
            return -1;
    return 0;
}
