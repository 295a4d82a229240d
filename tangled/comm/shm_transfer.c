/**
 * @file shm_transfer.c
 * @brief The shared-memory transport: messages through the channels (send, recv, sendrecv,
 *        sendrecv2) (chapter 2).
 */
#line 2662 "chapters/02-shm.nw"
#include "shm_internal.h"

#include <string.h>
#include <sys/mman.h>

#include "launch.h"
#include "util.h"

#line 1521 "chapters/02-shm.nw"
/** Once per channel, a bit per peer in @p done: map in its ring's pages. */
static void map_in(const ShmWorld *w, uint64_t *done, int peer, void *ring)
{
    if (*done >> peer & 1)
        return;
    *done |= (uint64_t)1 << peer;
    madvise(ring, w->host_bytes, MADV_POPULATE_WRITE);
}
#line 1717 "chapters/02-shm.nw"
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

#line 1682 "chapters/02-shm.nw"
bool shm_on_device(const ShmComm *c)
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
    uint64_t h = (uint64_t)bytes | (shm_on_device(c) ? ON_DEVICE : 0);
    for (int i = 0; i < 8; i++)
        t.header[i] = (unsigned char)(h >> (8 * i));
    return t;
}
#line 1741 "chapters/02-shm.nw"
static size_t progress_send(ShmComm *c, Transfer *t)
{
    ShmWorld *w = c->w;
    int me = c->comm.rank;
    ChannelCtl *ch = shm_channel(w, me, t->peer);
    unsigned char *ring = shm_host_ring(w, me, t->peer);
    size_t moved = 0, k;
    if (t->header_done < 8) {
        k = shm_ring_push(&ch->host, ring, w->host_bytes, t->header + t->header_done,
                          8 - t->header_done, host_copy);
        t->header_done += k;
        moved += k;
    }
    if (t->header_done == 8 && t->done < t->bytes) {
#line 1776 "chapters/02-shm.nw"
        if (shm_on_device(c))
            k = shm_ring_push(&ch->dev, c->dev_out[t->peer], w->dev_bytes, t->buf + t->done,
                              t->bytes - t->done, c->comm.dev->peer_copy);
        else
            k = shm_ring_push(&ch->host, ring, w->host_bytes, t->buf + t->done,
                              t->bytes - t->done, host_copy);
#line 1756 "chapters/02-shm.nw"
        t->done += k;
        moved += k;
    }
    if (moved)
        shm_ring_bell(w, t->peer);
    return moved;
}
#line 1793 "chapters/02-shm.nw"
static long progress_recv(ShmComm *c, Transfer *t, char *err)
{
    ShmWorld *w = c->w;
    int me = c->comm.rank;
    ChannelCtl *ch = shm_channel(w, t->peer, me);
    const unsigned char *ring = shm_host_ring(w, t->peer, me);
    size_t moved = 0, k;
    if (t->header_done < 8) {
        unsigned char got[8];
        k = shm_ring_pop(&ch->host, ring, w->host_bytes, got, 8 - t->header_done, host_copy);
#line 1840 "chapters/02-shm.nw"
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
                             shm_on_device(c) ? "device" : "host", t->bytes);
        }
#line 1804 "chapters/02-shm.nw"
        t->header_done += k;
        moved += k;
    }
    if (t->header_done == 8 && t->done < t->bytes) {
#line 1828 "chapters/02-shm.nw"
        if (shm_on_device(c))
            k = shm_ring_pop(&ch->dev, c->dev_in[t->peer], w->dev_bytes, t->buf + t->done,
                             t->bytes - t->done, c->comm.dev->peer_copy);
        else
            k = shm_ring_pop(&ch->host, ring, w->host_bytes, t->buf + t->done,
                             t->bytes - t->done, host_copy);
#line 1809 "chapters/02-shm.nw"
        t->done += k;
        moved += k;
    }
    if (moved)
        shm_ring_bell(w, t->peer);
    return (long)moved;
}
#line 1917 "chapters/02-shm.nw"
/** The transfer a wait is for: a receive first, since a send waits on its peer only when
 * the ring is full. */
