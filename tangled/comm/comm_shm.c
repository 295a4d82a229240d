/**
 * @file comm_shm.c
 * @brief The shared-memory transport: channels, doorbells, barrier, CUDA IPC.
 */
#line 2419 "chapters/02-shm.nw"
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#line 2395 "chapters/02-shm.nw"
#include "comm_shm.h"
#include "launch.h"
#include "transport.h"
#include "util.h"

#line 2440 "chapters/02-shm.nw"
#if defined(__x86_64__) || defined(__i386__)
/** Tell the core we are spinning (x86 PAUSE). */
#define cpu_relax() __builtin_ia32_pause()
#else
/** Tell the core we are spinning (a compiler barrier elsewhere). */
#define cpu_relax() atomic_signal_fence(memory_order_seq_cst)
#endif

#line 1248 "chapters/02-shm.nw"
/** Align to a cache line, so that counters written by different ranks do not share one. */
#define LINE 64
/** Copy @p n bytes; memcpy on the CPU, the device's peer_copy on a GPU. */
typedef void (*CopyFn)(void *dst, const void *src, size_t n);

#line 1275 "chapters/02-shm.nw"
/** The two counters of a ring; the bytes live elsewhere. */
typedef struct RingCtl {
    _Alignas(LINE) _Atomic uint32_t tail; /**< bytes ever written; moved by the sender */
    _Alignas(LINE) _Atomic uint32_t head; /**< bytes ever read; moved by the receiver */
} RingCtl;

/** A channel src -> dst: a ring in shared memory, and one in GPU memory for CUDA payloads. */
typedef struct ChannelCtl {
    RingCtl host; /**< headers, and on the CPU the payloads */
    RingCtl dev;  /**< payloads of device messages (CUDA) */
} ChannelCtl;

#line 1297 "chapters/02-shm.nw"
/** A rank's doorbell: rung by whoever changes a channel the rank waits on. */
typedef struct Bell {
    _Alignas(LINE) _Atomic uint32_t seq; /**< bumped at every ring */
    _Atomic uint32_t sleeping;           /**< nonzero while the owner sleeps on seq */
} Bell;

#line 1314 "chapters/02-shm.nw"
/** Everything the ranks share. Followed in the mapping by channels, handles and rings. */
struct ShmWorld {
    int size;          /**< ranks */
    size_t host_bytes; /**< capacity of each shared-memory ring */
    size_t dev_bytes;  /**< capacity of each GPU ring */
    double timeout;    /**< seconds before a wait gives up */
    size_t map_bytes;  /**< size of the whole mapping */
    size_t ctl_at;     /**< offset of the ChannelCtl array [src][dst] */
    size_t ipc_at;     /**< offset of the IPC handles [src][dst] */
    size_t ring_at;    /**< offset of the rings [src][dst] */
    _Alignas(LINE) _Atomic uint32_t bar_arrived;  /**< ranks in the current barrier */
    _Alignas(LINE) _Atomic uint32_t bar_gen;      /**< barriers completed */
    _Atomic uint32_t bar_sleepers;                /**< ranks asleep on bar_gen */
    _Atomic uint32_t bar_count[LAUNCH_MAX_RANKS]; /**< barriers each rank has entered */
    Bell bell[LAUNCH_MAX_RANKS];                  /**< one doorbell per rank */
#line 88 "chapters/08-direct.nw"
    unsigned char *window; /**< the windows, one per rank, made before the fork (chapter 8) */
    size_t window_bytes;   /**< bytes of each */
    int window_fd;         /**< the memory file behind them, or -1 */
    struct {
        _Alignas(LINE) _Atomic uint32_t value; /**< steps the rank has announced */
    } progress[LAUNCH_MAX_RANKS];              /**< each rank's progress counter (chapter 8) */
#line 1330 "chapters/02-shm.nw"
};

