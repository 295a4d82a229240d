/* The jail's judge side (jail.h): the proxies' half, in the test's own process. It starts
 * the host, sends it each call's inputs, carries out its communicator's requests on the
 * test's communicator, and puts the outputs back where the test expects them. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail.h"
#include "util.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t owner, host; /* the process the host serves, and the host */
static int sock = -1;

/* Stop this process as the host stopped: a student's crash is the test's crash. */
static _Noreturn void host_gone(const char *what)
{
    int st = 0;
    if (host > 0 && waitpid(host, &st, 0) == host && WIFSIGNALED(st)) {
        fprintf(stderr, "jail: the exercise's code was killed by signal %d (%s)\n",
                WTERMSIG(st), strsignal(WTERMSIG(st)));
        signal(WTERMSIG(st), SIG_DFL);
        raise(WTERMSIG(st));
    } else if (host > 0 && WIFEXITED(st))
        fprintf(stderr, "jail: the exercise's code ended its process (exit status %d)\n",
                WEXITSTATUS(st));
    else
        fprintf(stderr, "jail: %s\n", what);
    abort();
}

/* In the child: become the unprivileged user when root, then run the host on the student's
 * shared object. Only the host loads it, with dlopen. */
static _Noreturn void become_host(int fd, pid_t parent)
{
    const char *path = getenv("JAIL_HOST"), *student = getenv("JAIL_STUDENT");
    const char *u = getenv("JAIL_UID");
    uid_t uid = u && *u ? (uid_t)atol(u) : 65534;
    if (!path || !student) {
        fprintf(stderr, "jail: JAIL_HOST and JAIL_STUDENT must name the host and the exercise\n");
        _exit(127);
    }
    if (fd == JAIL_FD ? fcntl(fd, F_SETFD, 0) < 0 : dup2(fd, JAIL_FD) < 0)
        _exit(127);
    for (int f = JAIL_FD + 1; f < 1024; f++)
        close(f);
    if (geteuid() == 0 && (setgroups(0, NULL) || setgid(uid) || setuid(uid) || setuid(0) == 0)) {
        fprintf(stderr, "jail: could not become user %u\n", (unsigned)uid);
        _exit(127);
    }
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* after the setuid, which clears it */
    if (getppid() != parent)
        _exit(127);
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    char *argv[] = {(char *)path, (char *)student, NULL};
    char *envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
    execve(path, argv, envp);
    fprintf(stderr, "jail: cannot run %s: %s\n", path, strerror(errno));
    _exit(127);
}

/* The host of this process, started on its first call (a forked rank starts its own). */
static void start_host(void)
{
    int sv[2];
    if (sock >= 0)
        close(sock);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        host_gone("socketpair failed");
    pid_t parent = getpid(), pid = fork();
    if (pid < 0)
        host_gone("fork failed");
    if (pid == 0) {
        close(sv[0]);
        become_host(sv[1], parent);
    }
    close(sv[1]);
    sock = sv[0], host = pid, owner = parent;
}

/* A buffer of the communicator's device holding n bytes of the message (or room for them). */
static void *on_device(const Device *d, const void *src, size_t n)
{
    void *p = d->alloc(n ? n : 1);
    if (p && src && n)
        d->upload(p, src, n);
    return p;
}

/* Carry out one of the host's communicator requests on the test's communicator c, and
 * answer it: rc, err, and what was received. A request that does not parse, or names a
 * rank or a length the communicator cannot have, is answered as an error. */
