/* Chapter 8: memory a peer can read, progress counters, and the all-reduces built on them.
 * Every algorithm sums exactly for N = 1..5 and counts that N does not divide, small and
 * large; one-shot and two-shot give the bits of a sum in rank order computed on the host,
 * and the direct ring the bits of the channel ring; back-to-back calls of mixed
 * algorithms, with ranks delayed at random, never read a buffer too early; the CPU's reduce
 * is reduce_element() bit for bit; a GPU's reduce loads 16-byte groups only where every
 * pointer is aligned, and with its single elements covers each element once; the chooser
 * reads its device's crossovers (the CPU's table, or a GPU's: two-shot); a silent peer is named after the timeout; a rank that
 * dies ends the run; the direct strategy trains as one device with the global batch. The
 * same checks run on a GPU's twin: the device path, windows opened through IPC handles, and
 * copies and reductions that wait in a queue until the device is synced; a larger request
 * opens another window there; and chapter 2's device rings, opened or closed with a failure,
 * free nothing a peer may map and keep nothing else. */
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "../ch2/ranks.h"
#include "collectives.h"
#include "comm_mpi.h"
#include "helpers.h"
#include "mlp_kernels.h"
#include "model.h"
#include "rng.h"
#include "strategy.h"
#include "train.h"
#include "train_ref.h"
#include "train_setup.h"

/* A GPU's stand-in on the CPU: the CPU device under the CUDA kind, so that a communicator
 * takes the device path (device rings, windows opened through IPC handles), with memory
 * that, like a GPU's, another process sees only once it opens a handle for it. Each
 * allocation is a memory file of its own; a handle names the owner's process and the file's
 * descriptor, and opening it maps the file through /proc, at another address than the
 * owner's, as cudaIpcOpenMemHandle does. */
typedef struct TwinMap {
    void *p;
    size_t bytes;
    int fd; /* the owner's file; -1 in a mapping of a peer's */
} TwinMap;
static TwinMap twin_maps[512];

static TwinMap *twin_find(const void *p)
{
    for (size_t i = 0; i < sizeof twin_maps / sizeof twin_maps[0]; i++)
        if (twin_maps[i].p == p)
            return &twin_maps[i];
    return NULL;
}

static void *twin_map(int fd, size_t bytes, int own)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    TwinMap *m = twin_find(NULL);
    if (p == MAP_FAILED || !m)
        return NULL;
    *m = (TwinMap){p, bytes, own ? fd : -1};
    return p;
}

static void *twin_alloc(size_t bytes)
{
    int fd = memfd_create("gpu-twin", MFD_CLOEXEC);
    void *p = fd >= 0 && ftruncate(fd, (off_t)bytes) == 0 ? twin_map(fd, bytes, 1) : NULL;
    if (!p && fd >= 0)
        close(fd);
    return p;
}

static void twin_unmap(void *p)
{
    TwinMap *m = twin_find(p);
    if (!p || !m)
        return;
    munmap(m->p, m->bytes);
    if (m->fd >= 0)
        close(m->fd);
    *m = (TwinMap){0};
}

typedef struct TwinHandle {
    pid_t pid;
    int fd;
    size_t bytes;
} TwinHandle;

static int twin_export(void *p, void *handle, char *err)
{
    TwinMap *m = twin_find(p);
    if (!p || !m || m->fd < 0)
        return error_set(err, "gpu twin: %p is not an allocation of this process", p);
    TwinHandle h = {getpid(), m->fd, m->bytes};
    memset(handle, 0, DEVICE_IPC_BYTES);
    memcpy(handle, &h, sizeof h);
    return 0;
}

static void *twin_open(const void *handle, char *err)
{
    TwinHandle h;
    memcpy(&h, handle, sizeof h);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)h.pid, h.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    void *p = fd >= 0 ? twin_map(fd, h.bytes, 0) : NULL;
    if (fd >= 0)
        close(fd);
    if (!p)
        error_set(err, "gpu twin: cannot map %s", path);
    return p;
}

/* Like a GPU's, the twin's copies and reductions are queued, not done: they run, in order,
 * only when something waits for the device (sync, a download, a peer copy) or when an
 * operation that is not queued must see their results. So a rank that raised its progress
 * without syncing first would hand its peers a buffer not yet written. */
typedef struct TwinOp {
    int reduce; /* a reduce, else a copy */
    void *dst;
    const void *src[DEVICE_MAX_SOURCES];
    size_t n; /* bytes of a copy, floats of a reduce */
    int k;
    float scale;
} TwinOp;
static TwinOp twin_queue[64];
static int twin_queued;

static void twin_flush(void)
{
    for (int i = 0; i < twin_queued; i++) {
        TwinOp *o = &twin_queue[i];
        if (o->reduce)
            device_cpu()->reduce(o->n, (const float *const *)o->src, o->k, o->scale, o->dst);
        else
            device_cpu()->copy(o->dst, o->src[0], o->n);
    }
    twin_queued = 0;
}

