/* The jail's host (jail.h): the only process that loads the student's code. The judge
 * starts it as the unprivileged user; it opens the student's shared object (argv[1]) and
 * runs each call the judge sends on copies of the inputs, sending back the outputs. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../exercises/ch1/ch1.h"
#include "jail.h"
#include "util.h"

/* A buffer of `bytes` that ends (to within 15 bytes, for alignment) at a page that may not be
 * touched: a write past its end crashes here, as it would corrupt the caller's memory. */
static void *guarded(size_t bytes, void **base_out, size_t *mapped)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (bytes + page - 1) / page * page;
    unsigned char *base =
        mmap(NULL, body + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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

/* The shared file of the current call, as mapped here: chapter 8's offsets are into it. */
static unsigned char *shared_base;
static size_t shared_bytes;

void wire_shared(Wire *w, void *pp, size_t bytes)
{
    uint64_t off[2], which;
    struct stat st;
    unsigned char shared = 0;
    int k = w->n_shared < 8 ? w->n_shared++ : 7;
    if (w->pass == CALL_TAKE && (msg_take(w->m, &shared, 1) || !shared))
        w->copied[k] = 1;
    if (w->copied[k]) {
        wire_buf(w, pp, bytes, WIRE_BACK);
        return;
    }
    if (w->pass != CALL_TAKE)
        return;
    *(void **)pp = NULL;
    if (msg_take(w->m, off, sizeof off) || msg_take(w->m, &which, sizeof which) ||
        which >= (uint64_t)w->n_fds || off[1] != bytes || fstat(w->fds[which], &st) ||
        off[0] > (uint64_t)st.st_size || bytes > (uint64_t)st.st_size - off[0] ||
        w->n_held == (int)(sizeof w->held / sizeof *w->held)) {
        w->m->bad = 1;
        return;
    }
    unsigned char *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
                               MAP_SHARED | MAP_NORESERVE, w->fds[which], 0);
    if (base == MAP_FAILED) {
        w->m->bad = 1;
        return;
    }
    w->held[w->n_held] = base, w->held_bytes[w->n_held++] = (size_t)st.st_size;
    if (!shared_base)
        shared_base = base, shared_bytes = (size_t)st.st_size;
    *(void **)pp = base + off[0];
}

/* The model's device: memory is the model's file, mapped here (what the exercise allocates
 * comes from the room after the model's buffers); each kernel is the judge's to compute. */
static unsigned char *arena;
static size_t arena_bytes, arena_used;
static Device model_device;

static void *md_alloc(size_t bytes)
{
    size_t at = (arena_used + 255) / 256 * 256;
    if (bytes > arena_bytes - at) {
        fprintf(stderr, "jail: the model's device is out of memory (%zu bytes asked)\n", bytes);
        abort();
    }
    arena_used = at + bytes;
    memset(arena + at, 0, bytes);
    return arena + at;
}
static void md_release(void *p)
{
    (void)p;
}
static void md_copy(void *dst, const void *src, size_t bytes)
{
    memmove(dst, src, bytes);
}
static void md_zero(void *p, size_t bytes)
{
    memset(p, 0, bytes);
}
static void md_sync(void)
{
}

/* p as an offset in the model's file; a kernel's buffer elsewhere ends the process, as a
 * wild pointer would end it on the device. */
static uint64_t off_of(const void *p)
{
    const unsigned char *c = p;
    if (!p)
        return JAIL_NULL;
    if (c < arena || c >= arena + arena_bytes) {
        fprintf(stderr, "jail: a kernel was given %p, which is not the model's device memory\n",
                p);
        abort();
    }
    return (uint64_t)(c - arena);
}

static int ask(uint32_t op, Msg *q, void *r0, size_t n0, void *r1, size_t n1, char *err);

static void kernel(KernelCall k)
{
    Msg q = {0};
    char err[ERR_LEN];
    msg_put(&q, &k, sizeof k);
    if (ask(JAIL_KERNEL, &q, NULL, 0, NULL, 0, err)) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
}
static void md_gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                    const float *B, float beta, float *C)
{
    kernel((KernelCall){K_GEMM,
                        {m, n, k, ta, tb},
                        {alpha, beta},
                        0,
                        {off_of(A), off_of(B), off_of(C), JAIL_NULL}});
}
static void md_bias_act_forward(float *y, const float *bias, int rows, int cols, bool relu)
{
    kernel((KernelCall){K_BIAS_ACT_FORWARD,
                        {rows, cols, relu, 0, 0},
                        {0, 0},
                        0,
                        {off_of(y), off_of(bias), JAIL_NULL, JAIL_NULL}});
}
static void md_relu_backward(float *dy, const float *y, size_t n)
{
    kernel((KernelCall){
        K_RELU_BACKWARD, {0}, {0, 0}, n, {off_of(dy), off_of(y), JAIL_NULL, JAIL_NULL}});
}
static void md_bias_backward(float *dbias, const float *dy, int rows, int cols)
{
    kernel((KernelCall){K_BIAS_BACKWARD,
                        {rows, cols, 0, 0, 0},
                        {0, 0},
                        0,
                        {off_of(dbias), off_of(dy), JAIL_NULL, JAIL_NULL}});
}
static void md_softmax_xent(const float *logits, const int *labels, int rows, int cols,
                            float *dlogits, float *stats)
{
    kernel((KernelCall){K_SOFTMAX_XENT,
                        {rows, cols, 0, 0, 0},
                        {0, 0},
                        0,
                        {off_of(logits), off_of(labels), off_of(dlogits), off_of(stats)}});
}
static void md_axpy(size_t n, float a, const float *x, float *y)
{
    kernel((KernelCall){K_AXPY, {0}, {a, 0}, n, {off_of(x), off_of(y), JAIL_NULL, JAIL_NULL}});
}
static void md_scale(size_t n, float a, float *x)
{
    kernel((KernelCall){K_SCALE, {0}, {a, 0}, n, {off_of(x), JAIL_NULL, JAIL_NULL, JAIL_NULL}});
}