#line 1344 "chapters/02-shm.nw"
/** What one rank keeps: the Comm it hands out, and where its rings are. */
typedef struct ShmComm {
    Comm comm;                      /**< the interface; first, so a Comm * is a ShmComm * */
    ShmWorld *w;                    /**< the shared world */
    int spin;                       /**< polls before sleeping (0 when ranks outnumber cores) */
    void *dev_in[LAUNCH_MAX_RANKS]; /**< GPU ring of channel src -> me, by src (mine) */
    void *dev_out[LAUNCH_MAX_RANKS]; /**< GPU ring of channel me -> dst, by dst (opened) */
    uint64_t mapped_out;             /**< channels to peers whose ring pages are mapped in */
    uint64_t mapped_in;              /**< channels from peers whose ring pages are mapped in */
#line 132 "chapters/08-direct.nw"
    /** Bytes of the rank's window handed out (chapter 8). */
    size_t window_used;
    /** On a GPU, every rank's window as this process maps it; NULL until first used. */
    unsigned char *dev_window[LAUNCH_MAX_RANKS];
    /** On a GPU, the bytes of each window (set by the first request). */
    size_t dev_window_bytes;
#line 1354 "chapters/02-shm.nw"
} ShmComm;
#line 856 "chapters/02-shm.nw"
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
#line 1159 "chapters/02-shm.nw"
/** Bytes published at once: a quarter of the ring, so both sides copy at the same time. */
static size_t piece(size_t cap)
{
    return cap / 4;
}

#line 1177 "chapters/02-shm.nw"
/** Copy up to @p n bytes from @p src into the ring; returns how many went in. */
static size_t ring_push(RingCtl *r, unsigned char *base, size_t cap, const unsigned char *src,
                        size_t n, CopyFn copy)
{
#line 1182 "chapters/02-shm.nw"
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    size_t room = cap - (uint32_t)(tail - head);
    if (n > room)
        n = room;
#line 1186 "chapters/02-shm.nw"
    if (n > piece(cap))
        n = piece(cap);
#line 1187 "chapters/02-shm.nw"
    if (n == 0)
        return 0;
    size_t at = tail & (cap - 1), first = n < cap - at ? n : cap - at;
    copy(base + at, src, first);
    if (n > first)
        copy(base, src + first, n - first);
    atomic_store_explicit(&r->tail, tail + (uint32_t)n, memory_order_release);
    return n;
}

#line 1212 "chapters/02-shm.nw"
/** Copy up to @p n bytes out of the ring into @p dst; returns how many came out. */
static size_t ring_pop(RingCtl *r, const unsigned char *base, size_t cap, unsigned char *dst,
                       size_t n, CopyFn copy)
{
#line 1217 "chapters/02-shm.nw"
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    size_t ready = (uint32_t)(tail - head);
    if (n > ready)
        n = ready;
#line 1221 "chapters/02-shm.nw"
    if (n == 0)
        return 0;
    size_t at = head & (cap - 1), first = n < cap - at ? n : cap - at;
    copy(dst, base + at, first);
    if (n > first)
        copy(dst + first, base, n - first);
    atomic_store_explicit(&r->head, head + (uint32_t)n, memory_order_release);
    return n;
}
#line 1404 "chapters/02-shm.nw"
static ChannelCtl *channel(ShmWorld *w, int src, int dst)
{
    return (ChannelCtl *)((char *)w + w->ctl_at) + (size_t)src * w->size + dst;
}

static unsigned char *host_ring(ShmWorld *w, int src, int dst)
{
    return (unsigned char *)w + w->ring_at + ((size_t)src * w->size + dst) * w->host_bytes;
}

static unsigned char *ipc_slot(ShmWorld *w, int src, int dst)
{
    return (unsigned char *)w + w->ipc_at + ((size_t)src * w->size + dst) * DEVICE_IPC_BYTES;
}

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

