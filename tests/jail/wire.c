/* The jail's messages, and the argument passes both sides share (jail.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "jail.h"

void *msg_room(Msg *m, size_t n)
{
    if (m->len + n > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->len + n)
            cap *= 2;
        unsigned char *d = realloc(m->data, cap);
        if (!d)
            abort();
        m->data = d, m->cap = cap;
    }
    void *p = m->data + m->len;
    m->len += n;
    return p;
}

void msg_put(Msg *m, const void *p, size_t n)
{
    if (n)
        memcpy(msg_room(m, n), p, n);
}

const void *msg_view(Msg *m, size_t n)
{
    if (m->bad || n > m->len - m->pos) {
        m->bad = 1;
        return NULL;
    }
    const void *p = m->data + m->pos;
    m->pos += n;
    return p;
}

int msg_take(Msg *m, void *p, size_t n)
{
    const void *q = msg_view(m, n);
    if (!q)
        return -1;
    if (n)
        memcpy(p, q, n);
    return 0;
}

void msg_free(Msg *m)
{
    free(m->data);
    *m = (Msg){0};
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k, n -= (size_t)k;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t k = read(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k, n -= (size_t)k;
    }
    return 0;
}

int msg_send(int fd, uint32_t op, const Msg *m)
{
    Frame f = {op, 0, m ? m->len : 0};
    return write_all(fd, &f, sizeof f) || (f.len && write_all(fd, m->data, f.len)) ? -1 : 0;
}

int msg_recv(int fd, uint32_t *op, Msg *m)
{
    Frame f;
    m->len = m->pos = 0, m->bad = 0;
    if (read_all(fd, &f, sizeof f) || f.zero || f.len > JAIL_MAX_BYTES + 65536)
        return -1;
    *op = f.op;
    return f.len ? read_all(fd, msg_room(m, f.len), f.len) : 0;
}

void wire_in(Wire *w, void *p, size_t n)
{
    if (w->pass == CALL_PUT)
        msg_put(w->m, p, n);
    else if (w->pass == CALL_TAKE)
        msg_take(w->m, p, n);
}

void wire_result(Wire *w, void *p, size_t n)
{
    if (w->pass == BACK_PUT)
        msg_put(w->m, p, n);
    else if (w->pass == BACK_TAKE)
        msg_take(w->m, p, n);
}
