/**
 * @file shm_window.c
 * @brief The shared-memory transport: windows of memory a peer can read, and progress
 *        counters (chapter 8).
 */
#line 431 "chapters/08-direct.nw"
#include "shm_internal.h"

#include <sys/mman.h>

#include "launch.h"
#include "util.h"

#line 141 "chapters/08-direct.nw"
/** The first byte of rank @p rank's window as this process sees it, or NULL if none. */
static unsigned char *window_of(const ShmComm *c, int rank)
{
    if (shm_on_device(c))
        return c->dev_window[rank];
    return c->w->window ? c->w->window + (size_t)rank * c->w->window_bytes : NULL;
}

#line 151 "chapters/08-direct.nw"
void *shm_alloc_shared(Comm *comm, size_t bytes)
{
    ShmComm *c = (ShmComm *)comm;
#line 211 "chapters/08-direct.nw"
    if (shm_on_device(c) && !c->dev_window[comm->rank]) {
        char err[ERR_LEN];
        size_t first = shm_round_up(bytes, 4096);
        c->dev_window_bytes = first > SHM_DEVICE_WINDOW_MIN ? first : SHM_DEVICE_WINDOW_MIN;
        if (shm_open_device_windows(c, err))
            fatal("%s", err); /* the peers are at the barrier: end the run, naming this rank */
    }
#line 155 "chapters/08-direct.nw"
    size_t size = shm_on_device(c) ? c->dev_window_bytes : c->w->window_bytes;
    size_t at = shm_round_up(c->window_used, 4096);
    if (!window_of(c, comm->rank) || bytes > size - at)
        return NULL;
    c->window_used = at + bytes;
#line 182 "chapters/08-direct.nw"
    for (int q = 0; !shm_on_device(c) && q < comm->size; q++)
        madvise(window_of(c, q) + at, shm_round_up(bytes, 4096), MADV_POPULATE_WRITE);
#line 161 "chapters/08-direct.nw"
    return window_of(c, comm->rank) + at;
}

void *shm_peer_buffer(Comm *comm, int peer, const void *mine)
{
    ShmComm *c = (ShmComm *)comm;
    const unsigned char *p = mine, *base = window_of(c, comm->rank);
    if (!base || p < base || p >= base + c->window_used || peer < 0 || peer >= comm->size)
        return NULL;
    return window_of(c, peer) + (p - base);
}

#line 327 "chapters/08-direct.nw"
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

#line 355 "chapters/08-direct.nw"
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
#line 371 "chapters/08-direct.nw"
        }
    }
}