static TwinOp *twin_enqueue(void)
{
    if (twin_queued == (int)(sizeof twin_queue / sizeof twin_queue[0]))
        twin_flush();
    return &twin_queue[twin_queued++];
}

static void twin_copy(void *dst, const void *src, size_t bytes)
{
    *twin_enqueue() = (TwinOp){.dst = dst, .src = {src}, .n = bytes};
}

static void twin_reduce(size_t n, const float *const *src, int k, float scale, float *dst)
{
    TwinOp *o = twin_enqueue();
    *o = (TwinOp){.reduce = 1, .dst = dst, .n = n, .k = k, .scale = scale};
    memcpy(o->src, src, (size_t)k * sizeof *src);
}

static void twin_sync(void) { twin_flush(); }
static void twin_download(void *dst, const void *src, size_t bytes)
{
    twin_flush();
    device_cpu()->download(dst, src, bytes);
}
static void twin_upload(void *dst, const void *src, size_t bytes)
{
    twin_flush();
    device_cpu()->upload(dst, src, bytes);
}
static void twin_peer_copy(void *dst, const void *src, size_t bytes)
{
    twin_flush();
    device_cpu()->peer_copy(dst, src, bytes);
}
static void twin_axpy(size_t n, float a, const float *x, float *y)
{
    twin_flush();
    device_cpu()->axpy(n, a, x, y);
}
static void twin_scale(size_t n, float a, float *x)
{
    twin_flush();
    device_cpu()->scale(n, a, x);
}
static void twin_zero(void *p, size_t bytes)
{
    twin_flush();
    device_cpu()->zero(p, bytes);
}

static Device gpu_twin;

static const Device *gpu_twin_device(void)
{
    gpu_twin = *device_cpu();
    gpu_twin.kind = DEVICE_CUDA;
    gpu_twin.copy = twin_copy, gpu_twin.reduce = twin_reduce, gpu_twin.sync = twin_sync;
    gpu_twin.download = twin_download, gpu_twin.upload = twin_upload;
    gpu_twin.peer_copy = twin_peer_copy, gpu_twin.axpy = twin_axpy;
    gpu_twin.scale = twin_scale, gpu_twin.zero = twin_zero;
    gpu_twin.alloc = twin_alloc;
    gpu_twin.release = twin_unmap;
    gpu_twin.ipc_export = twin_export;
    gpu_twin.ipc_open = twin_open;
    gpu_twin.ipc_close = twin_unmap;
    snprintf(gpu_twin.description, sizeof gpu_twin.description, "cpu, as a GPU's twin");
    return &gpu_twin;
}

/* The device of a rank of these tests: the CPU, or with a non-NULL arg the GPU's twin. */
static const Device *direct_device(const void *arg)
{
    return arg ? gpu_twin_device() : device_cpu();
}
static const int on_gpu_twin = 1;

typedef int (*AllReduceFn)(Comm *c, float *buf, size_t count, float *scratch, float scale,
                           char *err);

static int run_channel_ring(Comm *c, float *buf, size_t count, float *scratch, float scale,
                            char *err)
{
    return ring_all_reduce(c, buf, count, scratch, scale, err);
}

static const struct {
    const char *name;
    AllReduceFn fn;
} algos[] = {{"one-shot", direct_one_shot},
             {"two-shot", direct_two_shot},
             {"direct ring", direct_ring},
             {"all_reduce", all_reduce},
             {"channel ring", run_channel_ring}};
enum { N_ALGOS = sizeof algos / sizeof algos[0] };

static const size_t counts[] = {0, 1, 2, 3, 5, 1000, 4099, 65537, 300007};
enum { N_COUNTS = sizeof counts / sizeof counts[0], MOST = 300007 };

/* Element i of rank r: a float whose sums over ranks depend on the order of addition. */
static float rough(int r, size_t i)
{
    uint64_t x = (uint64_t)r * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (float)((double)(x >> 40) / (1 << 20) - 8.0) * (r % 2 ? 1e-3f : 1.0f);
}

/* In rank r: every algorithm on every count, integer data (exact sums, and x 1/N), then
 * rough data (one-shot and two-shot against the host's sum in rank order, the direct ring
 * against the channel ring). */
