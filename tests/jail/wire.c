/* The jail's messages, and the argument passes both sides share (jail.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

int msg_send_fds(int fd, uint32_t op, const Msg *m, const int *fds, int n)
{
    Frame f = {op, 0, m ? m->len : 0};
    union {
        struct cmsghdr h;
        char room[CMSG_SPACE(sizeof(int) * JAIL_MAX_FDS)];
    } c = {0};
    struct iovec io = {&f, sizeof f};
    struct msghdr h = {.msg_iov = &io, .msg_iovlen = 1};
    if (n > 0) {
        h.msg_control = c.room, h.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
        c.h.cmsg_level = SOL_SOCKET, c.h.cmsg_type = SCM_RIGHTS;
        c.h.cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
        memcpy(CMSG_DATA(&c.h), fds, sizeof(int) * (size_t)n);
    }
    ssize_t k;
    do
        k = sendmsg(fd, &h, MSG_NOSIGNAL);
    while (k < 0 && errno == EINTR);
    if (k <= 0 ||
        (k < (ssize_t)sizeof f && write_all(fd, (char *)&f + k, sizeof f - (size_t)k)))
        return -1;
    return f.len && write_all(fd, m->data, f.len) ? -1 : 0;
}

int msg_send(int fd, uint32_t op, const Msg *m)
{
    return msg_send_fds(fd, op, m, NULL, 0);
}

int msg_recv_fds(int fd, uint32_t *op, Msg *m, int *fds, int *n)
{
    Frame f;
    union {
        struct cmsghdr h;
        char room[CMSG_SPACE(sizeof(int) * JAIL_MAX_FDS)];
    } c;
    struct iovec io = {&f, sizeof f};
    struct msghdr h = {.msg_iov = &io,
                       .msg_iovlen = 1,
                       .msg_control = c.room,
                       .msg_controllen = sizeof c.room};
    m->len = m->pos = 0, m->bad = 0;
    if (n)
        *n = 0;
    ssize_t k;
    do
        k = recvmsg(fd, &h, MSG_CMSG_CLOEXEC);
    while (k < 0 && errno == EINTR);
    if (k <= 0)
        return -1;
    for (struct cmsghdr *x = CMSG_FIRSTHDR(&h); x; x = CMSG_NXTHDR(&h, x))
        if (x->cmsg_level == SOL_SOCKET && x->cmsg_type == SCM_RIGHTS) {
            int got = (int)((x->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < got; i++) {
                int d;
                memcpy(&d, CMSG_DATA(x) + i * sizeof(int), sizeof d);
                if (n && *n < JAIL_MAX_FDS)
                    fds[(*n)++] = d;
                else
                    close(d);
            }
        }
    if ((k < (ssize_t)sizeof f && read_all(fd, (char *)&f + k, sizeof f - (size_t)k)) ||
        f.zero || f.len > JAIL_MAX_BYTES + 65536)
        return -1;
    *op = f.op;
    return f.len ? read_all(fd, msg_room(m, f.len), f.len) : 0;
}

int msg_recv(int fd, uint32_t *op, Msg *m)
{
    return msg_recv_fds(fd, op, m, NULL, NULL);
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

int model_regions(Model *m, void **slot[JAIL_REGIONS], size_t bytes[JAIL_REGIONS])
{
    int n = 0, widest = 0, L = m->n_layers < MAX_LAYERS ? m->n_layers : MAX_LAYERS;
    slot[n] = (void **)&m->params, bytes[n++] = m->n_params * 4;
    slot[n] = (void **)&m->grads, bytes[n++] = m->n_params * 4;
    for (int l = 0; l <= L; l++) {
        size_t b = jail_n(m->max_batch) * jail_n(m->width[l]) * 4;
        slot[n] = (void **)&m->act[l], bytes[n++] = b;
        slot[n] = (void **)&m->dact[l], bytes[n++] = b;
        widest = m->width[l] > widest ? m->width[l] : widest;
    }
    slot[n] = (void **)&m->labels, bytes[n++] = jail_n(m->max_batch) * sizeof(int);
    slot[n] = (void **)&m->stats, bytes[n++] = 2 * sizeof(float);
    slot[n] = (void **)&m->scratch, bytes[n++] = jail_n(widest) * 4;
    return n;
}

static int limit(int what, rlim_t soft, rlim_t hard)
{
    struct rlimit r = {soft, hard};
    return setrlimit(what, &r);
}

int jail_drop(uid_t uid, gid_t gid, long cpu)
{
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC), adj = open("/proc/self/oom_score_adj", O_WRONLY);
    if (null < 0 || dup2(null, 0) < 0) {
        fprintf(stderr, "jail: no /dev/null for the jail's stdin\n");
        return -1;
    }
    close(null);
    if (adj >= 0) { /* the killer's first choice: the jail's processes, never the grader */
        (void)!write(adj, "1000", 4);
        close(adj);
    }
    int root = geteuid() == 0 && uid != 0;
    rlim_t cpu_s = cpu > 0 ? (rlim_t)cpu : JAIL_CPU;
    if (limit(RLIMIT_CORE, 0, 0) || limit(RLIMIT_FSIZE, JAIL_FSIZE, JAIL_FSIZE) ||
        limit(RLIMIT_DATA, JAIL_DATA, JAIL_DATA) || limit(RLIMIT_AS, JAIL_AS, JAIL_AS) || limit(RLIMIT_NOFILE, JAIL_NOFILE, JAIL_NOFILE) ||
        limit(RLIMIT_CPU, cpu_s, cpu_s + 1) || limit(RLIMIT_MSGQUEUE, 0, 0) ||
        (root && limit(RLIMIT_NPROC, JAIL_NPROC, JAIL_NPROC))) {
        fprintf(stderr, "jail: cannot set the jail's limits: %s\n", strerror(errno));
        return -1;
    }
    if (root && (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid) ||
                 setuid(0) == 0)) {
        fprintf(stderr, "jail: could not become user %u\n", (unsigned)uid);
        return -1;
    }
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    return 0;
}