#line 1370 "chapters/02-shm.nw"
ShmWorld *shm_world_create(int size, size_t channel_bytes, double timeout_s, char *err)
{
#line 1434 "chapters/02-shm.nw"
    if (channel_bytes == 0)
        channel_bytes = SHM_CHANNEL_BYTES;
    if (size < 1 || size > LAUNCH_MAX_RANKS) {
        error_set(err, "shm: %d ranks asked for; 1 to %d are possible", size, LAUNCH_MAX_RANKS);
#line 1439 "chapters/02-shm.nw"
        return NULL;
    }
    bool power_of_two = (channel_bytes & (channel_bytes - 1)) == 0;
    if (channel_bytes < 64 || channel_bytes > (1u << 31) || !power_of_two) {
        error_set(err, "shm: a channel of %zu bytes: it must be a power of two, 64 B to 2 GiB",
                  channel_bytes);
#line 1446 "chapters/02-shm.nw"
        return NULL;
    }
#line 1459 "chapters/02-shm.nw"
    size_t pairs = (size_t)size * size;
    size_t ctl_at = round_up(sizeof(ShmWorld), LINE);
    size_t ipc_at = round_up(ctl_at + pairs * sizeof(ChannelCtl), LINE);
    size_t ring_at = round_up(ipc_at + pairs * DEVICE_IPC_BYTES, 4096);
    size_t bytes = ring_at + pairs * channel_bytes;
    ShmWorld *w = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (w == MAP_FAILED) {
        error_set(err, "shm: cannot map %zu MiB of shared memory: %s", bytes >> 20,
                  strerror(errno));
        return NULL;
    }
#line 1374 "chapters/02-shm.nw"
    w->size = size;
    w->host_bytes = channel_bytes;
    w->dev_bytes = SHM_DEVICE_CHANNEL_BYTES;
    w->timeout = timeout_s;
    w->map_bytes = bytes;
    w->ctl_at = ctl_at;
    w->ipc_at = ipc_at;
    w->ring_at = ring_at;
#line 107 "chapters/08-direct.nw"
    size_t windows = (size_t)size * SHM_WINDOW_BYTES;
    int fd = memfd_create("dps-windows", MFD_CLOEXEC);
    void *win =
        fd >= 0 && ftruncate(fd, (off_t)windows) == 0
            ? mmap(NULL, windows, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0)
            : MAP_FAILED;
#line 112 "chapters/08-direct.nw"
    w->window = win == MAP_FAILED ? NULL : win;
    w->window_bytes = win == MAP_FAILED ? 0 : SHM_WINDOW_BYTES;
    w->window_fd = win == MAP_FAILED && fd >= 0 ? (close(fd), -1) : fd;
#line 1383 "chapters/02-shm.nw"
    return w; /* the mapping comes zeroed: every counter starts at 0 */
}

void shm_world_destroy(ShmWorld *w)
{
#line 118 "chapters/08-direct.nw"
    if (w && w->window)
        munmap(w->window, (size_t)w->size * w->window_bytes);
    if (w && w->window_fd >= 0)
        close(w->window_fd);
#line 1389 "chapters/02-shm.nw"
    if (w)
        munmap(w, w->map_bytes);
}
#line 1570 "chapters/02-shm.nw"
static void ring_bell(ShmWorld *w, int rank)
{
    Bell *b = &w->bell[rank];
    atomic_fetch_add(&b->seq, 1);
    if (atomic_load(&b->sleeping))
        futex_wake(&b->seq, 1);
}

#line 1594 "chapters/02-shm.nw"
/**
 * Wait until @p word moves from @p seen: spin @p spin polls, then sleep, counted in
 * @p sleepers so that whoever moves the word knows to wake us. Returns 0, or -1 at the
 * deadline. The doorbells and the barrier both wait with it.
 */
static int wait_change(_Atomic uint32_t *word, uint32_t seen, _Atomic uint32_t *sleepers,
                       int spin, double deadline)
{
    for (int i = 0; i < spin; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) != seen)
            return 0;
        cpu_relax();
#line 533 "chapters/08-direct.nw"
#ifndef DPS_NO_BIND
        if ((i & 255) == 255) {
            sched_yield();
            launch_alive(); /* a sign of life, as a wait that yields shows */
        }
#endif
#line 1607 "chapters/02-shm.nw"
    }