void wire_model(Wire *w, Model **mp)
{
    static Model m;
    ModelWire d;
    void **slot[JAIL_REGIONS];
    size_t bytes[JAIL_REGIONS];
    if (w->pass != CALL_TAKE)
        return;
    *mp = NULL;
    if (msg_take(w->m, &d, sizeof d) || d.fd >= w->n_fds || d.n_layers < 1 ||
        d.n_layers > MAX_LAYERS || w->n_held == (int)(sizeof w->held / sizeof *w->held)) {
        w->m->bad = 1;
        return;
    }
    arena = mmap(NULL, d.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, w->fds[d.fd], 0);
    if (arena == MAP_FAILED) {
        w->m->bad = 1;
        return;
    }
    arena_bytes = d.bytes, arena_used = d.spare;
    w->held[w->n_held] = arena, w->held_bytes[w->n_held++] = d.bytes;
    model_device = *device_cpu();
    model_device.name = "jail";
    snprintf(model_device.description, sizeof model_device.description,
             "the test's device, through the autograder's jail");
    model_device.alloc = md_alloc, model_device.release = md_release;
    model_device.upload = model_device.download = model_device.copy = md_copy;
    model_device.zero = md_zero, model_device.sync = md_sync;
    model_device.gemm = md_gemm, model_device.bias_act_forward = md_bias_act_forward;
    model_device.relu_backward = md_relu_backward,
    model_device.bias_backward = md_bias_backward;
    model_device.softmax_xent = md_softmax_xent;
    model_device.axpy = md_axpy, model_device.scale = md_scale;
    model_device.peer_copy = NULL, model_device.ipc_export = NULL, model_device.ipc_open = NULL;
    model_device.ipc_close = NULL, model_device.bind_thread = NULL, model_device.reduce = NULL;
    model_device.adamw = NULL, model_device.close = NULL;
    m = (Model){.dev = &model_device,
                .n_layers = d.n_layers,
                .n_params = d.n_params,
                .max_batch = d.max_batch,
                .accumulate = d.accumulate,
                .lent_params = d.lent_params,
                .lent_grads = d.lent_grads};
    memcpy(m.width, d.width, sizeof m.width);
    memcpy(m.layer, d.layer, sizeof m.layer);
    int n = model_regions(&m, slot, bytes);
    for (int i = 0; i < n; i++)
        *slot[i] =
            d.at[i] == JAIL_NULL || d.at[i] + bytes[i] > d.bytes ? NULL : arena + d.at[i];
    for (int l = 0; l < MAX_LAYERS; l++) {
        m.layer_params[l] =
            d.layer_params[l] < d.bytes ? (float *)(arena + d.layer_params[l]) : NULL;
        m.layer_grads[l] =
            d.layer_grads[l] < d.bytes ? (float *)(arena + d.layer_grads[l]) : NULL;
    }
    *mp = &m;
}

/* Exercise 1.1's machine: each operation the judge's, until one is refused. */
static int fast_refused;

static int fast_ask(FastCall q)
{
    Msg m = {0};
    if (fast_refused)
        return -1;
    msg_put(&m, &q, sizeof q);
    if (ask(JAIL_FAST, &m, NULL, 0, NULL, 0, NULL))
        fast_refused = 1;
    return fast_refused ? -1 : 0;
}
static int fast_load(Fast *f, int at, FastMatrix which, int row, int col, int rows, int cols)
{
    (void)f;
    return fast_ask((FastCall){0, {at, (int32_t)which, row, col, rows, cols, 0}});
}
static int fast_store(Fast *f, int at, int row, int col, int rows, int cols)
{
    (void)f;
    return fast_ask((FastCall){1, {at, row, col, rows, cols, 0, 0}});
}
static int fast_zero(Fast *f, int at, int count)
{
    (void)f;
    return fast_ask((FastCall){2, {at, count, 0, 0, 0, 0, 0}});
}
static int fast_multiply_add(Fast *f, int c, int a, int b, int rows, int cols, int depth)
{
    (void)f;
    return fast_ask((FastCall){3, {c, a, b, rows, cols, depth, 0}});
}