static int sums_rank(int rank, int size, void *arg, char *err)
{
    Comm *c = comm_shm_open(test_world, rank, direct_device(arg), err);
    if (!c)
        return -1;
    float *buf = c->alloc_shared(c, MOST * sizeof(float));
    float *scratch = xcalloc(MOST + 1, sizeof(float)), *ref = xcalloc(MOST + 1, sizeof(float));
    if (!buf)
        return error_set(err, "rank %d: no memory from alloc_shared", rank);
    for (int k = 0; k < N_COUNTS; k++)
        for (int a = 0; a < N_ALGOS; a++)
            for (int scaled = 0; scaled < 2; scaled++) {
                size_t n = counts[k];
                float scale = scaled ? 1.0f / (float)size : 1.0f;
                for (size_t i = 0; i < n; i++)
                    buf[i] = collective_value(rank, i);
                if (algos[a].fn(c, buf, n, scratch, scale, err))
                    return -1;
                c->dev->sync(); /* as a GPU's caller must before reading the result */
                for (size_t i = 0; i < n; i++)
                    if (buf[i] != (float)collective_sum(size, i) * scale)
                        return error_set(err, "%s, N = %d, %zu floats%s: rank %d has %g at %zu, "
                                         "expected %g", algos[a].name, size, n,
                                         scaled ? ", x 1/N" : "", rank, buf[i], i,
                                         (float)collective_sum(size, i) * scale);
            }
    for (int k = 0; k < N_COUNTS; k++) {
        size_t n = counts[k];
        for (size_t i = 0; i < n; i++) {
            float sum = rough(0, i);
            for (int q = 1; q < size; q++)
                sum += rough(q, i);
            ref[i] = sum; /* the host's sum, in rank order */
        }
        for (int a = 0; a < 2; a++) { /* one-shot, two-shot */
            for (size_t i = 0; i < n; i++)
                buf[i] = rough(rank, i);
            if (algos[a].fn(c, buf, n, scratch, 1.0f, err))
                return -1;
            c->dev->sync();
            for (size_t i = 0; i < n; i++)
                if (memcmp(&buf[i], &ref[i], sizeof(float)) != 0)
                    return error_set(err, "%s, N = %d, %zu rough floats: rank %d has %.9g at "
                                     "%zu, the sum in rank order is %.9g", algos[a].name, size,
                                     n, rank, buf[i], i, ref[i]);
        }
        for (size_t i = 0; i < n; i++) /* the channel ring's bits, for the direct ring */
            ref[i] = rough(rank, i);
        if (ring_all_reduce(c, ref, n, scratch, 1.0f, err))
            return -1;
        c->dev->sync();
        for (size_t i = 0; i < n; i++)
            buf[i] = rough(rank, i);
        if (direct_ring(c, buf, n, scratch, 1.0f, err))
            return -1;
        c->dev->sync();
        for (size_t i = 0; i < n; i++)
            if (memcmp(&buf[i], &ref[i], sizeof(float)) != 0)
                return error_set(err, "direct ring, N = %d, %zu rough floats: rank %d has "
                                 "%.9g at %zu, the channel ring %.9g", size, n, rank, buf[i],
                                 i, ref[i]);
    }
    free(scratch);
    free(ref);
    c->close(c);
    return 0;
}

Test(direct, every_algorithm_sums_exactly_and_in_its_order, .timeout = 120)
{
    for (int N = 1; N <= 5; N++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(N, 0, 30, sums_rank, NULL, 120, err) == 0, "N = %d: %s", N, err);
    }
}

/* Calls of every algorithm, one after another, 60 times, each rank sleeping a random few
 * microseconds before each: a rank that read a peer's buffer before the peer had written
 * this call's data, or overwrote its own while a peer still read the last call's, would
 * leave a wrong sum behind. The data change from call to call. */
static int mixed_rank(int rank, int size, void *arg, char *err)
{
    Comm *c = comm_shm_open(test_world, rank, direct_device(arg), err);
    if (!c)
        return -1;
    enum { N = 2003 };
    float *buf = c->alloc_shared(c, N * sizeof(float)), *scratch = xcalloc(N, sizeof(float));
    Rng g;
    rng_seed(&g, 11, (uint64_t)rank);
    for (int call = 0; call < 60; call++) {
        int a = call % 4; /* the four that read */
        for (size_t i = 0; i < N; i++)
            buf[i] = collective_value(rank, i + (size_t)call);
        struct timespec ts = {0, (long)rng_below(&g, 50) * 1000};
        nanosleep(&ts, NULL);
        if (algos[a].fn(c, buf, N, scratch, 1.0f, err))
            return -1;
        c->dev->sync();
        for (size_t i = 0; i < N; i++)
            if (buf[i] != (float)collective_sum(size, i + (size_t)call))
                return error_set(err, "call %d (%s), N = %d: rank %d has %g at %zu, expected "
                                 "%g", call, algos[a].name, size, rank, buf[i], i,
                                 (float)collective_sum(size, i + (size_t)call));
    }
    free(scratch);
    c->close(c);
    return 0;
}

Test(direct, back_to_back_calls_of_every_algorithm_with_delays, .timeout = 120)
{
    for (int N = 2; N <= 4; N++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(N, 0, 30, mixed_rank, NULL, 120, err) == 0, "N = %d: %s", N, err);
    }
}

/* The CPU's reduce() against reduce_element(), the arithmetic the GPU's kernel runs: every
 * bit, for 1 to 5 sources, a length that is not a multiple of the CPU's block, and the
 * destination apart from the sources or one of them. */