#line 437 "chapters/08-direct.nw"
    for (int i = 0; spin == 0 && i < DPS_YIELD_POLLS; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) != seen)
            return 0;
        sched_yield();
        if ((i & 31) == 31)
            launch_alive(); /* waiting, not stopped, however long the yields take */
    }
#line 1619 "chapters/02-shm.nw"
    while (atomic_load(word) == seen) {
        double left = deadline - now_seconds();
        if (left <= 0)
            return -1;
        launch_alive(); /* waiting, not stopped: the launcher names a rank that stops */
        atomic_fetch_add(sleepers, 1);
        futex_wait(word, seen, left < 0.25 ? left : 0.25);
        atomic_fetch_sub(sleepers, 1);
    }
#line 1610 "chapters/02-shm.nw"
    return 0;
}

#line 1557 "chapters/02-shm.nw"
/** Wait until my doorbell moves from @p seen; returns 0, or -1 at the deadline. */
static int wait_bell(ShmComm *c, uint32_t seen, double deadline)
{
    Bell *b = &c->w->bell[c->comm.rank];
    return wait_change(&b->seq, seen, &b->sleeping, c->spin, deadline);
}
#line 1504 "chapters/02-shm.nw"
#ifndef MADV_POPULATE_WRITE
/** madvise(): fault the pages in as a write would (Linux 5.14; older headers lack it). */
#define MADV_POPULATE_WRITE 23
#endif
/** Once per channel, a bit per peer in @p done: map in its ring's pages. */
static void map_in(const ShmWorld *w, uint64_t *done, int peer, void *ring)
{
    if (*done >> peer & 1)
        return;
    *done |= (uint64_t)1 << peer;
    madvise(ring, w->host_bytes, MADV_POPULATE_WRITE);
}
#line 1694 "chapters/02-shm.nw"
/** The device-payload bit of a message header. */
#define ON_DEVICE (1ull << 63)

/** One message in flight. */
typedef struct Transfer {
    int peer;                /**< the other rank */
    unsigned char *buf;      /**< the payload, in the comm's device memory */
    size_t bytes;            /**< payload length */
    size_t done;             /**< payload bytes moved */
    unsigned char header[8]; /**< length | ON_DEVICE, little-endian */
    size_t header_done;      /**< header bytes moved */
} Transfer;

