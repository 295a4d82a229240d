/* The shared-memory transport: messages arrive whole, once, in order; sizes are checked;
 * waits end in errors that name the peer; barriers hold. */
#include <dirent.h>
#include <stdatomic.h>
#include <unistd.h>

#include "helpers.h"
#include "ranks.h"

enum { SMALL_CHANNEL = 4096, MESSAGES = 12 };

/* The size of message i from src to dst: 0 to 3 channels, a few fixed edge cases first. */
static size_t msg_size(int src, int dst, int i)
{
    static const size_t edge[] = {0, 1, 7, 8, 9, SMALL_CHANNEL / 4, SMALL_CHANNEL - 8,
                                  SMALL_CHANNEL, SMALL_CHANNEL + 1};
    if (i < (int)(sizeof edge / sizeof edge[0]))
        return edge[i];
    uint64_t x = (uint64_t)(src * 131 + dst * 17 + i) * 0x9E3779B97F4A7C15ull;
    return (size_t)(x >> 40) % (3 * SMALL_CHANNEL + 1);
}

/* Every rank exchanges MESSAGES messages with every other rank, by sendrecv in a shifted
 * schedule: at step s, send to r+s and receive from r-s (a ring of distance s). */
/* Every pair of ranks exchanges MESSAGES messages; with @p arg not NULL, the rank then looks
 * for names in /dev/shm among what it maps and holds, before closing its communicator. */
static int all_pairs(int rank, int size, void *arg, char *err)
{
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    size_t cap = 3 * SMALL_CHANNEL + 16;
    unsigned char *out = xcalloc(cap, 1), *in = xcalloc(cap, 1);
    void *dout = c->dev->alloc(cap), *din = c->dev->alloc(cap);
    for (int s = 1; s < size; s++) {
        int to = (rank + s) % size, from = (rank - s + size) % size;
        for (int i = 0; i < MESSAGES; i++) {
            size_t sb = msg_size(rank, to, i), rb = msg_size(from, rank, i);
            for (size_t j = 0; j < sb; j++)
                out[j] = msg_byte(rank, to, i, j);
            c->dev->upload(dout, out, sb);
            launch_phase("step %d message %d", s, i);
            if (c->sendrecv(c, to, dout, sb, from, din, rb, err) ||
                check_msg(c, from, i, rb, in, din, err))
                return -1;
        }
    }
    char what[1200];
    if (arg && names_in_dev_shm(0, what, sizeof what))
        return error_set(err, "rank %d names something in /dev/shm: %.400s", rank, what);
    c->close(c);
    return 0;
}

Test(comm, all_pairs_random_sizes_n2_to_8)
{
    char err[ERR_LEN];
    for (int n = 2; n <= 8; n++)
        cr_assert(run_ranks(n, SMALL_CHANNEL, 20, all_pairs, NULL, 60, err) == 0, "N = %d: %s",
                  n, err);
}

/* Rank 0 streams many messages to rank 1 without waiting for it: rank 1 starts late, and
 * rank 0 blocks only when the channel is full. Then the other way round, with recv. */
static int stream(int rank, int size, void *arg, char *err)
{
    (void)size;
    (void)arg;
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    enum { COUNT = 300 };
    size_t cap = 3 * SMALL_CHANNEL + 16;
    unsigned char *host = xcalloc(cap, 1);
    void *d = c->dev->alloc(cap);
    int peer = 1 - rank;
    for (int dir = 0; dir < 2; dir++) {
        if (rank == dir) {
            for (int i = 0; i < COUNT; i++)
                if (send_msg(c, peer, i, msg_size(rank, peer, i), host, d, err))
                    return -1;
        } else {
            usleep(50000);
            for (int i = 0; i < COUNT; i++) {
                size_t b = msg_size(peer, rank, i);
                if (c->recv(c, peer, d, b, err) || check_msg(c, peer, i, b, host, d, err))
                    return -1;
            }
        }
    }
    c->close(c);
    return 0;
}

Test(comm, many_messages_stream_in_order)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(2, SMALL_CHANNEL, 20, stream, NULL, 60, err) == 0, "%s", err);
}