static const Transfer *pending(Transfer *const out[2], Transfer *const in[2])
{
    return !finished(in[0])    ? in[0]
           : !finished(in[1])  ? in[1]
           : !finished(out[0]) ? out[0]
                               : out[1];
#line 1923 "chapters/02-shm.nw"
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
#line 1934 "chapters/02-shm.nw"
}

#line 1881 "chapters/02-shm.nw"
static int exchange(ShmComm *c, Transfer *out[2], Transfer *in[2], char *err)
{
    Bell *b = &c->w->bell[c->comm.rank];
    double deadline = 0; /* set when we first have to wait after a move */
#line 1510 "chapters/02-shm.nw"
    for (int i = 0; i < 2; i++) {
        if (out[i])
            map_in(c->w, &c->mapped_out, out[i]->peer,
                   shm_host_ring(c->w, c->comm.rank, out[i]->peer));
        if (in[i])
            map_in(c->w, &c->mapped_in, in[i]->peer,
                   shm_host_ring(c->w, in[i]->peer, c->comm.rank));
    }
#line 1886 "chapters/02-shm.nw"
    while (!finished(out[0]) || !finished(out[1]) || !finished(in[0]) || !finished(in[1])) {
#line 1888 "chapters/02-shm.nw"
        uint32_t seen = atomic_load(&b->seq);
#line 1951 "chapters/02-shm.nw"
        size_t moved = 0;
        for (int i = 0; i < 2; i++) {
            if (!finished(out[i]) &&
                (i == 0 || finished(out[0]) || out[0]->peer != out[1]->peer))
                moved += progress_send(c, out[i]);
#line 1955 "chapters/02-shm.nw"
            if (!finished(in[i]) && (i == 0 || finished(in[0]) || in[0]->peer != in[1]->peer)) {
                long k = progress_recv(c, in[i], err);
                if (k < 0)
                    return -1;
                moved += (size_t)k;
            }
        }
#line 1890 "chapters/02-shm.nw"
        if (moved) {
            deadline = 0;
            continue;
        }
        if (deadline == 0)
            deadline = now_seconds() + c->w->timeout;
        launch_waiting(pending(out, in)->peer);
        if (shm_wait_bell(c, seen, deadline))
            return timed_out(c, out, in, err);
    }
    launch_waiting(-1);
    return 0;
}
#line 2023 "chapters/02-shm.nw"
static int check_peer(const Comm *c, int peer, const char *what, char *err)
{
    if (peer < 0 || peer >= c->size || peer == c->rank)
        return error_set(err, "%s rank %d: no such peer (rank %d of %d)", what, peer, c->rank,
                         c->size);
#line 2029 "chapters/02-shm.nw"
    return 0;
}

#line 2042 "chapters/02-shm.nw"
int shm_send(Comm *comm, int to, const void *buf, size_t bytes, char *err)
{
    ShmComm *c = (ShmComm *)comm;
    if (check_peer(comm, to, "send to", err))
        return -1;
    Transfer t = transfer(c, to, buf, bytes);
    return exchange(c, (Transfer *[2]){&t, NULL}, (Transfer *[2]){NULL, NULL}, err);
}

int shm_recv(Comm *comm, int from, void *buf, size_t bytes, char *err)
{
    ShmComm *c = (ShmComm *)comm;
    if (check_peer(comm, from, "recv from", err))
        return -1;
    Transfer t = transfer(c, from, buf, bytes);
    return exchange(c, (Transfer *[2]){NULL, NULL}, (Transfer *[2]){&t, NULL}, err);
}

#line 1979 "chapters/02-shm.nw"
int shm_sendrecv(Comm *comm, int to, const void *sbuf, size_t sbytes, int from, void *rbuf,
                 size_t rbytes, char *err)
{
    ShmComm *c = (ShmComm *)comm;
    if (check_peer(comm, to, "send to", err) || check_peer(comm, from, "recv from", err))
        return -1;
    Transfer out = transfer(c, to, sbuf, sbytes), in = transfer(c, from, rbuf, rbytes);
    return exchange(c, (Transfer *[2]){&out, NULL}, (Transfer *[2]){&in, NULL}, err);
}

#line 1999 "chapters/02-shm.nw"
int shm_sendrecv2(Comm *comm, const Exchange x[2], char *err)
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