static void serve(Comm *c, uint32_t op, Msg *m)
{
    Msg r = {0};
    int32_t rc = -1, peer[4] = {0};
    uint64_t n[4] = {0};
    char err[ERR_LEN] = "";
    const void *data[2] = {0};
    void *got[2] = {0}, *sent[2] = {0};
    int k = op == JAIL_SENDRECV2 ? 2 : 1;
    const Device *d = c->dev;
    for (int x = 0; x < k; x++) {
        int sends = op == JAIL_SEND || op == JAIL_SENDRECV || op == JAIL_SENDRECV2;
        int recvs = op == JAIL_RECV || op == JAIL_SENDRECV || op == JAIL_SENDRECV2;
        if (sends && (msg_take(m, &peer[2 * x], 4) || msg_take(m, &n[2 * x], 8) ||
                      !(data[x] = msg_view(m, n[2 * x]))))
            m->bad = 1;
        if (recvs && (msg_take(m, &peer[2 * x + 1], 4) || msg_take(m, &n[2 * x + 1], 8)))
            m->bad = 1;
    }
    if (op == JAIL_ALLREDUCE && (msg_take(m, &n[0], 8) || !(data[0] = msg_view(m, n[0] * 4))))
        m->bad = 1;
    for (int i = 0; i < 4; i++)
        if (peer[i] < 0 || peer[i] >= c->size || n[i] > JAIL_MAX_BYTES)
            m->bad = 1;
    if (m->bad || m->pos != m->len) {
        snprintf(err, sizeof err, "jail: a malformed request of the communicator");
        goto answer;
    }
    for (int x = 0; x < k; x++) {
        sent[x] = on_device(d, data[x], op == JAIL_ALLREDUCE ? n[0] * 4 : n[2 * x]);
        got[x] = on_device(d, NULL, n[2 * x + 1]);
    }
    switch (op) {
    case JAIL_SEND:
        rc = c->send(c, peer[0], sent[0], n[0], err);
        break;
    case JAIL_RECV:
        rc = c->recv(c, peer[1], got[0], n[1], err);
        break;
    case JAIL_SENDRECV:
        rc = c->sendrecv(c, peer[0], sent[0], n[0], peer[1], got[0], n[1], err);
        break;
    case JAIL_SENDRECV2: {
        Exchange x[2];
        for (int i = 0; i < 2; i++)
            x[i] = (Exchange){peer[2 * i], sent[i], n[2 * i], peer[2 * i + 1], got[i],
                              n[2 * i + 1]};
        rc = c->sendrecv2 ? c->sendrecv2(c, x, err)
                          : error_set(err, "jail: this communicator has no sendrecv2");
        break;
    }
    case JAIL_BARRIER:
        rc = c->barrier(c, err);
        break;
    case JAIL_ALLREDUCE:
        rc = c->allreduce ? c->allreduce(c, sent[0], n[0], err)
                          : error_set(err, "jail: this communicator has no allreduce");
        got[0] = sent[0], sent[0] = NULL, n[1] = n[0] * 4;
        break;
    }
answer:
    msg_put(&r, &rc, 4);
    msg_put(&r, err, ERR_LEN);
    for (int x = 0; x < k; x++) {
        if (got[x] && rc == 0 && n[2 * x + 1])
            d->download(msg_room(&r, n[2 * x + 1]), got[x], n[2 * x + 1]);
        if (got[x])
            d->release(got[x]);
        if (sent[x])
            d->release(sent[x]);
    }
    if (msg_send(sock, JAIL_REPLY, &r))
        host_gone("the exercise's process stopped answering");
    msg_free(&r);
}

void jail_call(int id, void *args)
{
    pthread_mutex_lock(&lock);
    if (owner != getpid())
        start_host();
    Msg m = {0};
    Wire w = {CALL_PUT, &m, NULL, NULL, {0}, {0}, 0};
    uint32_t op, u = (uint32_t)id;
    msg_put(&m, &u, 4);
    jail_entries[id].visit(&w, args);
    if (msg_send(sock, JAIL_CALL, &m))
        host_gone("the exercise's process did not start");
    for (;;) {
        if (msg_recv(sock, &op, &m))
            host_gone("the exercise's process stopped");
        if (op == JAIL_RESULT)
            break;
        if (op == JAIL_MISSING) {
            fprintf(stderr, "jail: the submitted file does not define %s()\n",
                    jail_entries[id].name);
            abort();
        }
        if (!w.comm || op < JAIL_SEND || op > JAIL_ALLREDUCE)
            host_gone("the exercise's process sent a request it cannot make");
        serve(w.comm, op, &m);
    }
    w = (Wire){BACK_TAKE, &m, NULL, w.comm, {0}, {0}, 0};
    jail_entries[id].visit(&w, args);
    if (m.bad || m.pos != m.len)
        host_gone("the exercise's process sent back outputs of the wrong size");
    msg_free(&m);
    pthread_mutex_unlock(&lock);
}

/* The judge's half of the passes: put the inputs, take the outputs back. */
void wire_buf(Wire *w, void *pp, size_t bytes, int how)
{
    void *p = *(void **)pp;
    const Device *dev = how & WIRE_HOST ? NULL : w->dev;
    if (w->pass == CALL_PUT) {
        unsigned char null = !p;
        msg_put(w->m, &null, 1);
        if (p && bytes) {
            if (dev)
                dev->download(msg_room(w->m, bytes), p, bytes);
            else
                msg_put(w->m, p, bytes);
        }
    } else if (w->pass == BACK_TAKE && (how & WIRE_BACK) && p && bytes) {
        const void *q = msg_view(w->m, bytes);
        if (q && dev)
            dev->upload(p, q, bytes);
        else if (q)
            memcpy(p, q, bytes);
    }
}

void wire_device(Wire *w, const Device **d)
{
    w->dev = *d;
}

void wire_comm(Wire *w, Comm **c)
{
    Comm *t = *c;
    w->comm = t, w->dev = t ? t->dev : NULL;
    if (w->pass != CALL_PUT)
        return;
    char name[32] = "";
    int32_t v[3] = {t ? t->rank : -1, t ? t->size : 0,
                    t ? (t->sendrecv2 ? 1 : 0) | (t->allreduce ? 2 : 0) : 0};
    if (t && t->name)
        snprintf(name, sizeof name, "%s", t->name);
    msg_put(w->m, v, sizeof v);
    msg_put(w->m, name, sizeof name);
}
