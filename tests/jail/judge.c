/* The jail's judge side (jail.h): the proxies' half, in the test's own process. It starts
 * the host, sends it each call's inputs, carries out its communicator's requests on the
 * test's communicator, and puts the outputs back where the test expects them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../exercises/ch1/ch1.h"
#include "jail.h"
#include "util.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t owner, host; /* the process the host serves, and the host */
static int sock = -1;

/* Wait up to a second for the host to end, as it does when it crashed or exited; then, if it
 * still runs (it broke the protocol and went on), kill it. 1 when it had to be killed. */
static int host_end(int *st)
{
    for (int tries = 0; tries < 100; tries++) {
        pid_t p = waitpid(host, st, WNOHANG);
        if (p == host || (p < 0 && errno != EINTR))
            return 0;
        usleep(10000);
    }
    kill(host, SIGKILL);
    while (waitpid(host, st, 0) < 0 && errno == EINTR)
        ;
    return 1;
}

/* Stop this process as the host stopped: a student's crash is the test's crash. A host that
 * sent what the protocol does not allow and still runs is killed, and `what` says why. */
static _Noreturn void host_gone(const char *what)
{
    int st = 0, sig = 0;
    const char *bwrap = getenv("JAIL_SANDBOX");
    if (host > 0 && host_end(&st)) {
        fprintf(stderr, "jail: the exercise's code broke the jail's protocol (%s) and was "
                "stopped\n", what);
        abort();
    }
    if (host > 0) {
        if (WIFSIGNALED(st))
            sig = WTERMSIG(st);
        /* bubblewrap ends with 128 + the signal that killed what it ran. */
        else if (bwrap && *bwrap && WIFEXITED(st) && WEXITSTATUS(st) > 128 &&
                 WEXITSTATUS(st) < 128 + NSIG)
            sig = WEXITSTATUS(st) - 128;
    }
    if (sig) {
        fprintf(stderr, "jail: the exercise's code was killed by signal %d (%s)\n", sig,
                strsignal(sig));
        signal(sig, SIG_DFL);
        raise(sig);
    } else if (host > 0 && WIFEXITED(st))
        fprintf(stderr, "jail: the exercise's code ended its process (exit status %d)\n",
                WEXITSTATUS(st));
    else
        fprintf(stderr, "jail: %s\n", what);
    abort();
}

/* In the child: become the unprivileged user when root (jail_drop: its limits, stdin from
 * /dev/null), then run the host on the student's shared object. Only the host loads it, with
 * dlopen, in an environment of three variables. */
