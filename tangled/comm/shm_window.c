/**
 * @file shm_window.c
 * @brief The shared-memory transport: windows of memory a peer can read, and progress
 *        counters (chapter 8).
 */
#line 528 "chapters/08-direct.nw"
#include "shm_internal.h"

#include <stdio.h>
#include <sys/mman.h>

#include "launch.h"
#include "util.h"

#line 156 "chapters/08-direct.nw"
/** The windows this rank has: on the CPU one (or none), on a GPU those opened so far. */
static int windows_of(const ShmComm *c)
{
    return shm_on_device(c) ? c->dev_windows : c->w->window != NULL;
}

/** The first byte of rank @p rank's window @p k as this process sees it. */
static unsigned char *window_of(const ShmComm *c, int k, int rank)
{
    if (shm_on_device(c))
        return c->dev_window[k][rank];
    return c->w->window + (size_t)rank * c->w->window_bytes;
}

/** The bytes of window @p k. */
static size_t window_size(const ShmComm *c, int k)
{
    return shm_on_device(c) ? c->dev_window_bytes[k] : c->w->window_bytes;
}

#line 211 "chapters/08-direct.nw"
/** Whether @p bytes fit in what is left of the rank's last window. */
static bool fits_last_window(const ShmComm *c, size_t bytes)
{
    int k = windows_of(c) - 1;
    return k >= 0 && bytes <= window_size(c, k) - shm_round_up(c->window_used[k], 4096);
}

#line 180 "chapters/08-direct.nw"
void *shm_alloc_shared(Comm *comm, size_t bytes)
{
    ShmComm *c = (ShmComm *)comm;
    if (shm_on_device(c) && !fits_last_window(c, bytes)) {
#line 272 "chapters/08-direct.nw"
        char err[ERR_LEN];
        size_t need = shm_round_up(bytes, 4096);
        if (c->dev_windows == SHM_DEVICE_WINDOWS) {
            if (comm->rank == 0)
                fprintf(stderr,
                        "shm: all %d GPU windows are in use: %zu bytes get none, and "
                        "the collectives use the channels for them\n",
                        SHM_DEVICE_WINDOWS, bytes);
#line 279 "chapters/08-direct.nw"
            return NULL;
        }
        c->dev_window_bytes[c->dev_windows] =
            need > SHM_DEVICE_WINDOW_MIN ? need : SHM_DEVICE_WINDOW_MIN;
        if (shm_open_device_windows(c, err))
            fatal("%s", err); /* the peers are at the barrier: end the run, naming this rank */
    }
#line 185 "chapters/08-direct.nw"
    if (!fits_last_window(c, bytes))
        return NULL;
    int k = windows_of(c) - 1;
    size_t at = shm_round_up(c->window_used[k], 4096);
    c->window_used[k] = at + bytes;
#line 227 "chapters/08-direct.nw"
    for (int q = 0; !shm_on_device(c) && q < comm->size; q++)
        madvise(window_of(c, k, q) + at, shm_round_up(bytes, 4096), MADV_POPULATE_WRITE);
#line 191 "chapters/08-direct.nw"
    return window_of(c, k, comm->rank) + at;
}

void *shm_peer_buffer(Comm *comm, int peer, const void *mine)
{
    ShmComm *c = (ShmComm *)comm;
    const unsigned char *p = mine;
    for (int k = 0; k < windows_of(c) && peer >= 0 && peer < comm->size; k++) {
        const unsigned char *base = window_of(c, k, comm->rank);
        if (p >= base && p < base + c->window_used[k])
            return window_of(c, k, peer) + (p - base);
    }
    return NULL;
}

#line 404 "chapters/08-direct.nw"
uint32_t shm_progress(Comm *comm)
{
    ShmComm *c = (ShmComm *)comm;
    return atomic_load_explicit(&c->w->progress[comm->rank].value, memory_order_acquire);
}

void shm_advance(Comm *comm, uint32_t value)
{
    ShmComm *c = (ShmComm *)comm;
    if (shm_on_device(c))
        comm->dev->sync(); /* what the step's kernels wrote or read is done */
    atomic_store_explicit(&c->w->progress[comm->rank].value, value, memory_order_release);
    for (int q = 0; q < comm->size; q++)
        if (q != comm->rank)
            shm_ring_bell(c->w, q);
}

#line 432 "chapters/08-direct.nw"
int shm_wait_for(Comm *comm, int peer, uint32_t value, char *err)
{
    ShmComm *c = (ShmComm *)comm;
    _Atomic uint32_t *theirs = &c->w->progress[peer].value;
    Bell *b = &c->w->bell[comm->rank];
    double deadline = now_seconds() + c->w->timeout;
    launch_waiting(peer);
    for (;;) {
        uint32_t seen = atomic_load(&b->seq);
        if ((int32_t)(atomic_load_explicit(theirs, memory_order_acquire) - value) >= 0)
            return launch_waiting(-1), 0;
        if (shm_wait_change(&b->seq, seen, &b->sleeping, c->spin, deadline)) {
            char phase[96];
            launch_phase_of(peer, phase, sizeof phase);
            return error_set(err,
                             "waiting for rank %d timed out after %g s (rank %d is in "
                             "'%s')",
                             peer, c->w->timeout, peer, phase);
#line 448 "chapters/08-direct.nw"
        }
    }
}
