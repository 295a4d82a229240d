/* Helpers for tests that launch ranks over the shared-memory transport. Rank functions
 * run in child processes: they never assert, they return -1 with a message, and the
 * test asserts on what launch() returns. */
#ifndef DPS_TEST_RANKS_H
#define DPS_TEST_RANKS_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "comm_shm.h"
#include "device.h"
#include "helpers.h"
#include "launch.h"
#include "util.h"

/* The world of the current test, made before launch() and inherited by the ranks. */
static ShmWorld *test_world;

/* The device a rank tests on: DPS_TEST_DEVICE=cuda opens GPU rank % count (helpers.h). */
static inline const Device *rank_device(int rank, char *err)
{
    return open_test_device(rank, err);
}

/* In a rank: the communicator of test_world on the device under test. */
static inline Comm *rank_comm(int rank, char *err)
{
    const Device *dev = rank_device(rank, err);
    return dev ? comm_shm_open(test_world, rank, dev, err) : NULL;
}

/* Make a world of n ranks (channel of chan bytes, timeout in seconds), launch fn in each,
 * destroy the world. Returns launch()'s result; err holds its message. */
static inline int run_ranks(int n, size_t chan, double timeout, RankMain fn, void *arg,
                            double limit, char *err)
{
    test_world = shm_world_create(n, chan, timeout, err);
    if (!test_world)
        return -1;
    int rc = launch(n, fn, arg, limit, err);
    shm_world_destroy(test_world);
    test_world = NULL;
    return rc;
}

/* Launch fn on n ranks whose channels hold chan bytes (0: the default), as run_ranks does;
 * a failure fails the test with "WHAT, channels of CHAN bytes: the error", and hint after
 * it when a rank timed out on small channels. */
static inline void run_on_channels(int n, size_t chan, double timeout, RankMain fn,
                                   void *arg, double limit, const char *what,
                                   const char *hint)
{
    char err[ERR_LEN], channels[48] = "";
    if (chan)
        snprintf(channels, sizeof channels, ", channels of %zu bytes", chan);
    int rc = run_ranks(n, chan, timeout, fn, arg, limit, err);
    cr_assert(rc == 0, "%s%s: %s%s", what, channels, err,
              chan && strstr(err, "timed out") ? hint : "");
}

/* Memory shared by the test and its ranks (zeroed), for results the ranks leave behind. It
 * is a memory file held open, not anonymous memory, so that the autograder's jail can hand it
 * to the process that runs a student's function on it (a SenseBarrier: tests/jail/jail.h). */
static inline void *shared_zeroed(size_t bytes)
{
    int fd = memfd_create("dps-test-shared", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)bytes)) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        close(fd);
    return p == MAP_FAILED ? NULL : p;
}

/* The byte at position j of message i from src to dst: any lost, doubled or reordered
 * byte, or a message delivered to the wrong rank, changes it. */
static inline unsigned char msg_byte(int src, int dst, int i, size_t j)
{
    uint64_t x = (uint64_t)src * 1000003u + (uint64_t)dst * 10007u + (uint64_t)i * 101u + j;
    x ^= x >> 13;
    x *= 0x9E3779B97F4A7C15ull;
    return (unsigned char)(x >> 56);
}

/* Send message i of `bytes` to `to` (through the device: upload first). */
static inline int send_msg(Comm *c, int to, int i, size_t bytes, unsigned char *host,
                           void *dbuf, char *err)
{
    for (size_t j = 0; j < bytes; j++)
        host[j] = msg_byte(c->rank, to, i, j);
    c->dev->upload(dbuf, host, bytes);
    return c->send(c, to, dbuf, bytes, err);
}

/* Check that `bytes` of device buffer dbuf hold message i from `from` to this rank. */
static inline int check_msg(Comm *c, int from, int i, size_t bytes, unsigned char *host,
                            const void *dbuf, char *err)
{
    c->dev->download(host, dbuf, bytes);
    for (size_t j = 0; j < bytes; j++)
        if (host[j] != msg_byte(from, c->rank, i, j))
            return error_set(err, "message %d from rank %d to rank %d: byte %zu of %zu is %u, "
                             "expected %u", i, from, c->rank, j, bytes, host[j],
                             msg_byte(from, c->rank, i, j));
    return 0;
}