#line 1659 "chapters/02-shm.nw"
static bool on_device(const ShmComm *c)
{
    return c->comm.dev->kind != DEVICE_CPU;
}
static bool finished(const Transfer *t)
{
    return !t || (t->header_done == 8 && t->done == t->bytes);
}
static void host_copy(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

static Transfer transfer(const ShmComm *c, int peer, const void *buf, size_t bytes)
{
    Transfer t = {.peer = peer, .buf = (unsigned char *)buf, .bytes = bytes};
    uint64_t h = (uint64_t)bytes | (on_device(c) ? ON_DEVICE : 0);
    for (int i = 0; i < 8; i++)
        t.header[i] = (unsigned char)(h >> (8 * i));
    return t;
}
#line 1718 "chapters/02-shm.nw"
static size_t progress_send(ShmComm *c, Transfer *t)
{
    ShmWorld *w = c->w;
    int me = c->comm.rank;
    ChannelCtl *ch = channel(w, me, t->peer);
    unsigned char *ring = host_ring(w, me, t->peer);
    size_t moved = 0, k;
    if (t->header_done < 8) {
        k = ring_push(&ch->host, ring, w->host_bytes, t->header + t->header_done,
                      8 - t->header_done, host_copy);
        t->header_done += k;
        moved += k;
    }
    if (t->header_done == 8 && t->done < t->bytes) {
#line 1753 "chapters/02-shm.nw"
        if (on_device(c))
            k = ring_push(&ch->dev, c->dev_out[t->peer], w->dev_bytes, t->buf + t->done,
                          t->bytes - t->done, c->comm.dev->peer_copy);
        else
            k = ring_push(&ch->host, ring, w->host_bytes, t->buf + t->done, t->bytes - t->done,
                          host_copy);
#line 1733 "chapters/02-shm.nw"
        t->done += k;
        moved += k;
    }
    if (moved)
        ring_bell(w, t->peer);
    return moved;
}
#line 1770 "chapters/02-shm.nw"
static long progress_recv(ShmComm *c, Transfer *t, char *err)
{
    ShmWorld *w = c->w;
    int me = c->comm.rank;
    ChannelCtl *ch = channel(w, t->peer, me);
    const unsigned char *ring = host_ring(w, t->peer, me);
    size_t moved = 0, k;
    if (t->header_done < 8) {
        unsigned char got[8];
        k = ring_pop(&ch->host, ring, w->host_bytes, got, 8 - t->header_done, host_copy);
#line 1817 "chapters/02-shm.nw"
        if (memcmp(got, t->header + t->header_done, k) != 0) {
            memcpy(t->header + t->header_done, got, k);
            uint64_t h = 0;
            for (size_t i = 0; i < t->header_done + k && i < sizeof t->header; i++)
                h |= (uint64_t)t->header[i] << (8 * i);
            if (t->header_done + k < 8)
                return error_set(err, "recv from rank %d: the message header is corrupt",
                                 t->peer);
            return error_set(err,
                             "recv from rank %d: it sent a %s message of %llu bytes, "
                             "this rank expected a %s message of %zu bytes",
                             t->peer, (h & ON_DEVICE) ? "device" : "host",
                             (unsigned long long)(h & ~ON_DEVICE),
                             on_device(c) ? "device" : "host", t->bytes);
        }
#line 1781 "chapters/02-shm.nw"
        t->header_done += k;
        moved += k;
    }
    if (t->header_done == 8 && t->done < t->bytes) {
#line 1805 "chapters/02-shm.nw"
        if (on_device(c))
            k = ring_pop(&ch->dev, c->dev_in[t->peer], w->dev_bytes, t->buf + t->done,
                         t->bytes - t->done, c->comm.dev->peer_copy);
        else
            k = ring_pop(&ch->host, ring, w->host_bytes, t->buf + t->done, t->bytes - t->done,
                         host_copy);
#line 1786 "chapters/02-shm.nw"
        t->done += k;
        moved += k;
    }
    if (moved)
        ring_bell(w, t->peer);
    return (long)moved;
}
#line 1893 "chapters/02-shm.nw"
/** The transfer a wait is for: a receive first, since a send waits on its peer only when
 * the ring is full. */
static const Transfer *pending(Transfer *const out[2], Transfer *const in[2])
{
    return !finished(in[0])    ? in[0]
           : !finished(in[1])  ? in[1]
           : !finished(out[0]) ? out[0]
                               : out[1];
#line 1899 "chapters/02-shm.nw"
}

static int timed_out(ShmComm *c, Transfer *const out[2], Transfer *const in[2], char *err)
{
    const Transfer *t = pending(out, in);
    bool is_in = t == in[0] || t == in[1];
    char phase[96];
    launch_phase_of(t->peer, phase, sizeof phase);
    return error_set(err,
                     "%s rank %d timed out after %g s (%zu of %zu bytes moved; "
                     "rank %d is in '%s')",
                     is_in ? "recv from" : "send to", t->peer, c->w->timeout, t->done, t->bytes,
                     t->peer, phase);
#line 1910 "chapters/02-shm.nw"
}

#line 1857 "chapters/02-shm.nw"
static int exchange(ShmComm *c, Transfer *out[2], Transfer *in[2], char *err)
{
    Bell *b = &c->w->bell[c->comm.rank];
    double deadline = 0; /* set when we first have to wait after a move */
#line 1495 "chapters/02-shm.nw"
    for (int i = 0; i < 2; i++) {
        if (out[i])
            map_in(c->w, &c->mapped_out, out[i]->peer,
                   host_ring(c->w, c->comm.rank, out[i]->peer));
#line 1498 "chapters/02-shm.nw"
        if (in[i])
            map_in(c->w, &c->mapped_in, in[i]->peer,
                   host_ring(c->w, in[i]->peer, c->comm.rank));
#line 1500 "chapters/02-shm.nw"
    }
#line 1862 "chapters/02-shm.nw"
    while (!finished(out[0]) || !finished(out[1]) || !finished(in[0]) || !finished(in[1])) {
#line 1864 "chapters/02-shm.nw"
        uint32_t seen = atomic_load(&b->seq);
#line 1927 "chapters/02-shm.nw"
        size_t moved = 0;
        for (int i = 0; i < 2; i++) {
            if (!finished(out[i]) &&
                (i == 0 || finished(out[0]) || out[0]->peer != out[1]->peer))
                moved += progress_send(c, out[i]);
#line 1931 "chapters/02-shm.nw"
            if (!finished(in[i]) && (i == 0 || finished(in[0]) || in[0]->peer != in[1]->peer)) {
                long k = progress_recv(c, in[i], err);
                if (k < 0)
                    return -1;
                moved += (size_t)k;
            }
        }
#line 1866 "chapters/02-shm.nw"
        if (moved) {
            deadline = 0;
            continue;
        }
        if (deadline == 0)
            deadline = now_seconds() + c->w->timeout;
        launch_waiting(pending(out, in)->peer);
        if (wait_bell(c, seen, deadline))
            return timed_out(c, out, in, err);
    }
    launch_waiting(-1);
    return 0;
}
#line 1999 "chapters/02-shm.nw"
static int check_peer(const Comm *c, int peer, const char *what, char *err)
{
    if (peer < 0 || peer >= c->size || peer == c->rank)
        return error_set(err, "%s rank %d: no such peer (rank %d of %d)", what, peer, c->rank,
                         c->size);
#line 2005 "chapters/02-shm.nw"
    return 0;
}

#line 2018 "chapters/02-shm.nw"
static int shm_send(Comm *comm, int to, const void *buf, size_t bytes, char *err)
{
    ShmComm *c = (ShmComm *)comm;
    if (check_peer(comm, to, "send to", err))
        return -1;
    Transfer t = transfer(c, to, buf, bytes);
    return exchange(c, (Transfer *[2]){&t, NULL}, (Transfer *[2]){NULL, NULL}, err);
}

static int shm_recv(Comm *comm, int from, void *buf, size_t bytes, char *err)
{
    ShmComm *c = (ShmComm *)comm;
    if (check_peer(comm, from, "recv from", err))
        return -1;
    Transfer t = transfer(c, from, buf, bytes);
    return exchange(c, (Transfer *[2]){NULL, NULL}, (Transfer *[2]){&t, NULL}, err);
}

#line 1955 "chapters/02-shm.nw"
static int shm_sendrecv(Comm *comm, int to, const void *sbuf, size_t sbytes, int from,
                        void *rbuf, size_t rbytes, char *err)
{
    ShmComm *c = (ShmComm *)comm;
    if (check_peer(comm, to, "send to", err) || check_peer(comm, from, "recv from", err))
        return -1;
    Transfer out = transfer(c, to, sbuf, sbytes), in = transfer(c, from, rbuf, rbytes);
    return exchange(c, (Transfer *[2]){&out, NULL}, (Transfer *[2]){&in, NULL}, err);
}

#line 1975 "chapters/02-shm.nw"
static int shm_sendrecv2(Comm *comm, const Exchange x[2], char *err)
{
    ShmComm *c = (ShmComm *)comm;
    for (int i = 0; i < 2; i++)
        if (check_peer(comm, x[i].to, "send to", err) ||
            check_peer(comm, x[i].from, "recv from", err))
            return -1;
    Transfer o0 = transfer(c, x[0].to, x[0].sbuf, x[0].sbytes);
    Transfer o1 = transfer(c, x[1].to, x[1].sbuf, x[1].sbytes);
    Transfer i0 = transfer(c, x[0].from, x[0].rbuf, x[0].rbytes);
    Transfer i1 = transfer(c, x[1].from, x[1].rbuf, x[1].rbytes);
    return exchange(c, (Transfer *[2]){&o0, &o1}, (Transfer *[2]){&i0, &i1}, err);
}
#line 2095 "chapters/02-shm.nw"
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
#line 2107 "chapters/02-shm.nw"
            used = n > 0 ? used + (size_t)n : used;
        }
    return error_set(err, "barrier timed out after %g s waiting for rank(s) %s", w->timeout,
                     names);