Test(direct, the_cpu_reduce_is_reduce_element_bit_for_bit)
{
    enum { N = 2500 };
    const Device *dev = device_cpu();
    float *src[5], *dst = xcalloc(N, sizeof(float)), *want = xcalloc(N, sizeof(float));
    for (int j = 0; j < 5; j++) {
        src[j] = xcalloc(N, sizeof(float));
        for (size_t i = 0; i < N; i++)
            src[j][i] = rough(j, i);
    }
    for (int k = 1; k <= 5; k++)
        for (int alias = -1; alias < k; alias++) {
            float scale = k == 3 ? 1.0f / 3 : 1.0f;
            const float *const *s = (const float *const *)src;
            for (size_t i = 0; i < N; i++)
                want[i] = reduce_element(s, k, i, scale);
            float *out = alias < 0 ? dst : src[alias];
            float *keep = xcalloc(N, sizeof(float));
            memcpy(keep, out, N * sizeof(float));
            dev->reduce(N, s, k, scale, out);
            for (size_t i = 0; i < N; i++)
                cr_assert(memcmp(&out[i], &want[i], sizeof(float)) == 0, "%d sources, "
                          "destination %s: element %zu is %.9g, reduce_element %.9g", k,
                          alias < 0 ? "apart" : "a source", i, out[i], want[i]);
            memcpy(out, keep, N * sizeof(float)); /* the source back as it was */
            free(keep);
        }
    for (int j = 0; j < 5; j++)
        free(src[j]);
    free(dst);
    free(want);
}

/* A GPU's reduce loads 16 bytes at a time (chapter 8): reduce_groups takes the vector path
 * only when the destination and every source are 16-byte aligned, n / 4 groups of them; and
 * the kernel's two grid-stride loops, groups then the single elements past them, visit every
 * element exactly once for grids of any step (here walked on the CPU, as the kernel's
 * threads would: thread t takes groups t, t + S, ..., then elements 4 groups + t, + S, ...). */
Test(direct, a_gpus_reduce_loads_whole_groups_only_when_aligned_and_covers_every_element)
{
    enum { N = 70, STEPS = 4 };
    _Alignas(16) static float mem[4][80]; /* rows of a multiple of 16 bytes, room for off */
    static const size_t steps[STEPS] = {1, 3, 16, 1024};
    for (size_t n = 0; n <= N; n++)
        for (int off = 0; off < 4; off++)
            for (int who = 0; who <= 3; who++) { /* which pointer is off: dst, src 0..2 */
                const float *src[3] = {mem[1], mem[2], mem[3]};
                float *dst = mem[0];
                if (who == 0)
                    dst += off;
                else
                    src[who - 1] += off;
                size_t groups = reduce_groups(n, src, 3, dst);
                cr_assert(groups == (off ? 0 : n / REDUCE_LANES), "n = %zu, pointer %d "
                          "off by %d floats: %zu groups", n, who, off, groups);
                for (int t = 0; t < STEPS; t++) {
                    int seen[N] = {0};
                    for (size_t first = 0; first < steps[t]; first++) {
                        for (size_t g = first; g < groups; g += steps[t])
                            for (int l = 0; l < REDUCE_LANES; l++)
                                seen[REDUCE_LANES * g + l]++;
                        for (size_t i = REDUCE_LANES * groups + first; i < n; i += steps[t])
                            seen[i]++;
                    }
                    for (size_t i = 0; i < n; i++)
                        cr_assert(seen[i] == 1, "n = %zu, %zu groups, step %zu: element "
                                  "%zu visited %d times", n, groups, steps[t], i, seen[i]);
                }
            }
}

/* A buffer from alloc_shared is where peer_buffer says, in every rank; one that is not is
 * refused by name. */
static int window_rank(int rank, int size, void *arg, char *err)
{
    Comm *c = comm_shm_open(test_world, rank, direct_device(arg), err);
    if (!c)
        return -1;
    int *a = c->alloc_shared(c, 100 * sizeof(int)), *b = c->alloc_shared(c, 7);
    for (int i = 0; i < 100; i++)
        a[i] = rank * 1000 + i;
    c->advance(c, 1);
    for (int q = 0; q < size; q++) {
        if (q != rank && c->wait_for(c, q, 1, err))
            return -1;
        const int *theirs = c->peer_buffer(c, q, a + 10);
        if (!theirs || theirs[0] != q * 1000 + 10 || !c->peer_buffer(c, q, b))
            return error_set(err, "rank %d: rank %d's copy of the buffer is not where "
                             "peer_buffer says", rank, q);
        if (arg && q != rank &&
            (!twin_find(a) || twin_find(a)->fd < 0 || !twin_find(theirs - 10) ||
             twin_find(theirs - 10)->fd >= 0))
            return error_set(err, "rank %d: on the GPU's twin the windows are not the "
                             "device's own memory and the peers' opened handles", rank);
    }
    int own = 0;
    float scratch[4];
    if (c->peer_buffer(c, 0, &own) || direct_two_shot(c, (float *)&own, 1, scratch, 1, err) == 0)
        return error_set(err, "a buffer outside the window was taken for a shared one");
    if (!strstr(err, "allocate it with alloc_shared"))
        return error_set(err, "the refusal does not say what to do: %s", err);
    c->advance(c, 2); /* nobody reads a[] any more once all are here */
    for (int q = 0; q < size; q++)
        if (q != rank && c->wait_for(c, q, 2, err))
            return -1;
    c->close(c);
    return 0;
}