/* ceil(log2 n): rounds of a tree or a dissemination over n ranks. */
static inline int ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

/* After barrier round k, where each rank wrote its round into its own of the n slots before
 * it arrived: the first slot that holds neither k nor k + 1 (a rank the barrier let another
 * leave behind or run ahead of), or -1; what it holds in *v. */
static inline int slot_behind(_Atomic int *slot, int n, int k, int *v)
{
    for (int r = 0; r < n; r++) {
        *v = atomic_load(&slot[r]);
        if (*v != k && *v != k + 1)
            return r;
    }
    return -1;
}

/* Steps: the longest chain of messages behind what a rank holds, each send one step (a rank
 * that sends k messages in a row spends k steps), each receive raising the receiver to the
 * sender's count. A message carries its sender's count through this table, shared by the
 * ranks (made before they fork): per pair of ranks, the counts of the messages in flight, in
 * order, as the messages themselves are. */
#define STEP_RANKS 16
#define STEP_QUEUE 64
typedef struct StepClocks {
    long stamp[STEP_RANKS][STEP_RANKS][STEP_QUEUE];
    unsigned long put[STEP_RANKS][STEP_RANKS], got[STEP_RANKS][STEP_RANKS];
    int overflow; /* more than STEP_QUEUE messages in flight between two ranks */
} StepClocks;

/* A communicator that watches what a rank sends through it (messages, bytes, to whom, and,
 * with clocks, steps) and can abort the process at its die_at-th message, then passes
 * everything on. */
typedef struct Watched {
    Comm comm;
    Comm *inner;
    StepClocks *clocks;      /* NULL: no steps counted */
    long steps;              /* this rank's count */
    long msgs_to[64];        /* messages sent to each rank */
    long sends;              /* messages sent, by send or sendrecv */
    size_t bytes;            /* bytes sent */
    size_t bytes_to[64];     /* bytes sent to each rank */
    unsigned long long to;   /* bit q set: sent to rank q */
    unsigned long long from; /* bit q set: received from rank q */
    unsigned long long read; /* bit q set: asked for rank q's copy of a buffer (chapter 8) */
    long die_at;             /* > 0: abort() when sending message die_at */
} Watched;

