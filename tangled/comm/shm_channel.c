/**
 * @file shm_channel.c
 * @brief The shared-memory transport: the futex, a channel's rings, the doorbells and the
 *        barrier (chapters 2, 8).
 */
#line 2618 "chapters/02-shm.nw"
#include "shm_internal.h"

#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "util.h"

#line 2644 "chapters/02-shm.nw"
#if defined(__x86_64__) || defined(__i386__)
/** Tell the core we are spinning (x86 PAUSE). */
#define cpu_relax() __builtin_ia32_pause()
#else
/** Tell the core we are spinning (a compiler barrier elsewhere). */
#define cpu_relax() atomic_signal_fence(memory_order_seq_cst)
#endif

#line 869 "chapters/02-shm.nw"
static void futex_wait(_Atomic uint32_t *word, uint32_t expected, double seconds)
{
    struct timespec ts = {.tv_sec = (time_t)seconds,
                          .tv_nsec = (long)((seconds - (time_t)seconds) * 1e9)};
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, &ts, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word, int count)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, count, NULL, NULL, 0);
}
#line 1174 "chapters/02-shm.nw"
/** Bytes published at once: a quarter of the ring, so both sides copy at the same time. */
static size_t piece(size_t cap)
{
    return cap / 4;
}

#line 1192 "chapters/02-shm.nw"
/** Copy up to @p n bytes from @p src into the ring; returns how many went in. */
size_t shm_ring_push(RingCtl *r, unsigned char *base, size_t cap, const unsigned char *src,
                     size_t n, CopyFn copy)
{
#line 1197 "chapters/02-shm.nw"
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    size_t room = cap - (uint32_t)(tail - head);
    if (n > room)
        n = room;
#line 1201 "chapters/02-shm.nw"
    if (n > piece(cap))
        n = piece(cap);
#line 1202 "chapters/02-shm.nw"
    if (n == 0)
        return 0;
    size_t at = tail & (cap - 1), first = n < cap - at ? n : cap - at;
    copy(base + at, src, first);
    if (n > first)
        copy(base, src + first, n - first);
    atomic_store_explicit(&r->tail, tail + (uint32_t)n, memory_order_release);
    return n;
}

#line 1227 "chapters/02-shm.nw"
/** Copy up to @p n bytes out of the ring into @p dst; returns how many came out. */
size_t shm_ring_pop(RingCtl *r, const unsigned char *base, size_t cap, unsigned char *dst,
                    size_t n, CopyFn copy)
{
#line 1232 "chapters/02-shm.nw"
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    size_t ready = (uint32_t)(tail - head);
    if (n > ready)
        n = ready;
#line 1236 "chapters/02-shm.nw"
    if (n == 0)
        return 0;
    size_t at = head & (cap - 1), first = n < cap - at ? n : cap - at;
    copy(dst, base + at, first);
    if (n > first)
        copy(dst + first, base, n - first);
    atomic_store_explicit(&r->head, head + (uint32_t)n, memory_order_release);
    return n;
}
#line 1593 "chapters/02-shm.nw"
void shm_ring_bell(ShmWorld *w, int rank)
{
    Bell *b = &w->bell[rank];
    atomic_fetch_add(&b->seq, 1);
    if (atomic_load(&b->sleeping))
        futex_wake(&b->seq, 1);
}

#line 1617 "chapters/02-shm.nw"
/**
 * Wait until @p word moves from @p seen: spin @p spin polls, then sleep, counted in
 * @p sleepers so that whoever moves the word knows to wake us. Returns 0, or -1 at the
 * deadline. The doorbells and the barrier both wait with it.
 */
int shm_wait_change(_Atomic uint32_t *word, uint32_t seen, _Atomic uint32_t *sleepers, int spin,
                    double deadline)
{
    for (int i = 0; i < spin; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) != seen)
            return 0;
        cpu_relax();
#line 670 "chapters/08-direct.nw"
#ifndef DPS_NO_BIND
        if ((i & 255) == 255) {
            sched_yield();
            launch_alive(); /* a sign of life, as a wait that yields shows */
        }
#endif
#line 1630 "chapters/02-shm.nw"
    }
#line 571 "chapters/08-direct.nw"
    for (int i = 0; spin == 0 && i < DPS_YIELD_POLLS; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) != seen)
            return 0;
        sched_yield();
        if ((i & 31) == 31)
            launch_alive(); /* waiting, not stopped, however long the yields take */
    }
#line 1642 "chapters/02-shm.nw"
    while (atomic_load(word) == seen) {
        double left = deadline - now_seconds();
        if (left <= 0)
            return -1;
        launch_alive(); /* waiting, not stopped: the launcher names a rank that stops */
        atomic_fetch_add(sleepers, 1);
        futex_wait(word, seen, left < 0.25 ? left : 0.25);
        atomic_fetch_sub(sleepers, 1);
    }
#line 1633 "chapters/02-shm.nw"
    return 0;
}

#line 1580 "chapters/02-shm.nw"
/** Wait until my doorbell moves from @p seen; returns 0, or -1 at the deadline. */
int shm_wait_bell(ShmComm *c, uint32_t seen, double deadline)
{
    Bell *b = &c->w->bell[c->comm.rank];
    return shm_wait_change(&b->seq, seen, &b->sleeping, c->spin, deadline);
}
#line 2119 "chapters/02-shm.nw"
static int barrier_timed_out(ShmComm *c, uint32_t mine, char *err)
{
    ShmWorld *w = c->w;
    char names[ERR_LEN / 2] = "";
    size_t used = 0;
    for (int r = 0; r < w->size && used + 1 < sizeof names; r++)
        if (atomic_load(&w->bar_count[r]) < mine) {
            char phase[64];
            launch_phase_of(r, phase, sizeof phase);
            int n = snprintf(names + used, sizeof names - used, "%s%d ('%s')", used ? ", " : "",
                             r, phase);
#line 2131 "chapters/02-shm.nw"
            used = n > 0 ? used + (size_t)n : used;
        }
    return error_set(err, "barrier timed out after %g s waiting for rank(s) %s", w->timeout,
                     names);
#line 2136 "chapters/02-shm.nw"
}

#line 2081 "chapters/02-shm.nw"
int shm_barrier(Comm *comm, char *err)
{
    ShmComm *c = (ShmComm *)comm;
    ShmWorld *w = c->w;
    uint32_t gen = atomic_load(&w->bar_gen);
    uint32_t mine = atomic_fetch_add(&w->bar_count[comm->rank], 1) + 1;
    if (atomic_fetch_add(&w->bar_arrived, 1) == (uint32_t)w->size - 1) {
        atomic_store(&w->bar_arrived, 0);
        atomic_fetch_add(&w->bar_gen, 1);
        if (atomic_load(&w->bar_sleepers))
            futex_wake(&w->bar_gen, INT_MAX);
        return 0;
    }
    if (shm_wait_change(&w->bar_gen, gen, &w->bar_sleepers, c->spin,
                        now_seconds() + w->timeout))
        return barrier_timed_out(c, mine, err);
    return 0;
}