/* ---- the sandbox */

/* Append one argument to the sandbox's command line (at most SANDBOX_ARGS). */
#define SANDBOX_ARGS 96
static int add_arg(char **argv, int *n, const char *s)
{
    if (*n >= SANDBOX_ARGS - 1)
        return -1;
    argv[(*n)++] = (char *)s;
    return 0;
}

void jail_sandbox_exec(const char *bwrap, const SandboxBind *binds, int n_binds, const char *dir,
                       char *const cmd[], char *const envp[])
{
    static const char *const fixed[] = {
        "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts",
        "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
        "--proc", "/proc", "--dev", "/dev", "--size", JAIL_SANDBOX_TMP, "--tmpfs", "/tmp",
        "--size", JAIL_SANDBOX_TMP, "--tmpfs", "/dev/shm", "--mqueue", "/dev/mqueue",
        "--ro-bind", "/usr", "/usr", "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
        "--ro-bind-try", "/etc/alternatives", "/etc/alternatives"};
    /* The system's own top directories, as they are here: links into /usr (a merged /usr,
     * Debian 12's) stay links, directories (an older layout) are shown read-only. */
    static const char *const tops[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
    static char targets[sizeof tops / sizeof *tops][256];
    char *argv[SANDBOX_ARGS];
    int n = 0, bad = add_arg(argv, &n, bwrap);
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        bad |= add_arg(argv, &n, fixed[i]);
    for (size_t i = 0; i < sizeof tops / sizeof *tops; i++) {
        struct stat st;
        if (lstat(tops[i], &st))
            continue;
        ssize_t len = -1;
        if (S_ISLNK(st.st_mode) &&
            (len = readlink(tops[i], targets[i], sizeof targets[i] - 1)) > 0) {
            targets[i][len] = 0;
            bad |= add_arg(argv, &n, "--symlink") | add_arg(argv, &n, targets[i]) |
                   add_arg(argv, &n, tops[i]);
        } else if (S_ISDIR(st.st_mode))
            bad |= add_arg(argv, &n, "--ro-bind") | add_arg(argv, &n, tops[i]) |
                   add_arg(argv, &n, tops[i]);
    }
    for (int i = 0; i < n_binds; i++)
        bad |= add_arg(argv, &n, binds[i].writable ? "--bind" : "--ro-bind") |
               add_arg(argv, &n, binds[i].from) | add_arg(argv, &n, binds[i].to);
    bad |= add_arg(argv, &n, "--chdir") | add_arg(argv, &n, dir ? dir : "/") |
           add_arg(argv, &n, "--");
    for (int i = 0; cmd[i]; i++)
        bad |= add_arg(argv, &n, cmd[i]);
    if (bad) {
        fprintf(stderr, "jail: the sandbox's command line is too long\n");
        return;
    }
    argv[n] = NULL;
    execve(bwrap, argv, envp);
    fprintf(stderr, "jail: cannot run the sandbox %s: %s\n", bwrap, strerror(errno));
}