static _Noreturn void become_host(int fd, pid_t parent)
{
    const char *path = getenv("JAIL_HOST"), *student = getenv("JAIL_STUDENT");
    const char *u = getenv("JAIL_UID"), *g = getenv("JAIL_GID"), *cpu = getenv("JAIL_CPU");
    uid_t uid = u && *u ? (uid_t)atol(u) : 65534;
    gid_t gid = g && *g ? (gid_t)atol(g) : (gid_t)uid;
    if (!path || !student) {
        fprintf(stderr,
                "jail: JAIL_HOST and JAIL_STUDENT must name the host and the exercise\n");
        _exit(127);
    }
    if (fd == JAIL_FD ? fcntl(fd, F_SETFD, 0) < 0 : dup2(fd, JAIL_FD) < 0)
        _exit(127);
    for (int f = JAIL_FD + 1; f < 1024; f++)
        close(f);
    if (jail_drop(uid, gid, cpu && *cpu ? atol(cpu) : 0))
        _exit(127);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* after the setuid, which clears it */
    if (getppid() != parent)
        _exit(127);
    char *argv[] = {(char *)path, (char *)student, NULL};
    char *envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", "OPENBLAS_NUM_THREADS=1", NULL};
    const char *bwrap = getenv("JAIL_SANDBOX");
    if (bwrap && *bwrap) {
        /* The sandbox mode: the host and the student's object are all it sees of the tree. */
        char host_at[4096], student_at[4096];
        if (!realpath(path, host_at) || !realpath(student, student_at)) {
            fprintf(stderr, "jail: cannot find %s or %s: %s\n", path, student, strerror(errno));
            _exit(127);
        }
        SandboxBind binds[] = {{host_at, "/jail/host", 0}, {student_at, "/jail/student.so", 0}};
        char *inside[] = {"/jail/host", "/jail/student.so", NULL};
        jail_sandbox_exec(bwrap, binds, 2, "/", inside, envp);
        _exit(127);
    }
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

/* A file, as /proc/self/maps and fstat name it: its device and inode. */
typedef struct FileId {
    unsigned long dev, ino;
} FileId;

/* The shared mapping mapping_of found last. A test's ranks call an exercise in a loop on
 * one mapping (2.1's barrier: 16,000 calls at 8 ranks), and reading /proc/self/maps each
 * time made the jail spend most of 2.1's time budget; the mapping is used again only while
 * /proc/self/map_files still shows a mapping of exactly its range, of the same file. */
static struct {
    unsigned long lo, hi, at;
    FileId id;
} last_mapping;

static int still_mapped(const void *p)
{
    char path[64];
    struct stat st;
    if (!last_mapping.hi || (uintptr_t)p < last_mapping.lo || (uintptr_t)p >= last_mapping.hi)
        return 0;
    snprintf(path, sizeof path, "/proc/self/map_files/%lx-%lx", last_mapping.lo,
             last_mapping.hi);
    return stat(path, &st) == 0 && (unsigned long)st.st_dev == last_mapping.id.dev &&
           (unsigned long)st.st_ino == last_mapping.id.ino;
}

/* Shared memory. Where p lies in the memory file behind a shared mapping of this process:
 * the file and p's offset in it; 0, or -1 when p is in no such mapping. */
static int mapping_of(const void *p, FileId *id, uint64_t *off)
{
    if (still_mapped(p)) {
        *id = last_mapping.id, *off = last_mapping.at + ((uintptr_t)p - last_mapping.lo);
        return 0;
    }
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512], perms[8];
    unsigned long lo, hi, at, inode, major, minor;
    int found = -1;
    while (f && found && fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx %7s %lx %lx:%lx %lu", &lo, &hi, perms, &at, &major, &minor,
                   &inode) == 7 &&
            perms[3] == 's' && inode && (uintptr_t)p >= lo && (uintptr_t)p < hi) {
            *id = (FileId){makedev(major, minor), inode}, *off = at + ((uintptr_t)p - lo);
            last_mapping.lo = lo, last_mapping.hi = hi, last_mapping.at = at;
            last_mapping.id = *id;
            found = 0;
        }
    if (f)
        fclose(f);
    return found;
}

/* Where offset off of memory file id is mapped in this process, or NULL. */
static void *address_of(FileId id, uint64_t off)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512], perms[8];
    unsigned long lo, hi, at, inode, major, minor;
    void *p = NULL;
    while (f && !p && fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx %7s %lx %lx:%lx %lu", &lo, &hi, perms, &at, &major, &minor,
                   &inode) == 7 &&
            perms[3] == 's' && inode == id.ino && makedev(major, minor) == id.dev &&
            off >= at && off < at + (hi - lo))
            p = (void *)(lo + (uintptr_t)(off - at));
    if (f)
        fclose(f);
    return p;
}

/* This process's descriptor of memory file id, or -1 (it must hold the file open). */
static int fd_of(FileId id)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    struct stat st;
    int fd = -1;
    while (d && fd < 0 && (e = readdir(d)))
        if (e->d_name[0] != '.' && fstat(atoi(e->d_name), &st) == 0 && S_ISREG(st.st_mode) &&
            st.st_ino == id.ino && st.st_dev == id.dev)
            fd = atoi(e->d_name);
    if (d)
        closedir(d);
    return fd;
}