/* Messages of 10x the channel, and an odd size past it, both ways at once and one way. */
static int big(int rank, int size, void *arg, char *err)
{
    (void)size;
    size_t chan = *(size_t *)arg, bytes = 10 * chan + 13;
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    unsigned char *host = xcalloc(bytes, 1);
    void *dout = c->dev->alloc(bytes), *din = c->dev->alloc(bytes);
    int peer = 1 - rank;
    for (size_t j = 0; j < bytes; j++)
        host[j] = msg_byte(rank, peer, 0, j);
    c->dev->upload(dout, host, bytes);
    if (c->sendrecv(c, peer, dout, bytes, peer, din, bytes, err) ||
        check_msg(c, peer, 0, bytes, host, din, err))
        return -1;
    if (rank == 0 ? send_msg(c, 1, 1, bytes, host, dout, err)
                  : c->recv(c, 0, din, bytes, err) || check_msg(c, 0, 1, bytes, host, din, err))
        return -1;
    c->close(c);
    return 0;
}

Test(comm, message_ten_times_the_channel)
{
    char err[ERR_LEN];
    size_t chans[] = {SMALL_CHANNEL, SHM_CHANNEL_BYTES};
    for (int i = 0; i < 2; i++)
        cr_assert(run_ranks(2, chans[i], 20, big, &chans[i], 60, err) == 0,
                  "channel %zu B: %s", chans[i], err);
}

/* sendrecv2, a ring's step both ways at once: every rank sends a message of 3x the channel
 * plus its rank to each neighbour and receives one from each, for N = 2 (both neighbours
 * are one rank: the two messages share a channel and must arrive in order) to 5, and with
 * a message of 0 bytes one way. Every byte is checked. */
static int both_ways(int rank, int size, void *arg, char *err)
{
    size_t chan = *(size_t *)arg;
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    size_t to_next = 3 * chan + (size_t)rank, to_prev = rank == 1 ? 0 : 2 * chan + 7;
    size_t from_prev = 3 * chan + (size_t)prev, from_next = next == 1 ? 0 : 2 * chan + 7;
    unsigned char *h1 = xcalloc(to_next + 1, 1), *h2 = xcalloc(to_prev + 1, 1);
    for (size_t j = 0; j < to_next; j++)
        h1[j] = msg_byte(rank, next, 0, j);
    for (size_t j = 0; j < to_prev; j++)
        h2[j] = msg_byte(rank, prev, 1, j);
    void *s1 = c->dev->alloc(to_next + 1), *s2 = c->dev->alloc(to_prev + 1);
    void *r1 = c->dev->alloc(from_prev + 1), *r2 = c->dev->alloc(from_next + 1);
    c->dev->upload(s1, h1, to_next);
    c->dev->upload(s2, h2, to_prev);
    Exchange x[2] = {
        {.to = next, .sbuf = s1, .sbytes = to_next, .from = prev, .rbuf = r1, .rbytes = from_prev},
        {.to = prev, .sbuf = s2, .sbytes = to_prev, .from = next, .rbuf = r2, .rbytes = from_next},
    };
    if (c->sendrecv2(c, x, err))
        return -1;
    unsigned char *want = xcalloc(from_prev + from_next + 1, 1);
    if (check_msg(c, prev, 0, from_prev, want, r1, err) ||
        check_msg(c, next, 1, from_next, want, r2, err))
        return -1;
    c->close(c);
    return 0;
}

Test(comm, sendrecv2_both_neighbours_at_once)
{
    char err[ERR_LEN];
    size_t chan = SMALL_CHANNEL;
    for (int n = 2; n <= 5; n++)
        cr_assert(run_ranks(n, chan, 20, both_ways, &chan, 60, err) == 0, "N = %d: %s", n, err);
}

/* A receiver that expects 800 bytes from a sender that sent 400 is told so. */
static int mismatch(int rank, int size, void *arg, char *err)
{
    (void)size;
    (void)arg;
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    void *d = c->dev->alloc(800);
    launch_phase("the conversation");
    if (rank == 0)
        return c->send(c, 1, d, 400, err) ? -1 : (sleep(10), 0);
    return c->recv(c, 0, d, 800, err);
}

Test(comm, length_mismatch_is_an_error)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(2, 0, 20, mismatch, NULL, 30, err) != 0, "the run succeeded");
    cr_assert(strstr(err, "rank 1") && strstr(err, "400 bytes") && strstr(err, "800 bytes"),
              "message: %s", err);
}

/* 10^4 barriers at 8 ranks. Round k: write k into my slot, barrier, then every slot must
 * hold k or k+1 (a rank may already have written k+1; none can be past that). */