Test(direct, peer_buffer_finds_each_ranks_copy)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(3, 0, 30, window_rank, NULL, 60, err) == 0, "%s", err);
}

/* On a GPU's twin (the device path: device rings, and windows opened through IPC handles
 * after the fork, each at another address in every process), every algorithm sums exactly
 * and in its order, back-to-back calls with delays stay right, and peer_buffer finds each
 * rank's copy. */
Test(direct_gpu_twin, every_algorithm_sums_exactly_and_in_its_order, .timeout = 120)
{
    for (int N = 1; N <= 4; N++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(N, 0, 30, sums_rank, (void *)&on_gpu_twin, 120, err) == 0,
                  "N = %d: %s", N, err);
    }
}

Test(direct_gpu_twin, back_to_back_calls_of_every_algorithm_with_delays, .timeout = 120)
{
    for (int N = 2; N <= 4; N++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(N, 0, 30, mixed_rank, (void *)&on_gpu_twin, 120, err) == 0,
                  "N = %d: %s", N, err);
    }
}

Test(direct_gpu_twin, the_windows_are_the_devices_and_peer_buffer_finds_each_copy)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(3, 0, 30, window_rank, (void *)&on_gpu_twin, 60, err) == 0, "%s", err);
}

/* The chooser reads its device's table (chapter 8, "Choosing by size"): at four ranks the
 * CPU's takes the direct ring above 1 MiB and two-shot below; a GPU's (here its twin, of the
 * CUDA kind) takes two-shot at every size, and never one-shot, until a GPU recording says
 * otherwise. Every rank chooses alike, and the scratch covers either device's one-shot. */
static int choice_rank(int rank, int size, void *arg, char *err)
{
    Comm *c = comm_shm_open(test_world, rank, direct_device(arg), err);
    if (!c)
        return -1;
    static const size_t sizes[] = {1, 256, 16384, (1 << 20) / sizeof(float),
                                   (1 << 20) / sizeof(float) + 1, 4 << 20};
    float *buf = c->alloc_shared(c, (4 << 20) * sizeof(float));
    if (!buf)
        return error_set(err, "rank %d: no memory from alloc_shared", rank);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t bytes = sizes[k] * sizeof(float);
        AllReduceAlgo want = arg || size < 4 || bytes <= (1 << 20) ? ALGO_TWO_SHOT
                                                                   : ALGO_DIRECT_RING;
        AllReduceAlgo got = all_reduce_choice(c, buf, sizes[k]);
        if (got != want)
            return error_set(err, "%s, %d ranks, %zu bytes: the chooser takes %s, expected %s",
                             c->dev->kind == DEVICE_CPU ? "cpu" : "gpu twin", size, bytes,
                             all_reduce_algo_name(got), all_reduce_algo_name(want));
    }
    c->close(c);
    return 0;
}

Test(direct, the_chooser_reads_the_cpus_table, .timeout = 60)
{
    for (int N = 2; N <= 5; N++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(N, 0, 30, choice_rank, NULL, 60, err) == 0, "N = %d: %s", N, err);
    }
}

Test(direct_gpu_twin, the_chooser_reads_a_gpus_table_two_shot_everywhere, .timeout = 60)
{
    for (int N = 2; N <= 5; N++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(N, 0, 30, choice_rank, (void *)&on_gpu_twin, 60, err) == 0,
                  "N = %d: %s", N, err);
    }
}

/* On a GPU a window is sized by the request that opens it. A later request larger than what
 * is left of it opens another window (it once got NULL, and the chooser fell back to the
 * channel ring without a word): the first buffer stays where it was, the second is read
 * where it lies, to its last float, and both sum exactly. Past SHM_DEVICE_WINDOWS windows a
 * request gets NULL (rank 0 says so on stderr). */
enum { SMALL = 1000, BIG = SHM_DEVICE_WINDOW_MIN / sizeof(float) + 1, PART = 70001 };

static int larger_rank(int rank, int size, void *arg, char *err)
{
    Comm *c = comm_shm_open(test_world, rank, direct_device(arg), err);
    if (!c)
        return -1;
    float *small = c->alloc_shared(c, SMALL * sizeof(float));
    float *big = c->alloc_shared(c, BIG * sizeof(float)), *tail = big + BIG - PART;
    float *scratch = xcalloc(all_reduce_scratch(PART, size) + 1, sizeof(float));
    if (!small || !big)
        return error_set(err, "rank %d: a second, larger request got no window", rank);
    AllReduceAlgo algo = all_reduce_choice(c, tail, PART);
    if (algo == ALGO_CHANNEL_RING || !c->peer_buffer(c, (rank + 1) % size, big + BIG - 1))
        return error_set(err, "rank %d: the second buffer is not read where it lies (%s)",
                         rank, all_reduce_algo_name(algo));
    float *bufs[] = {small, big, tail};
    size_t counts_of[] = {SMALL, PART, PART};
    for (int b = 0; b < 3; b++) {
        for (size_t i = 0; i < counts_of[b]; i++)
            bufs[b][i] = collective_value(rank, i);
        if (all_reduce(c, bufs[b], counts_of[b], scratch, 1.0f, err))
            return -1;
        c->dev->sync();
        for (size_t i = 0; i < counts_of[b]; i++)
            if (bufs[b][i] != (float)collective_sum(size, i))
                return error_set(err, "buffer %d, rank %d: %g at %zu, expected %g", b, rank,
                                 bufs[b][i], i, (float)collective_sum(size, i));
    }
    int opened = 2;
    while (opened < SHM_DEVICE_WINDOWS && c->alloc_shared(c, BIG * sizeof(float)))
        opened++;
    if (opened < SHM_DEVICE_WINDOWS || c->alloc_shared(c, BIG * sizeof(float)))
        return error_set(err, "rank %d: %d windows opened, expected %d and then none", rank,
                         opened, SHM_DEVICE_WINDOWS);
    free(scratch);
    c->close(c);
    return 0;
}

