/* The jail's host (jail.h): the only process that loads the student's code. The judge
 * starts it as the unprivileged user; it opens the student's shared object (argv[1]) and
 * runs each call the judge sends on copies of the inputs, sending back the outputs. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jail.h"
#include "util.h"

/* A buffer of `bytes` that ends (to within 15 bytes, for alignment) at a page that may not be
 * touched: a write past its end crashes here, as it would corrupt the caller's memory. */
static void *guarded(size_t bytes, void **base_out, size_t *mapped)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (bytes + page - 1) / page * page;
    unsigned char *base = mmap(NULL, body + page, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        fprintf(stderr, "jail: no memory for a buffer of %zu bytes\n", bytes);
        exit(125);
    }
    mprotect(base + body, page, PROT_NONE);
    *mapped = body + page, *base_out = base;
    return base + ((body - bytes) & ~(size_t)15);
}

void wire_buf(Wire *w, void *pp, size_t bytes, int how)
{
    void **p = pp;
    if (w->pass == CALL_TAKE) {
        unsigned char null = 1;
        msg_take(w->m, &null, 1);
        const void *src = null ? NULL : msg_view(w->m, bytes);
        *p = NULL;
        if (null || !src || w->n_held == (int)(sizeof w->held / sizeof *w->held))
            return;
        *p = guarded(bytes, &w->held[w->n_held], &w->held_bytes[w->n_held]);
        w->n_held++;
        if (bytes)
            memcpy(*p, src, bytes);
    } else if (w->pass == BACK_PUT && (how & WIRE_BACK) && *p && bytes)
        msg_put(w->m, *p, bytes);
}

void wire_device(Wire *w, const Device **d)
{
    if (w->pass == CALL_TAKE)
        *d = device_cpu();
}

/* The remote communicator: each operation a request to the judge, which carries it out. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int ask(uint32_t op, Msg *q, void *r0, size_t n0, void *r1, size_t n1, char *err)
{
    uint32_t got;
    int32_t rc = -1;
    Msg a = {0};
    pthread_mutex_lock(&lock);
    if (msg_send(JAIL_FD, op, q) || msg_recv(JAIL_FD, &got, &a) || got != JAIL_REPLY)
        exit(124); /* the judge is gone */
    pthread_mutex_unlock(&lock);
    msg_take(&a, &rc, 4);
    if (err)
        msg_take(&a, err, ERR_LEN), err[ERR_LEN - 1] = 0;
    else
        msg_view(&a, ERR_LEN);
    if (rc == 0 && n0)
        msg_take(&a, r0, n0);
    if (rc == 0 && n1)
        msg_take(&a, r1, n1);
    msg_free(&a);
    msg_free(q);
    return rc ? -1 : 0;
}

static void put_send(Msg *q, int to, const void *buf, size_t bytes)
{
    int32_t t = to;
    uint64_t n = bytes;
    msg_put(q, &t, 4);
    msg_put(q, &n, 8);
    msg_put(q, buf, bytes);
}

static void put_recv(Msg *q, int from, size_t bytes)
{
    int32_t f = from;
    uint64_t n = bytes;
    msg_put(q, &f, 4);
    msg_put(q, &n, 8);
}

static int r_send(Comm *c, int to, const void *buf, size_t bytes, char *err)
{
    (void)c;
    Msg q = {0};
    put_send(&q, to, buf, bytes);
    return ask(JAIL_SEND, &q, NULL, 0, NULL, 0, err);
}

static int r_recv(Comm *c, int from, void *buf, size_t bytes, char *err)
{
    (void)c;
    Msg q = {0};
    put_recv(&q, from, bytes);
    return ask(JAIL_RECV, &q, buf, bytes, NULL, 0, err);
}

static int r_sendrecv(Comm *c, int to, const void *sbuf, size_t sbytes, int from, void *rbuf,
                      size_t rbytes, char *err)
{
    (void)c;
    Msg q = {0};
    put_send(&q, to, sbuf, sbytes);
    put_recv(&q, from, rbytes);
    return ask(JAIL_SENDRECV, &q, rbuf, rbytes, NULL, 0, err);
}

static int r_sendrecv2(Comm *c, const Exchange x[2], char *err)
{
    (void)c;
    Msg q = {0};
    for (int i = 0; i < 2; i++) {
        put_send(&q, x[i].to, x[i].sbuf, x[i].sbytes);
        put_recv(&q, x[i].from, x[i].rbytes);
    }
    return ask(JAIL_SENDRECV2, &q, x[0].rbuf, x[0].rbytes, x[1].rbuf, x[1].rbytes, err);
}

static int r_barrier(Comm *c, char *err)
{
    (void)c;
    Msg q = {0};
    return ask(JAIL_BARRIER, &q, NULL, 0, NULL, 0, err);
}

static int r_allreduce(Comm *c, float *buf, size_t count, char *err)
{
    (void)c;
    Msg q = {0};
    uint64_t n = count;
    msg_put(&q, &n, 8);
    msg_put(&q, buf, count * 4);
    return ask(JAIL_ALLREDUCE, &q, buf, count * 4, NULL, 0, err);
}

static void r_close(Comm *c)
{
    (void)c; /* the test's communicator is the test's to close */
}

void wire_comm(Wire *w, Comm **c)
{
    static Comm remote;
    static char name[32];
    int32_t v[3];
    if (w->pass != CALL_TAKE)
        return;
    msg_take(w->m, v, sizeof v);
    msg_take(w->m, name, sizeof name);
    name[sizeof name - 1] = 0;
    if (v[0] < 0) {
        *c = NULL;
        return;
    }
    remote = (Comm){name, v[0], v[1], device_cpu(), r_send, r_recv, r_sendrecv,
                    v[2] & 1 ? r_sendrecv2 : NULL, r_barrier, r_close,
                    v[2] & 2 ? r_allreduce : NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    *c = &remote;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s STUDENT.so (started by the autograder's jail)\n", argv[0]);
        return 2;
    }
    void *student = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!student) {
        fprintf(stderr, "jail: cannot load the exercise: %s\n", dlerror());
        return 126;
    }
    Msg m = {0};
    uint32_t op, id;
    while (msg_recv(JAIL_FD, &op, &m) == 0) {
        if (op != JAIL_CALL || msg_take(&m, &id, 4) || id >= (uint32_t)jail_n_entries)
            return 125;
        const JailEntry *e = &jail_entries[id];
        void *args = calloc(1, e->args), *fn = dlsym(student, e->name);
        Wire w = {CALL_TAKE, &m, NULL, NULL, {0}, {0}, 0};
        e->visit(&w, args);
        if (m.bad || m.pos != m.len)
            return 125;
        Msg r = {0};
        if (fn) {
            e->call(args, fn);
            w.pass = BACK_PUT, w.m = &r;
            e->visit(&w, args);
        }
        if (msg_send(JAIL_FD, fn ? JAIL_RESULT : JAIL_MISSING, &r))
            return 124;
        msg_free(&r);
        for (int i = 0; i < w.n_held; i++)
            munmap(w.held[i], w.held_bytes[i]);
        free(args);
    }
    return 0;
}
