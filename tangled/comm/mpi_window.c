/**
 * @file mpi_window.c
 * @brief Windows and progress counters between the MPI processes of one host, over MPI-3
 *        shared memory (chapter 9).
 */
#line 380 "chapters/09-hosts.nw"
#include "mpi_window.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "util.h"

#line 411 "chapters/09-hosts.nw"
/** Most windows one communicator hands out. */
#define MPI_MAX_WINDOWS 16
/** Bytes between two ranks' counters: a cache line each. */
#define COUNTER_STRIDE 64

/** One allocation: MPI's window, and this rank's part of it. */
typedef struct MpiWindow {
    MPI_Win win;  /**< the window, on the host's communicator */
    char *base;   /**< this rank's part */
    size_t bytes; /**< its length */
} MpiWindow;

/** What the MPI communicator keeps for its windows. */
typedef struct MpiWindows {
    MPI_Comm host;                  /**< the ranks of this host */
    int *host_rank;                 /**< a world rank's rank on this host, or -1 */
    MPI_Win counter_win;            /**< the counters' window */
    _Atomic uint32_t **counter;     /**< each host rank's counter */
    MpiWindow win[MPI_MAX_WINDOWS]; /**< the windows handed out */
    int n_win;                      /**< how many */
    double wait;                    /**< seconds to wait for a peer's progress */
} MpiWindows;
#line 540 "chapters/09-hosts.nw"
static void *mpi_alloc_shared(Comm *c, size_t bytes)
{
    MpiWindows *w = c->state;
    if (w->n_win == MPI_MAX_WINDOWS)
        return NULL;
    MpiWindow *x = &w->win[w->n_win];
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    int rc = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, w->host, &x->base, &x->win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return NULL;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, x->win); /* its epoch: the window's whole life */
    x->bytes = bytes;
    w->n_win++;
    return x->base;
}
#line 564 "chapters/09-hosts.nw"
static void *mpi_peer_buffer(Comm *c, int peer, const void *mine)
{
    MpiWindows *w = c->state;
    const char *p = mine;
    for (int i = 0; i < w->n_win; i++) {
        MpiWindow *x = &w->win[i];
        if (p < x->base || p > x->base + x->bytes || w->host_rank[peer] < 0)
            continue;
        MPI_Aint size;
        int disp;
        char *at;
        MPI_Win_shared_query(x->win, w->host_rank[peer], &size, &disp, &at);
        return at + (p - x->base);
    }
    return NULL;
}
#line 590 "chapters/09-hosts.nw"
static uint32_t mpi_progress(Comm *c)
{
    MpiWindows *w = c->state;
    return atomic_load_explicit(w->counter[w->host_rank[c->rank]], memory_order_relaxed);
}

/** MPI's memory barrier on every window: stores before it are seen by a peer after its own. */
static void mpi_sync_windows(MpiWindows *w)
{
    for (int i = 0; i < w->n_win; i++)
        MPI_Win_sync(w->win[i].win);
    MPI_Win_sync(w->counter_win);
}

static void mpi_advance(Comm *c, uint32_t value)
{
    MpiWindows *w = c->state;
    mpi_sync_windows(w);
    atomic_store_explicit(w->counter[w->host_rank[c->rank]], value, memory_order_release);
}
#line 618 "chapters/09-hosts.nw"
static int mpi_wait_for(Comm *c, int peer, uint32_t value, char *err)
{
    MpiWindows *w = c->state;
    if (w->host_rank[peer] < 0)
        return error_set(err, "rank %d is on another host: no counter to wait for", peer);
    _Atomic uint32_t *at = w->counter[w->host_rank[peer]];
    double give_up = now_seconds() + w->wait;
    for (long k = 0; (int32_t)(atomic_load_explicit(at, memory_order_acquire) - value) < 0;
         k++) {
        sched_yield();
        if (k % 1024 == 1023 && now_seconds() > give_up)
            return error_set(err, "rank %d made no progress for %g s", peer, w->wait);
    }
    mpi_sync_windows(w);
    return 0;
}
#line 444 "chapters/09-hosts.nw"
int mpi_windows_open(Comm *c, double wait, char *err)
{
    (void)err;
    MpiWindows *w = xcalloc(1, sizeof *w);
    w->wait = wait;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &w->host);
#line 451 "chapters/09-hosts.nw"
    MPI_Comm_set_errhandler(w->host, MPI_ERRORS_RETURN);
#line 471 "chapters/09-hosts.nw"
    MPI_Group world, host;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm_group(w->host, &host);
    int *ranks = xcalloc((size_t)c->size, sizeof *ranks);
    w->host_rank = xcalloc((size_t)c->size, sizeof *w->host_rank);
    for (int q = 0; q < c->size; q++)
        ranks[q] = q;
    MPI_Group_translate_ranks(world, c->size, ranks, host, w->host_rank);
    for (int q = 0; q < c->size; q++)
        if (w->host_rank[q] == MPI_UNDEFINED)
            w->host_rank[q] = -1;
    free(ranks);
    MPI_Group_free(&world);
    MPI_Group_free(&host);
#line 453 "chapters/09-hosts.nw"
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    void *mine = NULL;
    int rc = MPI_Win_allocate_shared(COUNTER_STRIDE, 1, info, w->host, &mine, &w->counter_win);
#line 459 "chapters/09-hosts.nw"
    MPI_Info_free(&info);
    c->state = w;
    if (rc != MPI_SUCCESS) /* no shared memory: no windows */
        return 0;
#line 500 "chapters/09-hosts.nw"
    int *model = NULL, has = 0;
    MPI_Win_get_attr(w->counter_win, MPI_WIN_MODEL, &model, &has);
    if (!has || *model != MPI_WIN_UNIFIED) { /* a separate public copy: no windows */
        MPI_Win_free(&w->counter_win);
        return 0;
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, w->counter_win);
#line 510 "chapters/09-hosts.nw"
    int n_host;
    MPI_Comm_size(w->host, &n_host);
    w->counter = xcalloc((size_t)n_host, sizeof *w->counter);
    for (int q = 0; q < n_host; q++) {
        MPI_Aint size;
        int disp;
        void *at;
        MPI_Win_shared_query(w->counter_win, q, &size, &disp, &at);
        w->counter[q] = at;
    }
    atomic_store(w->counter[w->host_rank[c->rank]], 0);
    MPI_Barrier(w->host); /* every counter is 0 before anyone reads one */
#line 525 "chapters/09-hosts.nw"
    c->alloc_shared = mpi_alloc_shared;
    c->peer_buffer = mpi_peer_buffer;
    c->progress = mpi_progress;
    c->advance = mpi_advance;
    c->wait_for = mpi_wait_for;
#line 466 "chapters/09-hosts.nw"
    return 0;
}
#line 640 "chapters/09-hosts.nw"
void mpi_windows_close(Comm *c)
{
    MpiWindows *w = c->state;
    if (!w)
        return;
    for (int i = w->n_win - 1; i >= 0; i--) {
        MPI_Win_unlock_all(w->win[i].win);
        MPI_Win_free(&w->win[i].win);
    }
    if (w->counter) {
        MPI_Win_unlock_all(w->counter_win);
        MPI_Win_free(&w->counter_win);
    }
    MPI_Comm_free(&w->host);
    free(w->counter);
    free(w->host_rank);
    free(w);
    c->state = NULL;
}