static inline int watched_sent(Watched *w, int to, size_t bytes)
{
    /* atomic: a communication thread may send while the rank's own thread reads */
    if (__atomic_add_fetch(&w->sends, 1, __ATOMIC_SEQ_CST) == w->die_at)
        abort();
    w->bytes += bytes;
    w->bytes_to[to] += bytes;
    w->msgs_to[to]++;
    w->to |= 1ull << to;
    StepClocks *k = w->clocks;
    int me = w->comm.rank;
    if (k && me < STEP_RANKS && to < STEP_RANKS) { /* before the message leaves */
        unsigned long at = k->put[me][to];
        if (at - __atomic_load_n(&k->got[me][to], __ATOMIC_ACQUIRE) >= STEP_QUEUE)
            k->overflow = 1;
        k->stamp[me][to][at % STEP_QUEUE] = ++w->steps;
        __atomic_store_n(&k->put[me][to], at + 1, __ATOMIC_RELEASE);
    }
    return 0;
}
/* After a message from `from` has arrived: its sender's count. */
static inline void watched_got(Watched *w, int from)
{
    StepClocks *k = w->clocks;
    int me = w->comm.rank;
    if (!k || me >= STEP_RANKS || from >= STEP_RANKS)
        return;
    unsigned long at = k->got[from][me];
    if (at == __atomic_load_n(&k->put[from][me], __ATOMIC_ACQUIRE))
        return; /* not counted (sent before counting began) */
    long s = k->stamp[from][me][at % STEP_QUEUE];
    __atomic_store_n(&k->got[from][me], at + 1, __ATOMIC_RELEASE);
    if (s > w->steps)
        w->steps = s;
}
static inline int w_send(Comm *c, int to, const void *buf, size_t bytes, char *err)
{
    Watched *w = c->state;
    watched_sent(w, to, bytes);
    return w->inner->send(w->inner, to, buf, bytes, err);
}
static inline int w_recv(Comm *c, int from, void *buf, size_t bytes, char *err)
{
    Watched *w = c->state;
    w->from |= 1ull << from;
    int rc = w->inner->recv(w->inner, from, buf, bytes, err);
    if (rc == 0)
        watched_got(w, from);
    return rc;
}
static inline int w_sendrecv(Comm *c, int to, const void *s, size_t sb, int from, void *r,
                             size_t rb, char *err)
{
    Watched *w = c->state;
    watched_sent(w, to, sb);
    w->from |= 1ull << from;
    int rc = w->inner->sendrecv(w->inner, to, s, sb, from, r, rb, err);
    if (rc == 0)
        watched_got(w, from);
    return rc;
}
static inline int w_sendrecv2(Comm *c, const Exchange x[2], char *err)
{
    Watched *w = c->state;
    for (int i = 0; i < 2; i++) {
        watched_sent(w, x[i].to, x[i].sbytes);
        w->from |= 1ull << x[i].from;
    }
    int rc = w->inner->sendrecv2(w->inner, x, err);
    for (int i = 0; rc == 0 && i < 2; i++)
        watched_got(w, x[i].from);
    return rc;
}
static inline int w_barrier(Comm *c, char *err)
{
    Watched *w = c->state;
    return w->inner->barrier(w->inner, err);
}
static inline void w_close(Comm *c)
{
    Watched *w = c->state;
    w->inner->close(w->inner);
}

/* Chapter 8's members, passed on (and the peers whose buffers were asked for, noted). */
static inline void *w_alloc_shared(Comm *c, size_t bytes)
{
    Watched *w = c->state;
    return w->inner->alloc_shared(w->inner, bytes);
}
static inline void *w_peer_buffer(Comm *c, int peer, const void *mine)
{
    Watched *w = c->state;
    if (peer != c->rank)
        w->read |= 1ull << peer;
    return w->inner->peer_buffer(w->inner, peer, mine);
}
static inline uint32_t w_progress(Comm *c)
{
    Watched *w = c->state;
    return w->inner->progress(w->inner);
}
static inline void w_advance(Comm *c, uint32_t value)
{
    Watched *w = c->state;
    w->inner->advance(w->inner, value);
}
static inline int w_wait_for(Comm *c, int peer, uint32_t value, char *err)
{
    Watched *w = c->state;
    return w->inner->wait_for(w->inner, peer, value, err);
}

/* Wrap inner in *w; use the returned communicator. */
static inline Comm *watch(Watched *w, Comm *inner, long die_at)
{
    *w = (Watched){.comm = *inner, .inner = inner, .die_at = die_at};
    w->comm.send = w_send;
    w->comm.recv = w_recv;
    w->comm.sendrecv = w_sendrecv;
    w->comm.sendrecv2 = w_sendrecv2;
    w->comm.barrier = w_barrier;
    w->comm.close = w_close;
    if (inner->alloc_shared) {
        w->comm.alloc_shared = w_alloc_shared;
        w->comm.peer_buffer = w_peer_buffer;
        w->comm.progress = w_progress;
        w->comm.advance = w_advance;
        w->comm.wait_for = w_wait_for;
    }
    w->comm.state = w;
    return &w->comm;
}

/* In a rank: the CPU communicator of the test's world, watched in *w; NULL with err. */
static inline Comm *cpu_watched(int rank, Watched *w, char *err)
{
    Comm *inner = comm_shm_open(test_world, rank, device_cpu(), err);
    return inner ? watch(w, inner, 0) : NULL;
}

#endif
