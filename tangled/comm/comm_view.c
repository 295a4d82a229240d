/**
 * @file comm_view.c
 * @brief A communicator of some of another's ranks: each call passed on to the parent with
 *        its ranks translated (chapter 9).
 */
#line 145 "chapters/09-hosts.nw"
#include "comm_view.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#line 163 "chapters/09-hosts.nw"
/** A view: its parent, and the parent's rank of each of its ranks. */
typedef struct View {
    Comm *parent; /**< the communicator the view's calls go through */
    int *members; /**< members[i]: the parent's rank of the view's rank i */
} View;

static Comm *parent_of(const Comm *c)
{
    return ((const View *)c->state)->parent;
}

/** The parent's rank of the view's rank @p r. */
static int up(const Comm *c, int r)
{
    return ((const View *)c->state)->members[r];
}
#line 187 "chapters/09-hosts.nw"
static int view_send(Comm *c, int to, const void *buf, size_t bytes, char *err)
{
    return parent_of(c)->send(parent_of(c), up(c, to), buf, bytes, err);
}

static int view_recv(Comm *c, int from, void *buf, size_t bytes, char *err)
{
    return parent_of(c)->recv(parent_of(c), up(c, from), buf, bytes, err);
}

static int view_sendrecv(Comm *c, int to, const void *sbuf, size_t sbytes, int from, void *rbuf,
                         size_t rbytes, char *err)
{
    return parent_of(c)->sendrecv(parent_of(c), up(c, to), sbuf, sbytes, up(c, from), rbuf,
                                  rbytes, err);
}

static int view_sendrecv2(Comm *c, const Exchange x[2], char *err)
{
    Exchange y[2] = {x[0], x[1]};
    for (int i = 0; i < 2; i++)
        y[i].to = up(c, x[i].to), y[i].from = up(c, x[i].from);
    return parent_of(c)->sendrecv2(parent_of(c), y, err);
}
#line 226 "chapters/09-hosts.nw"
static int view_barrier(Comm *c, char *err)
{
    if (c->rank != 0) /* arrive, then wait to be let go */
        return c->send(c, 0, NULL, 0, err) || c->recv(c, 0, NULL, 0, err) ? -1 : 0;
    for (int r = 1; r < c->size; r++)
        if (c->recv(c, r, NULL, 0, err))
            return -1;
    for (int r = 1; r < c->size; r++)
        if (c->send(c, r, NULL, 0, err))
            return -1;
    return 0;
}
#line 248 "chapters/09-hosts.nw"
static void *view_alloc_shared(Comm *c, size_t bytes)
{
    return parent_of(c)->alloc_shared(parent_of(c), bytes);
}

static void *view_peer_buffer(Comm *c, int peer, const void *mine)
{
    return parent_of(c)->peer_buffer(parent_of(c), up(c, peer), mine);
}

static uint32_t view_progress(Comm *c)
{
    return parent_of(c)->progress(parent_of(c));
}

static void view_advance(Comm *c, uint32_t value)
{
    parent_of(c)->advance(parent_of(c), value);
}

static int view_wait_for(Comm *c, int peer, uint32_t value, char *err)
{
    return parent_of(c)->wait_for(parent_of(c), up(c, peer), value, err);
}
#line 279 "chapters/09-hosts.nw"
static void view_close(Comm *c)
{
    free(((View *)c->state)->members);
    free(c->state);
    free(c);
}

Comm *comm_view(Comm *parent, const int *members, int n, char *err)
{
    int me = -1;
    for (int i = 0; i < n; i++) {
        if (members[i] < 0 || members[i] >= parent->size)
            return error_set(err, "a view's member %d is not a rank of %d", members[i],
                             parent->size),
                   NULL;
#line 293 "chapters/09-hosts.nw"
        for (int j = 0; j < i; j++)
            if (members[j] == members[i])
                return error_set(err, "a view names rank %d twice", members[i]), NULL;
        if (members[i] == parent->rank)
            me = i;
    }
    if (me < 0)
        return error_set(err, "rank %d is not in its own view", parent->rank), NULL;
#line 307 "chapters/09-hosts.nw"
    View *v = xcalloc(1, sizeof *v);
    v->parent = parent;
    v->members = xcalloc((size_t)n, sizeof *v->members);
    memcpy(v->members, members, (size_t)n * sizeof *members);
    Comm *c = xcalloc(1, sizeof *c);
    bool windows = parent->alloc_shared != NULL;
    *c = (Comm){.name = "view",
                .rank = me,
                .size = n,
                .dev = parent->dev,
                .send = view_send,
                .recv = view_recv,
                .sendrecv = view_sendrecv,
                .sendrecv2 = view_sendrecv2,
                .barrier = view_barrier,
                .close = view_close,
                .state = v,
                .alloc_shared = windows ? view_alloc_shared : NULL,
                .peer_buffer = windows ? view_peer_buffer : NULL,
                .progress = windows ? view_progress : NULL,
                .advance = windows ? view_advance : NULL,
                .wait_for = windows ? view_wait_for : NULL};
#line 302 "chapters/09-hosts.nw"
    return c;
}