Test(direct_gpu_twin, a_larger_request_later_opens_another_window, .timeout = 60)
{
    for (int N = 2; N <= 3; N++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(N, 0, 30, larger_rank, (void *)&on_gpu_twin, 60, err) == 0,
                  "N = %d: %s", N, err);
    }
}

/* The twin's live allocations of this process (own) or mappings of a peer's (!own). */
static int twin_live(int own)
{
    int n = 0;
    for (size_t i = 0; i < sizeof twin_maps / sizeof twin_maps[0]; i++)
        n += twin_maps[i].p && (twin_maps[i].fd >= 0) == own;
    return n;
}

/* Failures injected into a rank's twin: its export number fail_export, or its opening of a
 * handle number fail_open (counted from 1; 0: none fails). */
static int exports, fail_export, opens, fail_open;

static int twin_export_failing(void *p, void *handle, char *err)
{
    if (++exports == fail_export)
        return error_set(err, "gpu twin: export %d fails on purpose", exports);
    return twin_export(p, handle, err);
}

static void *twin_open_failing(const void *handle, char *err)
{
    if (++opens == fail_open) {
        error_set(err, "gpu twin: open %d fails on purpose", opens);
        return NULL;
    }
    return twin_open(handle, err);
}

/* Chapter 2's error paths on a GPU, through the twin. Opening a communicator fails in rank 0,
 * before the barrier (its second ring's export; *arg = 0) or after it (its second opening of
 * a peer's ring; *arg = 1): it gives back its mappings of the peers' rings, frees its own
 * rings before the barrier, and keeps them after it, where a peer may have mapped them (a
 * first version kept everything). The other ranks come to the barrier after it only, and
 * leave without closing. */
static volatile int *rank0_done; /* shared: rank 0 has checked what it holds */

static int failed_open_rank(int rank, int size, void *arg, char *err)
{
    int after = *(const int *)arg;
    const Device *dev = gpu_twin_device();
    if (rank != 0) {
        if (after) /* whether it opens rank 0's rings before rank 0 has left is chance */
            comm_shm_open(test_world, rank, dev, err);
        /* stay until rank 0 is done: its openings map this process's rings through /proc,
         * which a process that has left no longer has */
        for (int i = 0; i < 20000 && !*rank0_done; i++)
            usleep(1000);
        return 0;
    }
    gpu_twin.ipc_export = twin_export_failing, gpu_twin.ipc_open = twin_open_failing;
    fail_export = after ? 0 : 2, fail_open = after ? 2 : 0;
    if (comm_shm_open(test_world, rank, dev, err))
        return error_set(err, "rank 0: the opening did not fail");
    *rank0_done = 1;
    if (!strstr(err, "on purpose"))
        return -1;
    int own = twin_live(1), peers = twin_live(0), want = after ? size - 1 : 0;
    if (own != want || peers != 0)
        return error_set(err, "rank 0, failed %s the barrier, holds %d of its rings and %d "
                         "mappings of the peers' (expected %d and 0)",
                         after ? "after" : "before", own, peers, want);
    return 0;
}

Test(shm_gpu_twin, a_failed_opening_gives_back_what_no_peer_can_map)
{
    static const int before = 0, after = 1;
    char err[ERR_LEN];
    rank0_done = shared_zeroed(sizeof *rank0_done);
    cr_assert(run_ranks(3, 0, 30, failed_open_rank, (void *)&before, 60, err) == 0, "%s", err);
    *rank0_done = 0;
    cr_assert(run_ranks(3, 0, 30, failed_open_rank, (void *)&after, 60, err) == 0, "%s", err);
    munmap((void *)rank0_done, sizeof *rank0_done);
}

/* Rank 1 leaves without closing; rank 0's close then fails at its barrier (after the world's
 * timeout of 1 s): it closes its mappings of rank 1's memory but frees none of its own, which
 * a peer may still map (a first version freed it all the same). */
static int unmet_close_rank(int rank, int size, void *arg, char *err)
{
    (void)size, (void)arg;
    Comm *c = comm_shm_open(test_world, rank, gpu_twin_device(), err);
    if (!c || c->barrier(c, err)) /* both have opened the other's rings */
        return -1;
    if (rank == 1)
        return 0;
    c->close(c);
    if (twin_live(1) != 1 || twin_live(0) != 0)
        return error_set(err, "after a close whose barrier failed, rank 0 holds %d of its "
                         "rings and %d mappings of rank 1's (expected 1 and 0)",
                         twin_live(1), twin_live(0));
    return 0;
}