static int barriers(int rank, int size, void *arg, char *err)
{
    _Atomic int *slot = arg;
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    for (int k = 1; k <= 10000; k++) {
        atomic_store(&slot[rank], k);
        if (rank == k % size && k % 1000 == 0)
            usleep(2000); /* a late rank now and then */
        if (c->barrier(c, err))
            return -1;
        for (int r = 0; r < size; r++) {
            int v = atomic_load(&slot[r]);
            if (v != k && v != k + 1)
                return error_set(err, "after barrier %d rank %d sees rank %d at %d", k, rank, r,
                                 v);
        }
    }
    c->close(c);
    return 0;
}

Test(comm, ten_thousand_barriers_at_8_ranks)
{
    char err[ERR_LEN];
    _Atomic int *slot = shared_zeroed(8 * sizeof *slot);
    cr_assert(slot);
    cr_assert(run_ranks(8, SMALL_CHANNEL, 20, barriers, slot, 100, err) == 0, "%s", err);
}

/* Rank 0 never sends; rank 1's receive must end in an error naming rank 0 and its phase. */
/* The silent rank names its phase, then raises *arg; the other starts its timed wait only
 * then, so the message can name the phase however late the silent rank was scheduled. */
static void announce(const char *phase, void *arg)
{
    launch_phase("%s", phase);
    __atomic_store_n((int *)arg, 1, __ATOMIC_SEQ_CST);
}

static void await_announcement(void *arg)
{
    while (!__atomic_load_n((int *)arg, __ATOMIC_SEQ_CST))
        usleep(1000);
}

static int silent(int rank, int size, void *arg, char *err)
{
    (void)size;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err); /* the transport alone */
    if (!c)
        return -1;
    if (rank == 0) {
        announce("sleeping on purpose", arg);
        sleep(30);
        return 0;
    }
    char buf[8];
    await_announcement(arg);
    launch_phase("waiting for rank 0");
    return c->recv(c, 0, buf, sizeof buf, err);
}

/* The receive's own time-out ends the run (the message says so), long before the silent
 * rank wakes (30 s) or the launcher's limit (600 s); the test's time-out (20 s) catches a hang. */
Test(comm, recv_from_a_silent_rank_times_out, .timeout = 20)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(2, 0, 0.5, silent, shared_zeroed(sizeof(int)), 600, err) != 0,
              "the run succeeded");
    cr_assert(strstr(err, "rank 1") && strstr(err, "recv from rank 0 timed out after 0.5 s") &&
              strstr(err, "sleeping on purpose"), "message: %s", err);
}

/* Rank 2 never comes to the barrier: the others' barrier names it. */
static int absent(int rank, int size, void *arg, char *err)
{
    (void)size;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err); /* the transport alone */
    if (!c)
        return -1;
    if (rank == 2) {
        announce("elsewhere", arg);
        sleep(30);
        return 0;
    }
    await_announcement(arg);
    return c->barrier(c, err);
}

Test(comm, barrier_names_the_rank_that_never_came)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(3, 0, 0.5, absent, shared_zeroed(sizeof(int)), 600, err) != 0,
              "the run succeeded");
    /* rank 1 may be named too, if it came to the barrier more than 0.5 s after rank 0 */
    cr_assert(strstr(err, "barrier timed out after 0.5 s waiting for rank(s) ") &&
              strstr(err, "2 ('elsewhere')"), "message: %s", err);
}

/* Bad peers are refused with a message, not a crash or a hang. */
static int bad_peer(int rank, int size, void *arg, char *err)
{
    (void)size;
    (void)arg;
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    char buf[4];
    char e1[ERR_LEN], e2[ERR_LEN];
    if (c->send(c, rank, buf, 4, e1) == 0 || c->recv(c, 7, buf, 4, e2) == 0)
        return error_set(err, "a message to itself or to rank 7 was accepted");
    if (!strstr(e1, "no such peer") || !strstr(e2, "no such peer"))
        return error_set(err, "unexpected messages: '%s', '%s'", e1, e2);
    c->close(c);
    return 0;
}

Test(comm, bad_peers_are_refused)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(2, 0, 30, bad_peer, NULL, 60, err) == 0, "%s", err);
}

/* The channels and the barrier live in memory mapped before fork() without a name, so
 * nothing can be left behind in /dev/shm whatever dies when: every rank, with its
 * communicator open and used, maps and holds nothing named there. */
Test(comm, nothing_named_is_left_in_dev_shm)
{
    char err[ERR_LEN];
    static int look = 1;
    cr_assert(run_ranks(4, SMALL_CHANNEL, 20, all_pairs, &look, 60, err) == 0, "%s", err);
}