#line 2112 "chapters/02-shm.nw"
}

#line 2057 "chapters/02-shm.nw"
static int shm_barrier(Comm *comm, char *err)
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
    if (wait_change(&w->bar_gen, gen, &w->bar_sleepers, c->spin, now_seconds() + w->timeout))
        return barrier_timed_out(c, mine, err);
#line 2073 "chapters/02-shm.nw"
    return 0;
}
#line 141 "chapters/08-direct.nw"
/** The first byte of rank @p rank's window as this process sees it, or NULL if none. */
static unsigned char *window_of(const ShmComm *c, int rank)
{
    if (on_device(c))
        return c->dev_window[rank];
    return c->w->window ? c->w->window + (size_t)rank * c->w->window_bytes : NULL;
}

#line 221 "chapters/08-direct.nw"
/** Allocate this rank's window on its device, export it, and open every peer's. */
static int open_device_windows(ShmComm *c, char *err)
{
    const Device *dev = c->comm.dev;
    int me = c->comm.rank;
    if (!(c->dev_window[me] = dev->alloc(c->dev_window_bytes)))
        return error_set(err, "shm: rank %d: no device memory for its window", me);
    if (dev->ipc_export(c->dev_window[me], ipc_slot(c->w, me, me), err))
        return dev->release(c->dev_window[me]), c->dev_window[me] = NULL, -1;
    if (shm_barrier(&c->comm, err))
        return -1;
    for (int q = 0; q < c->w->size; q++)
        if (q != me && !(c->dev_window[q] = dev->ipc_open(ipc_slot(c->w, q, q), err)))
            return -1;
    return 0;
}