Test(shm_gpu_twin, a_close_whose_barrier_fails_frees_nothing_a_peer_may_map, .timeout = 30)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(2, 0, 1.0, unmet_close_rank, NULL, 20, err) == 0, "%s", err);
}

/* Rank 1 never comes to the all-reduce: rank 0 gives up after the world's timeout, naming
 * rank 1 and what it was doing. */
static int silent_rank(int rank, int size, void *arg, char *err)
{
    (void)arg, (void)size;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!c)
        return -1;
    float *buf = c->alloc_shared(c, 64 * sizeof(float)), scratch[64];
    if (rank == 1) {
        launch_phase("sleeping on purpose");
        sleep(3);
        _exit(0);
    }
    if (direct_two_shot(c, buf, 64, scratch, 1, err) == 0)
        return error_set(err, "the all-reduce ended without rank 1");
    return -1;
}

Test(direct, a_silent_peer_is_named_after_the_timeout, .timeout = 30)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(2, 0, 0.3, silent_rank, NULL, 20, err) != 0, "the run succeeded");
    cr_assert(strstr(err, "waiting for rank 1 timed out after 0.3 s") &&
                  strstr(err, "sleeping on purpose"),
              "message: %s", err);
}

/* Rank 2 of 3 dies inside the 40th all-reduce: the run ends at once, naming it. */
static int dying_rank(int rank, int size, void *arg, char *err)
{
    (void)arg, (void)size;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!c)
        return -1;
    float *buf = c->alloc_shared(c, 4096 * sizeof(float)), *scratch = xcalloc(4096, 4);
    for (int call = 0; call < 1000; call++) {
        if (rank == 2 && call == 40)
            abort();
        if (all_reduce(c, buf, 4096, scratch, 1, err))
            return -1;
    }
    return 0;
}

Test(direct, a_dying_rank_ends_the_run_with_its_name, .timeout = 30)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(3, 0, 600, dying_rank, NULL, 600, err) != 0, "the run succeeded");
    cr_assert(strstr(err, "rank 2 was killed by signal 6"), "message: %s", err);
}

/* The direct strategy: N ranks train as one device with the global batch, N = 1..4. */
static struct {
    Dataset train, test;
    float *out;
} setup;

static int train_rank(int rank, int size, void *arg, char *err)
{
    (void)arg, (void)size;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err), *host;
    if (!c || !(host = comm_shm_host(c, err)))
        return -1;
    Model m;
    int hidden[1] = {24};
    if (model_init(&m, device_cpu(), setup.train.features, hidden, 1, setup.train.classes, 10,
                   7, err))
        return -1;
    Strategy s;
    StrategyEnv env = {.c = c, .host = host, .m = &m, .accum = 1};
    if (strategy_direct.open(&s, &env, err))
        return -1;
    TrainConfig cfg = {.batch_size = 10, .epochs = 2, .lr = 0.1f, .seed = 7, .quiet = true};
    TrainResult res;
    if (train_run(&cfg, &m, &setup.train, &setup.test, &s, &res, err))
        return -1;
    if (rank == 0)
        memcpy(setup.out, m.params, m.n_params * sizeof(float));
    strategy_direct.close(&s);
    model_free(&m);
    c->close(c);
    return 0;
}

Test(direct_strategy, n_ranks_equal_one_device_with_the_global_batch)
{
    char err[ERR_LEN];
    load_synthetic(600, &setup.train, &setup.test);
    size_t n = params_of_24(&setup.train);
    setup.out = shared_zeroed(n * sizeof(float));
    float *ref = xcalloc(n, sizeof(float));
    for (int N = 1; N <= 4; N++) {
        cr_assert(run_ranks(N, 0, 30, train_rank, NULL, 120, err) == 0, "N = %d: %s", N, err);
        single_device_weights(&setup.train, &setup.test, 24, 10 * N, 2, 0.1f, ref, n);
        double gap = weight_gap(setup.out, ref, n);
        cr_assert(gap <= 1e-5, "N = %d: the weights differ by %g from one device's with "
                  "batch %d", N, gap, 10 * N);
    }
    free(ref);
    data_free(&setup.train);
    data_free(&setup.test);
}

/* The banner names the all-reduce that runs, and the breakdown times the same one: two-shot
 * for the default model's 398 KiB on two ranks, of the CPU or of a GPU, whose windows
 * (chapter 8, "Windows on a GPU") hold the gradients too; on a device or a transport without
 * windows, the channel ring, said as such (the first GPU run's banner claimed reads of the
 * peers' memory above a breakdown of the channel ring; the test then expected the channel
 * ring on cuda, which predates the GPU's windows). */
