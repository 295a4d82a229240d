/* Communicators that the tests of chapter 2's exercises wrap around the transport's, public
 * and hidden: one that keeps a logical clock, one whose first call fails on one rank, and a
 * barrier that an exercise must not call. */
#ifndef DPS_TEST_WRAPPERS_H
#define DPS_TEST_WRAPPERS_H

#include "ranks.h"

/* The exercise must build its barrier from messages, not call the transport's own. */
static inline int no_barrier(Comm *c, char *err)
{
    (void)c;
    return error_set(err, "the exercise must not call the transport's own barrier");
}

/* In a rank: the CPU communicator of the test's world, watched in *w, with no barrier of
 * its own (no_barrier); NULL with err. */
static inline Comm *watched_without_barrier(int rank, Watched *w, char *err)
{
    Comm *c = cpu_watched(rank, w, err);
    if (c)
        c->barrier = no_barrier;
    return c;
}

/* A communicator that keeps a logical clock: every send is one tick and carries the clock
 * (in an 8-byte message of its own before the payload); a receive moves the clock to the
 * sender's if that is later. After a broadcast, a rank's clock is the number of sends, one
 * after another, that the data needed to reach it: a star's last rank is at N-1, a chain's
 * at N-1, a binomial tree's at ceil(log2 N). */
typedef struct Clocked {
    Comm comm;
    Comm *inner;
    long clock;
    long sends;
    long recvs;
} Clocked;

static inline int k_send(Comm *c, int to, const void *buf, size_t bytes, char *err)
{
    Clocked *w = c->state;
    long t = ++w->clock;
    w->sends++;
    if (w->inner->send(w->inner, to, &t, sizeof t, err))
        return -1;
    return w->inner->send(w->inner, to, buf, bytes, err);
}
static inline int k_recv(Comm *c, int from, void *buf, size_t bytes, char *err)
{
    Clocked *w = c->state;
    long t;
    w->recvs++;
    if (w->inner->recv(w->inner, from, &t, sizeof t, err))
        return -1;
    if (t > w->clock)
        w->clock = t;
    return w->inner->recv(w->inner, from, buf, bytes, err);
}
static inline int k_sendrecv(Comm *c, int to, const void *s, size_t sb, int from, void *r,
                             size_t rb, char *err)
{
    Clocked *w = c->state;
    long out = ++w->clock, in;
    w->sends++;
    w->recvs++;
    if (w->inner->sendrecv(w->inner, to, &out, sizeof out, from, &in, sizeof in, err))
        return -1;
    if (in > w->clock)
        w->clock = in;
    return w->inner->sendrecv(w->inner, to, s, sb, from, r, rb, err);
}

/* Wrap inner in *w, its clock at 0; use the returned communicator. */
static inline Comm *clocked(Clocked *w, Comm *inner)
{
    *w = (Clocked){.comm = *inner, .inner = inner};
    w->comm.send = k_send;
    w->comm.recv = k_recv;
    w->comm.sendrecv = k_sendrecv;
    w->comm.state = w;
    return &w->comm;
}

/* A communicator whose first call, once it has moved its message, reports the error `why`
 * (a send only with sends_fail), and that counts the calls made to it. */
typedef struct Failing {
    Comm comm;
    Comm *inner;
    int calls;
    int sends_fail;
    const char *why;
} Failing;

static inline int f_failed(Failing *f, char *err)
{
    return f->calls == 1 ? error_set(err, "%s", f->why) : 0;
}
static inline int f_send(Comm *c, int to, const void *buf, size_t bytes, char *err)
{
    Failing *f = c->state;
    f->calls++;
    if (f->inner->send(f->inner, to, buf, bytes, err))
        return -1;
    return f->sends_fail ? f_failed(f, err) : 0;
}
static inline int f_recv(Comm *c, int from, void *buf, size_t bytes, char *err)
{
    Failing *f = c->state;
    f->calls++;
    if (f->inner->recv(f->inner, from, buf, bytes, err))
        return -1;
    return f_failed(f, err);
}
static inline int f_sendrecv(Comm *c, int to, const void *s, size_t sb, int from, void *r,
                             size_t rb, char *err)
{
    Failing *f = c->state;
    f->calls++;
    if (f->inner->sendrecv(f->inner, to, s, sb, from, r, rb, err))
        return -1;
    return f_failed(f, err);
}

/* What an exercise returned through a Failing communicator, and the calls it made to it. */
typedef struct Outcome {
    int rc, calls;
    char err[ERR_LEN];
} Outcome;

/* An exercise called on communicator c. */
typedef int (*OnComm)(Comm *c, void *arg, char *err);

/* In a rank: @p call through a Failing communicator around inner, whose barrier is @p
 * barrier; what it returned into *o. */
static inline void through_failing(Comm *inner, int sends_fail, const char *why,
                                   int (*barrier)(Comm *, char *), OnComm call, void *arg,
                                   Outcome *o)
{
    Failing f = {.comm = *inner, .inner = inner, .sends_fail = sends_fail, .why = why};
    f.comm.send = f_send;
    f.comm.recv = f_recv;
    f.comm.sendrecv = f_sendrecv;
    f.comm.barrier = barrier;
    f.comm.state = &f;
    o->err[0] = '\0';
    o->rc = call(&f.comm, arg, o->err);
    o->calls = f.calls;
}

/* Launch fn on n ranks (channels of chan bytes, waits of timeout s, limit s in all) with a
 * shared Outcome for it to fill; the test fails if a rank does. */
static inline Outcome *outcome_of(int n, size_t chan, double timeout, RankMain fn,
                                  double limit)
{
    Outcome *o = shared_zeroed(sizeof *o);
    cr_assert(o);
    char err[ERR_LEN];
    cr_assert(run_ranks(n, chan, timeout, fn, o, limit, err) == 0, "%d ranks: %s", n, err);
    return o;
}

#endif