#line 151 "chapters/08-direct.nw"
static void *shm_alloc_shared(Comm *comm, size_t bytes)
{
    ShmComm *c = (ShmComm *)comm;
#line 211 "chapters/08-direct.nw"
    if (on_device(c) && !c->dev_window[comm->rank]) {
        char err[ERR_LEN];
        size_t first = round_up(bytes, 4096);
        c->dev_window_bytes = first > SHM_DEVICE_WINDOW_MIN ? first : SHM_DEVICE_WINDOW_MIN;
        if (open_device_windows(c, err))
            fatal("%s", err); /* the peers are at the barrier: end the run, naming this rank */
    }
#line 155 "chapters/08-direct.nw"
    size_t size = on_device(c) ? c->dev_window_bytes : c->w->window_bytes;
    size_t at = round_up(c->window_used, 4096);
    if (!window_of(c, comm->rank) || bytes > size - at)
        return NULL;
    c->window_used = at + bytes;
#line 182 "chapters/08-direct.nw"
    for (int q = 0; !on_device(c) && q < comm->size; q++)
        madvise(window_of(c, q) + at, round_up(bytes, 4096), MADV_POPULATE_WRITE);
#line 161 "chapters/08-direct.nw"
    return window_of(c, comm->rank) + at;
}

static void *shm_peer_buffer(Comm *comm, int peer, const void *mine)
{
    ShmComm *c = (ShmComm *)comm;
    const unsigned char *p = mine, *base = window_of(c, comm->rank);
    if (!base || p < base || p >= base + c->window_used || peer < 0 || peer >= comm->size)
        return NULL;
    return window_of(c, peer) + (p - base);
}

#line 327 "chapters/08-direct.nw"
static uint32_t shm_progress(Comm *comm)
{
    ShmComm *c = (ShmComm *)comm;
    return atomic_load_explicit(&c->w->progress[comm->rank].value, memory_order_acquire);
}