void wire_fast(Wire *w, Fast **f)
{
    static Fast machine;
    int32_t capacity = 0;
    if (w->pass != CALL_TAKE)
        return;
    msg_take(w->m, &capacity, sizeof capacity);
    machine = (Fast){capacity, fast_load, fast_store, fast_zero, fast_multiply_add};
    fast_refused = 0;
    *f = &machine;
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

/* Chapter 8's operations: offsets into the shared file travel, addresses do not. */
static void *r_peer_buffer(Comm *c, int peer, const void *mine)
{
    (void)c;
    const unsigned char *p = mine;
    if (!shared_base || p < shared_base || p >= shared_base + shared_bytes)
        return NULL;
    Msg q = {0};
    int32_t who = peer;
    uint64_t off = (uint64_t)(p - shared_base);
    msg_put(&q, &who, 4);
    msg_put(&q, &off, 8);
    if (ask(JAIL_PEER_BUFFER, &q, &off, 8, NULL, 0, NULL) || off >= shared_bytes)
        return NULL;
    return shared_base + off;
}

static void *r_alloc_shared(Comm *c, size_t bytes)
{
    (void)c;
    Msg q = {0};
    uint64_t n = bytes, off;
    msg_put(&q, &n, 8);
    if (!shared_base || ask(JAIL_ALLOC_SHARED, &q, &off, 8, NULL, 0, NULL) ||
        off >= shared_bytes || bytes > shared_bytes - off)
        return NULL;
    return shared_base + off;
}

static uint32_t r_progress(Comm *c)
{
    (void)c;
    Msg q = {0};
    uint32_t v = 0;
    ask(JAIL_PROGRESS, &q, &v, 4, NULL, 0, NULL);
    return v;
}

static void r_advance(Comm *c, uint32_t value)
{
    (void)c;
    Msg q = {0};
    msg_put(&q, &value, 4);
    ask(JAIL_ADVANCE, &q, NULL, 0, NULL, 0, NULL);
}

static int r_wait_for(Comm *c, int peer, uint32_t value, char *err)
{
    (void)c;
    Msg q = {0};
    int32_t who = peer;
    msg_put(&q, &who, 4);
    msg_put(&q, &value, 4);
    return ask(JAIL_WAIT_FOR, &q, NULL, 0, NULL, 0, err);
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
    remote = (Comm){name,
                    v[0],
                    v[1],
                    device_cpu(),
                    r_send,
                    r_recv,
                    r_sendrecv,
                    v[2] & 1 ? r_sendrecv2 : NULL,
                    r_barrier,
                    r_close,
                    v[2] & 2 ? r_allreduce : NULL,
                    v[2] & 8 ? r_alloc_shared : NULL,
                    v[2] & 4 ? r_peer_buffer : NULL,
                    v[2] & 16 ? r_progress : NULL,
                    v[2] & 16 ? r_advance : NULL,
                    v[2] & 16 ? r_wait_for : NULL,
                    NULL};
    *c = &remote;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < jail_n_entries; i++)
            printf("%s %s\n", jail_entries[i].exercise, jail_entries[i].name);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s STUDENT.so|--list (started by the autograder's jail)\n",
                argv[0]);
        return 2;
    }
    void *student = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!student) {
        fprintf(stderr, "jail: cannot load the exercise: %s\n", dlerror());
        return 126;
    }
    Msg m = {0};
    uint32_t op, id;
    Wire w;
    while (msg_recv_fds(JAIL_FD, &op, &m, w.fds, &w.n_fds) == 0) {
        if (op != JAIL_CALL || msg_take(&m, &id, 4) || id >= (uint32_t)jail_n_entries)
            return 125;
        const JailEntry *e = &jail_entries[id];
        void *args = calloc(1, e->args), *fn = dlsym(student, e->name);
        w = (Wire){.pass = CALL_TAKE,
                   .m = &m,
                   .fds = {w.fds[0], w.fds[1], w.fds[2], w.fds[3]},
                   .n_fds = w.n_fds};
        shared_base = NULL, shared_bytes = 0;
        e->visit(&w, args);
        if (m.bad || m.pos != m.len)
            return 125;
        Msg r = {0};
        if (fn) {
            e->call(args, fn);
            w.pass = BACK_PUT, w.m = &r, w.n_shared = 0;
            e->visit(&w, args);
        }
        if (msg_send(JAIL_FD, fn ? JAIL_RESULT : JAIL_MISSING, &r))
            return 124;
        msg_free(&r);
        for (int i = 0; i < w.n_held; i++)
            munmap(w.held[i], w.held_bytes[i]);
        for (int i = 0; i < w.n_fds; i++)
            close(w.fds[i]);
        free(args);
    }
    return 0;
}