void wire_shared(Wire *w, void *pp, size_t bytes)
{
    void *p = *(void **)pp;
    FileId id;
    uint64_t off[2] = {0, bytes}, which = 0;
    int fd = -1;
    unsigned char shared = p && !mapping_of(p, &id, &off[0]) && (fd = fd_of(id)) >= 0;
    if (w->pass == CALL_PUT)
        msg_put(w->m, &shared, 1);
    if (!shared) {
        wire_buf(w, pp, bytes, WIRE_BACK);
        return;
    }
    if (w->pass != CALL_PUT)
        return;
    if (w->n_fds == JAIL_MAX_FDS) {
        fprintf(stderr, "jail: more than %d shared buffers in one call\n", JAIL_MAX_FDS);
        abort();
    }
    if (!w->n_fds)
        w->file_dev = id.dev, w->file_ino = id.ino;
    which = (uint64_t)w->n_fds;
    w->fds[w->n_fds++] = fd;
    msg_put(w->m, off, sizeof off);
    msg_put(w->m, &which, sizeof which);
}

/* Chapter 8's operations, on the shared file of the call (w->file_*): offsets travel, and each
 * side turns them into its own addresses. */
static void serve_window(Comm *c, const Wire *w, uint32_t op, Msg *m)
{
    Msg r = {0};
    int32_t rc = 0, peer = 0;
    uint32_t value = 0;
    uint64_t off = UINT64_MAX, n = 0;
    char err[ERR_LEN] = "";
    FileId id, call = {w->file_dev, w->file_ino};
    if (op == JAIL_PEER_BUFFER && !msg_take(m, &peer, 4) && !msg_take(m, &off, 8) &&
        c->peer_buffer && peer >= 0 && peer < c->size) {
        void *mine = address_of(call, off),
             *theirs = mine ? c->peer_buffer(c, peer, mine) : NULL;
        if (!theirs || mapping_of(theirs, &id, &off) || id.ino != call.ino ||
            id.dev != call.dev)
            off = UINT64_MAX;
    } else if (op == JAIL_ALLOC_SHARED && !msg_take(m, &n, 8) && c->alloc_shared) {
        void *p = n <= JAIL_MAX_BYTES ? c->alloc_shared(c, n) : NULL;
        if (!p || mapping_of(p, &id, &off) || id.ino != call.ino || id.dev != call.dev)
            off = UINT64_MAX;
    } else if (op == JAIL_PROGRESS && c->progress)
        value = c->progress(c);
    else if (op == JAIL_ADVANCE && !msg_take(m, &value, 4) && c->advance)
        c->advance(c, value);
    else if (op == JAIL_WAIT_FOR && !msg_take(m, &peer, 4) && !msg_take(m, &value, 4) &&
             c->wait_for && peer >= 0 && peer < c->size)
        rc = c->wait_for(c, peer, value, err);
    else
        rc = error_set(err, "jail: a malformed request of the communicator");
    msg_put(&r, &rc, 4);
    msg_put(&r, err, ERR_LEN);
    if (rc == 0 && (op == JAIL_PEER_BUFFER || op == JAIL_ALLOC_SHARED))
        msg_put(&r, &off, 8);
    if (rc == 0 && op == JAIL_PROGRESS)
        msg_put(&r, &value, 4);
    if (msg_send(sock, JAIL_REPLY, &r))
        host_gone("the exercise's process stopped answering");
    msg_free(&r);
}

/* The model's file: every buffer on a page of its own, then room for what the exercise
 * allocates itself (four copies of the parameters, and 16 MiB). */
static void model_layout(Model *m, ModelWire *d)
{
    void **slot[JAIL_REGIONS];
    size_t bytes[JAIL_REGIONS], at = 0;
    int n = model_regions(m, slot, bytes);
    for (int i = 0; i < JAIL_REGIONS; i++) {
        d->at[i] = i < n && *slot[i] ? at : JAIL_NULL;
        at += i < n && *slot[i] ? (bytes[i] + 4095) / 4096 * 4096 : 0;
    }
    d->spare = at;
    d->bytes = at + (4 * m->n_params * 4 + (16 << 20) + 4095) / 4096 * 4096;
}

/* The offset in the file of p, which lies in one of m's buffers. */
static uint64_t model_offset(Model *m, const ModelWire *d, const void *p)
{
    void **slot[JAIL_REGIONS];
    size_t bytes[JAIL_REGIONS];
    int n = model_regions(m, slot, bytes);
    for (int i = 0; p && i < n; i++) {
        const char *b = *slot[i];
        if (b && (const char *)p >= b && (const char *)p < b + bytes[i])
            return d->at[i] + (uint64_t)((const char *)p - b);
    }
    return JAIL_NULL;
}