static void shm_advance(Comm *comm, uint32_t value)
{
    ShmComm *c = (ShmComm *)comm;
    if (on_device(c))
        comm->dev->sync(); /* what the step's kernels wrote or read is done */
    atomic_store_explicit(&c->w->progress[comm->rank].value, value, memory_order_release);
    for (int q = 0; q < comm->size; q++)
        if (q != comm->rank)
            ring_bell(c->w, q);
}

#line 355 "chapters/08-direct.nw"
static int shm_wait_for(Comm *comm, int peer, uint32_t value, char *err)
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
        if (wait_change(&b->seq, seen, &b->sleeping, c->spin, deadline)) {
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
#line 2255 "chapters/02-shm.nw"
static int open_device_rings(ShmComm *c, char *err)
{
    ShmWorld *w = c->w;
    const Device *dev = c->comm.dev;
    int me = c->comm.rank;
    if (!dev->ipc_export || !dev->ipc_open)
        return error_set(err, "shm: device %s cannot share memory between processes",
                         dev->name);
    for (int src = 0; src < w->size; src++)
        if (src != me) {
            c->dev_in[src] = dev->alloc(w->dev_bytes);
            if (dev->ipc_export(c->dev_in[src], ipc_slot(w, src, me), err))
                return -1;
        }
    if (shm_barrier(&c->comm, err))
        return -1;
    for (int dst = 0; dst < w->size; dst++)
        if (dst != me && !(c->dev_out[dst] = dev->ipc_open(ipc_slot(w, me, dst), err)))
            return -1;
    return 0;
}
#line 2293 "chapters/02-shm.nw"
static void shm_close(Comm *comm)
{
    ShmComm *c = (ShmComm *)comm;
    char err[ERR_LEN];
    if (on_device(c)) {
        shm_barrier(comm, err);
        for (int r = 0; r < c->w->size; r++)
            if (c->dev_out[r])
                comm->dev->ipc_close(c->dev_out[r]);
#line 279 "chapters/08-direct.nw"
        for (int r = 0; r < c->w->size; r++)
            if (c->dev_window[r] && r != c->comm.rank)
                comm->dev->ipc_close(c->dev_window[r]);
#line 2303 "chapters/02-shm.nw"
        shm_barrier(comm, err); /* no peer maps this rank's memory any more */
        for (int r = 0; r < c->w->size; r++)
            if (c->dev_in[r])
                comm->dev->release(c->dev_in[r]);
#line 285 "chapters/08-direct.nw"
        if (c->dev_window[c->comm.rank])
            comm->dev->release(c->dev_window[c->comm.rank]);
#line 2308 "chapters/02-shm.nw"
    }
    free(c);
}

#line 2330 "chapters/02-shm.nw"
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
#line 2342 "chapters/02-shm.nw"
    c->w = w;
    long cores = cores_available();
    c->spin = w->size <= cores ? 20000 : 0;
#line 390 "chapters/08-direct.nw"
    if ((dev->kind == DEVICE_CPU && w->window) ||
        (dev->kind != DEVICE_CPU && dev->ipc_export && dev->ipc_open && dev->ipc_close)) {
        c->comm.alloc_shared = shm_alloc_shared;
        c->comm.peer_buffer = shm_peer_buffer;
        c->comm.progress = shm_progress;
        c->comm.advance = shm_advance;
        c->comm.wait_for = shm_wait_for;
    }
#line 2346 "chapters/02-shm.nw"
    if (dev->kind != DEVICE_CPU && open_device_rings(c, err)) {
        free(c);
        return NULL;
    }
    return &c->comm;
}

#line 2369 "chapters/02-shm.nw"
Comm *comm_shm_host(Comm *c, char *err)
{
    if (c->dev->kind == DEVICE_CPU)
        return c;
    return comm_shm_open(((ShmComm *)c)->w, c->rank, device_cpu(), err);
}

#line 2885 "chapters/02-shm.nw"
const TransportDef transport_shm = {
    .name = "shm",
    .title = "fork --n_gpus ranks on this machine, over shared memory",
    .open = comm_shm_open,
    .host = comm_shm_host,
};