static void says_what_ran(const Run *a, const char *expect)
{
    char algo[64] = "", bar[80];
    const char *name = strchr(a->out, ':'), *end = strstr(a->out, " all-reduce");
    const char *eol = strchr(a->out, '\n');
    cr_assert(name && end && eol && end < eol && end - (name + 2) < 64,
              "the banner names no all-reduce: %.200s", a->out);
    memcpy(algo, name + 2, (size_t)(end - (name + 2)));
    cr_assert_str_eq(algo, expect, "the banner: %.200s", a->out);
    snprintf(bar, sizeof bar, "| %s ", algo);
    cr_assert(strstr(a->out, bar), "the banner says %s, the breakdown does not: %s", algo,
              a->out);
}

Test(direct_strategy, train_ends_with_mlps_loss_and_says_what_ran)
{
    Run a, b;
    const char *dev = test_on_cuda() ? "cuda" : "cpu";
    run_program((char *[]){"./train", "--strategy", "direct", "--n_gpus", "2", "--train_size",
                           "4096", "--epochs", "2", "--device", (char *)dev, NULL}, &a);
    run_program((char *[]){"./mlp", "--batch_size", "128", "--train_size", "4096", "--epochs",
                           "2", "--quiet", "--device", (char *)dev, NULL}, &b);
    cr_assert(a.status == 0 && b.status == 0, "exit %d and %d: %s %s", a.status, b.status, a.err,
              b.err);
    says_what_ran(&a, "two-shot");
    cr_assert(strstr(a.out, "replicas: the weights of all 2"), "the replicas differ: %s", a.out);
    const char *last = strstr(a.out, "epoch 2/2");
    cr_assert(last, "no second epoch: %s", a.out);
    double la = strtod(strstr(last, "loss") + 4, NULL), lb = final_loss(b.out);
    cr_assert(fabs(la - lb) < 1e-3, "./train --strategy direct: loss %g, ./mlp --batch_size "
              "128: %g", la, lb);
}

/* Over MPI on one host the windows are MPI's shared memory (chapter 9): the chooser reads
 * the peers' gradients there as it does between forked ranks, and the banner says so. */
Test(direct_strategy, over_mpi_on_one_host_the_windows_are_mpis, .timeout = 60)
{
    if (!comm_mpi_available() || system("command -v mpirun >/dev/null 2>&1") != 0)
        cr_skip_test("no MPI in this build (NO_MPI=1 or mpicc/mpirun not found)");
    mpirun_may_oversubscribe();
    Run a;
    run_program((char *[]){"/usr/bin/env", "mpirun", "-np", "2", "./train", "--strategy",
                           "direct", "--transport", "mpi", "--train_size", "1024", "--epochs",
                           "1", "--device", "cpu", NULL}, &a);
    cr_assert(a.status == 0, "exit %d: %s", a.status, a.err);
    says_what_ran(&a, "two-shot");
}

/* Chapter 8's binding: with at least as many cores as ranks, forked rank r runs on the r-th
 * block of (cores / ranks) of the cores the run may use, where its BLAS threads run too:
 * blocks of the same size that do not overlap. Read from the kernel while ./ring runs. */
Test(binding, each_forked_rank_runs_on_a_block_of_its_own, .timeout = 60)
{
    if (getenv("DPS_FAKE_CORES"))
        cr_skip_test("DPS_FAKE_CORES: a machine of stand-in cores cannot bind to cores it lacks");
    cpu_set_t allowed;
    cr_assert(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    int cores = CPU_COUNT(&allowed), n = 2;
    if (cores < n)
        cr_skip_test("%d core(s) for %d ranks: the ranks are not bound", cores, n);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    pid_t parent = spawn_dying_with_test((char *[]){"./ring", "--n_gpus", "2", "--device",
                                                    "cpu", "--epochs", "100000",
                                                    "--train_size", "1024", "--quiet", NULL},
                                         null, null);
    pid_t pid[2] = {0};
    cpu_set_t mask[2];
    int share = cores / n, bound = 0;
    for (double t0 = now_seconds(); now_seconds() - t0 < 20 && bound < n; usleep(10000)) {
        if (ranks_of_launcher(parent, pid, n) < n)
            continue;
        bound = 0;
        for (int r = 0; r < n; r++)
            bound += sched_getaffinity(pid[r], sizeof mask[r], &mask[r]) == 0 &&
                     CPU_COUNT(&mask[r]) == share;
    }
    kill(parent, SIGKILL); /* the ranks die with it (PR_SET_PDEATHSIG) */
    waitpid(parent, NULL, 0);
    close(null);
    cr_assert(bound == n, "%d cores, %d ranks: after 20 s, %d of the ranks run on %d cores "
              "each", cores, n, bound, share);
    cpu_set_t both;
    CPU_AND(&both, &mask[0], &mask[1]);
    cr_assert(CPU_COUNT(&both) == 0, "the two ranks' cores overlap (%d in common)",
              CPU_COUNT(&both));
    CPU_OR(&both, &mask[0], &mask[1]);
    CPU_AND(&both, &both, &allowed);
    cr_assert(CPU_COUNT(&both) == 2 * share, "the ranks run on cores the run may not use");
}