void wire_model(Wire *w, Model **mp)
{
    Model *m = *mp;
    void **slot[JAIL_REGIONS];
    size_t bytes[JAIL_REGIONS];
    int n = model_regions(m, slot, bytes);
    ModelWire d = {.n_layers = m->n_layers,
                   .max_batch = m->max_batch,
                   .n_params = m->n_params,
                   .accumulate = m->accumulate,
                   .lent_params = m->lent_params,
                   .lent_grads = m->lent_grads};
    memcpy(d.width, m->width, sizeof d.width);
    memcpy(d.layer, m->layer, sizeof d.layer);
    model_layout(m, &d);
    if (w->pass == CALL_PUT) {
        for (int l = 0; l < MAX_LAYERS; l++) {
            d.layer_params[l] = model_offset(m, &d, m->layer_params[l]);
            d.layer_grads[l] = model_offset(m, &d, m->layer_grads[l]);
        }
        int fd = memfd_create("dps-jail-model", MFD_CLOEXEC);
        void *a = fd >= 0 && ftruncate(fd, (off_t)d.bytes) == 0
                      ? mmap(NULL, d.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                      : MAP_FAILED;
        if (a == MAP_FAILED || w->n_fds == JAIL_MAX_FDS)
            host_gone("no memory file for the model");
        w->arena = a, w->arena_bytes = d.bytes, w->model_dev = m->dev, w->owned_fd = fd;
        d.fd = (uint8_t)w->n_fds;
        w->fds[w->n_fds++] = fd;
        for (int i = 0; i < n; i++)
            if (*slot[i] && bytes[i])
                m->dev->download(w->arena + d.at[i], *slot[i], bytes[i]);
        msg_put(w->m, &d, sizeof d);
    } else if (w->pass == BACK_TAKE && w->arena) {
        for (int i = 0; i < n; i++)
            if (*slot[i] && bytes[i])
                m->dev->upload(*slot[i], w->arena + d.at[i], bytes[i]);
        munmap(w->arena, w->arena_bytes);
        w->arena = NULL;
    }
}

/* Buffer k of kernel call k, of `count` elements of `size` bytes, as an address in the
 * model's file here; NULL (and *bad) when it does not lie wholly inside. */
static void *in_arena(const Wire *w, uint64_t off, uint64_t count, size_t size, int *bad)
{
    if (off == JAIL_NULL)
        return NULL;
    if (off > w->arena_bytes || count > (w->arena_bytes - off) / size) {
        *bad = 1;
        return NULL;
    }
    return w->arena + off;
}

/* One kernel of the model's device, on the model's file: the test's device computes it. */
static void serve_kernel(const Wire *w, Msg *m)
{
    KernelCall k;
    Msg r = {0};
    int32_t rc = 0;
    char err[ERR_LEN] = "";
    int bad = msg_take(m, &k, sizeof k) || m->pos != m->len || !w->arena;
    for (int i = 0; i < 5; i++)
        bad |= k.i[i] < 0;
    const Device *d = w->model_dev;
    uint64_t rows = bad ? 0 : (uint64_t)k.i[0], cols = bad ? 0 : (uint64_t)k.i[1];
    float *b[4] = {0};
    if (!bad && k.kernel == K_GEMM) { /* i: m n k ta tb; f: alpha beta; A B C */
        b[0] = in_arena(w, k.buf[0], rows * (uint64_t)k.i[2], 4, &bad);
        b[1] = in_arena(w, k.buf[1], (uint64_t)k.i[2] * cols, 4, &bad);
        b[2] = in_arena(w, k.buf[2], rows * cols, 4, &bad);
        bad |= !b[0] || !b[1] || !b[2];
        if (!bad)
            d->gemm(k.i[3], k.i[4], k.i[0], k.i[1], k.i[2], k.f[0], b[0], b[1], k.f[1], b[2]);
    } else if (!bad && k.kernel == K_BIAS_ACT_FORWARD) { /* i: rows cols relu; y bias */
        b[0] = in_arena(w, k.buf[0], rows * cols, 4, &bad);
        b[1] = in_arena(w, k.buf[1], cols, 4, &bad);
        if (!(bad |= !b[0] || !b[1]))
            d->bias_act_forward(b[0], b[1], k.i[0], k.i[1], k.i[2]);
    } else if (!bad && k.kernel == K_RELU_BACKWARD) { /* n; dy y */
        b[0] = in_arena(w, k.buf[0], k.n, 4, &bad);
        b[1] = in_arena(w, k.buf[1], k.n, 4, &bad);
        if (!(bad |= !b[0] || !b[1]))
            d->relu_backward(b[0], b[1], k.n);
    } else if (!bad && k.kernel == K_BIAS_BACKWARD) { /* i: rows cols; dbias dy */
        b[0] = in_arena(w, k.buf[0], cols, 4, &bad);
        b[1] = in_arena(w, k.buf[1], rows * cols, 4, &bad);
        if (!(bad |= !b[0] || !b[1]))
            d->bias_backward(b[0], b[1], k.i[0], k.i[1]);
    } else if (!bad &&
               k.kernel == K_SOFTMAX_XENT) { /* i: rows cols; logits labels dlogits stats */
        b[0] = in_arena(w, k.buf[0], rows * cols, 4, &bad);
        b[1] = in_arena(w, k.buf[1], rows, sizeof(int), &bad);
        b[2] = in_arena(w, k.buf[2], rows * cols, 4, &bad);
        b[3] = in_arena(w, k.buf[3], 2, 4, &bad);
        /* The labels index the logits: copied out of the student's reach first (it shares the
         * file, and could change one between a check and the kernel's read), then checked. */
        int *labels = bad || !b[1] ? NULL : malloc(rows * sizeof *labels + 1);
        bad |= !b[0] || !b[1] || !b[3] || !labels;
        if (!bad)
            memcpy(labels, b[1], rows * sizeof *labels);
        for (uint64_t r = 0; !bad && r < rows; r++)
            if (labels[r] < 0 || (uint64_t)labels[r] >= cols) {
                rc = error_set(err, "jail: label %d of row %llu is not a class of %llu",
                               labels[r], (unsigned long long)r, (unsigned long long)cols);
                bad = 2;
            }
        if (!bad)
            d->softmax_xent(b[0], labels, k.i[0], k.i[1], b[2], b[3]);
        free(labels);
    } else if (!bad && (k.kernel == K_AXPY || k.kernel == K_SCALE)) { /* n; f: a; x (y) */
        b[0] = in_arena(w, k.buf[0], k.n, 4, &bad);
        b[1] = in_arena(w, k.buf[1], k.n, 4, &bad);
        if (!(bad |= !b[0] || (k.kernel == K_AXPY && !b[1])))
            k.kernel == K_AXPY ? d->axpy(k.n, k.f[0], b[0], b[1]) : d->scale(k.n, k.f[0], b[0]);
    } else
        bad = 1;
    if (bad == 1)
        rc = error_set(err, "jail: a kernel's buffer lies outside the model's device memory");
    msg_put(&r, &rc, 4);
    msg_put(&r, err, ERR_LEN);
    if (msg_send(sock, JAIL_REPLY, &r))
        host_gone("the exercise's process stopped answering");
    msg_free(&r);
}

/* One operation of exercise 1.1's machine, on the test's machine (which checks every
 * argument against its own memory before it touches any): the answer is its rc alone. */
static void serve_fast(const Wire *w, Msg *m)
{
    FastCall q;
    Msg r = {0};
    int32_t rc = -1;
    char err[ERR_LEN] = "";
    Fast *f = w->fast;
    if (!msg_take(m, &q, sizeof q) && m->pos == m->len) {
        const int32_t *x = q.arg;
        switch (q.which) {
        case 0: rc = f->load(f, x[0], (FastMatrix)x[1], x[2], x[3], x[4], x[5]); break;
        case 1: rc = f->store(f, x[0], x[1], x[2], x[3], x[4]); break;
        case 2: rc = f->zero(f, x[0], x[1]); break;
        case 3: rc = f->multiply_add(f, x[0], x[1], x[2], x[3], x[4], x[5]); break;
        }
    }
    rc = rc == 0 ? 0 : -1;
    msg_put(&r, &rc, 4);
    msg_put(&r, err, ERR_LEN);
    if (msg_send(sock, JAIL_REPLY, &r))
        host_gone("the exercise's process stopped answering");
    msg_free(&r);
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
    case JAIL_SEND: rc = c->send(c, peer[0], sent[0], n[0], err); break;
    case JAIL_RECV: rc = c->recv(c, peer[1], got[0], n[1], err); break;
    case JAIL_SENDRECV:
        rc = c->sendrecv(c, peer[0], sent[0], n[0], peer[1], got[0], n[1], err);
        break;
    case JAIL_SENDRECV2: {
        Exchange x[2];
        for (int i = 0; i < 2; i++)
            x[i] = (Exchange){peer[2 * i],     sent[i], n[2 * i],
                              peer[2 * i + 1], got[i],  n[2 * i + 1]};
        rc = c->sendrecv2 ? c->sendrecv2(c, x, err)
                          : error_set(err, "jail: this communicator has no sendrecv2");
        break;
    }
    case JAIL_BARRIER: rc = c->barrier(c, err); break;
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
    Wire w = {.pass = CALL_PUT, .m = &m};
    uint32_t op, u = (uint32_t)id;
    msg_put(&m, &u, 4);
    w.owned_fd = -1;
    jail_entries[id].visit(&w, args);
    if (msg_send_fds(sock, JAIL_CALL, &m, w.fds, w.n_fds))
        host_gone("the exercise's process did not start");
    if (w.owned_fd >= 0)
        close(w.owned_fd);
    for (;;) {
        if (msg_recv(sock, &op, &m))
            host_gone("it stopped, or sent a frame the protocol does not allow");
        if (op == JAIL_RESULT)
            break;
        if (op == JAIL_MISSING) {
            fprintf(stderr, "jail: the submitted file does not define %s()\n",
                    jail_entries[id].name);
            abort();
        }
        if (w.comm && op >= JAIL_SEND && op <= JAIL_ALLREDUCE)
            serve(w.comm, op, &m);
        else if (w.comm && op >= JAIL_PEER_BUFFER && op <= JAIL_WAIT_FOR)
            serve_window(w.comm, &w, op, &m);
        else if (w.arena && op == JAIL_KERNEL)
            serve_kernel(&w, &m);
        else if (w.fast && op == JAIL_FAST)
            serve_fast(&w, &m);
        else
            host_gone("it sent a request it cannot make");
    }
    w.pass = BACK_TAKE, w.dev = NULL;
    jail_entries[id].visit(&w, args);
    if (m.bad || m.pos != m.len)
        host_gone("it sent back outputs of the wrong size");
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
        if (q && (how & WIRE_TEXT)) /* a message: whatever came, it ends in the buffer */
            ((char *)p)[bytes - 1] = 0;
    }
}

void wire_device(Wire *w, const Device **d)
{
    w->dev = *d;
}

void wire_fast(Wire *w, Fast **f)
{
    w->fast = *f;
    int32_t capacity = *f ? (*f)->capacity : 0;
    if (w->pass == CALL_PUT)
        msg_put(w->m, &capacity, sizeof capacity);
}

void wire_comm(Wire *w, Comm **c)
{
    Comm *t = *c;
    w->comm = t, w->dev = t ? t->dev : NULL;
    if (w->pass != CALL_PUT)
        return;
    char name[32] = "";
    int32_t v[3] = {t ? t->rank : -1, t ? t->size : 0,
                    t ? (t->sendrecv2 ? 1 : 0) | (t->allreduce ? 2 : 0) |
                            (t->peer_buffer ? 4 : 0) | (t->alloc_shared ? 8 : 0) |
                            (t->progress && t->advance && t->wait_for ? 16 : 0)
                      : 0};
    if (t && t->name)
        snprintf(name, sizeof name, "%s", t->name);
    msg_put(w->m, v, sizeof v);
    msg_put(w->m, name, sizeof name);
}
