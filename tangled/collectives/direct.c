/**
 * @file direct.c
 * @brief All-reduces that read the peers' buffers where they lie (chapter 8).
 */
#line 884 "chapters/08-direct.nw"
#include "collectives.h"

#include <stdint.h>

#include "launch.h"
#include "util.h"

#line 906 "chapters/08-direct.nw"
int direct_copies(Comm *c, float *buf, float **v, char *err)
{
    if (!c->peer_buffer || c->size > DEVICE_MAX_SOURCES)
        return error_set(err,
                         "a direct all-reduce needs memory the peers can read (the "
                         "shm transport on the CPU, at most %d ranks)",
                         DEVICE_MAX_SOURCES);
#line 911 "chapters/08-direct.nw"
    for (int q = 0; q < c->size; q++)
        if (!(v[q] = q == c->rank ? buf : c->peer_buffer(c, q, buf)))
            return error_set(err, "a direct all-reduce on a buffer the peers cannot read "
                                  "(allocate it with alloc_shared)");
    return 0;
}

int direct_wait_all(Comm *c, uint32_t value, char *err)
{
    for (int q = 0; q < c->size; q++)
        if (q != c->rank && c->wait_for(c, q, value, err))
            return -1;
    return 0;
}

#line 937 "chapters/08-direct.nw"
int direct_one_shot(Comm *c, float *buf, size_t count, float *scratch, float scale, char *err)
{
    float *v[DEVICE_MAX_SOURCES];
    const float *src[DEVICE_MAX_SOURCES];
    if (direct_copies(c, buf, v, err))
        return -1;
    for (int q = 0; q < c->size; q++)
        src[q] = v[q];
    uint32_t base = c->progress(c);
    launch_phase("one-shot all-reduce of %zu floats", count);
    c->advance(c, base + 1); /* my buffer is ready */
    if (direct_wait_all(c, base + 1, err))
        return -1;
    c->dev->reduce(count, src, c->size, scale, scratch);
    c->advance(c, base + 2); /* I have read every buffer */
    if (direct_wait_all(c, base + 2, err))
        return -1;
    c->dev->copy(buf, scratch, count * sizeof(float));
    return 0;
}

#line 1009 "chapters/08-direct.nw"
int direct_two_shot(Comm *c, float *buf, size_t count, float *scratch, float scale, char *err)
{
    (void)scratch;
    float *v[DEVICE_MAX_SOURCES];
    const float *part[DEVICE_MAX_SOURCES];
    if (direct_copies(c, buf, v, err))
        return -1;
    int n = c->size, r = c->rank;
    uint32_t base = c->progress(c);
    size_t lo = chunk_start(count, n, r), hi = chunk_start(count, n, r + 1);
    launch_phase("two-shot all-reduce of %zu floats", count);
    c->advance(c, base + 1);
    if (direct_wait_all(c, base + 1, err))
        return -1;
    for (int q = 0; q < n; q++)
        part[q] = v[q] + lo;
    c->dev->reduce(hi - lo, part, n, scale, buf + lo); /* my chunk, from everyone's */
#ifdef DPS_TWO_SHOT_PULL
#line 1051 "chapters/08-direct.nw"
    c->advance(c, base + 2); /* my chunk is reduced */
    if (direct_wait_all(c, base + 2, err))
        return -1;
    for (int k = 1; k < n; k++) { /* every other chunk, read from its owner */
        int q = (r + k) % n;
        size_t qlo = chunk_start(count, n, q), qhi = chunk_start(count, n, q + 1);
        c->dev->copy(buf + qlo, v[q] + qlo, (qhi - qlo) * sizeof(float));
    }
    c->advance(c, base + 3); /* I have read every owner's chunk */
    return direct_wait_all(c, base + 3, err);
#line 1028 "chapters/08-direct.nw"
#endif
    for (int k = 1; k < n; k++) /* pushed to every other rank, the next one first */
        c->dev->copy(v[(r + k) % n] + lo, buf + lo, (hi - lo) * sizeof(float));
    c->advance(c, base + 2);
    return direct_wait_all(c, base + 2, err);
}

#line 1083 "chapters/08-direct.nw"
int direct_ring(Comm *c, float *buf, size_t count, float *scratch, float scale, char *err)
{
    (void)scratch;
    float *v[DEVICE_MAX_SOURCES];
    if (direct_copies(c, buf, v, err))
        return -1;
    int n = c->size, r = c->rank, prev = (r + n - 1) % n, next = (r + 1) % n;
    uint32_t base = c->progress(c), steps = 2 * (uint32_t)n - 1;
    c->advance(c, base + 1); /* my buffer is ready: step t ends at base + 2 + t */
#line 1099 "chapters/08-direct.nw"
    for (int t = 0; t < n - 1; t++) {
        int in = (r - t - 2 + 2 * n) % n;
        size_t lo = chunk_start(count, n, in), hi = chunk_start(count, n, in + 1);
        launch_phase("direct ring share-reduce, step %d of %d", t + 1, n - 1);
        if (c->wait_for(c, prev, base + 1 + (uint32_t)t, err))
            return -1;
        c->dev->axpy(hi - lo, 1.0f, v[prev] + lo, buf + lo);
        if (t < n - 2) /* the last step is announced once the chunk is scaled */
            c->advance(c, base + 2 + (uint32_t)t);
    }
    if (scale != 1.0f) {
        size_t lo = chunk_start(count, n, r);
        c->dev->scale(chunk_start(count, n, r + 1) - lo, scale, buf + lo);
    }
    c->advance(c, base + (uint32_t)n);
#line 1117 "chapters/08-direct.nw"
    for (int t = 0; t < n - 1; t++) {
        int in = (r - t - 1 + 2 * n) % n;
        size_t lo = chunk_start(count, n, in), hi = chunk_start(count, n, in + 1);
        uint32_t done = base + (uint32_t)(n + t);
        launch_phase("direct ring share-only, step %d of %d", t + 1, n - 1);
        if (c->wait_for(c, prev, done, err) ||
            c->wait_for(c, next, base + 2 + (uint32_t)t, err))
            return -1;
#line 1124 "chapters/08-direct.nw"
        c->dev->copy(buf + lo, v[prev] + lo, (hi - lo) * sizeof(float));
        c->advance(c, done + 1);
    }
#line 1094 "chapters/08-direct.nw"
    return c->wait_for(c, next, base + steps, err);
}

#line 1293 "chapters/08-direct.nw"
/** The largest messages (bytes) for one-shot and for two-shot; the direct ring beyond. */
typedef struct Crossover {
    size_t one_shot_max; /**< one-shot up to this many bytes */
    size_t two_shot_max; /**< two-shot up to this many; the direct ring beyond */
} Crossover;

/** Measured on the book's machine (Table 8.1), by rank count. */
static const Crossover crossovers[] = {
    [2] = {.one_shot_max = 0, .two_shot_max = SIZE_MAX},
    [3] = {.one_shot_max = 0, .two_shot_max = SIZE_MAX},
    [4] = {.one_shot_max = 0, .two_shot_max = 1 << 20},
};

#line 1333 "chapters/08-direct.nw"
/** Any device but the CPU's: two-shot at every size and rank count, until measured. */
static const Crossover gpu_crossovers[] = {
    [2] = {.one_shot_max = 0, .two_shot_max = SIZE_MAX},
    [3] = {.one_shot_max = 0, .two_shot_max = SIZE_MAX},
    [4] = {.one_shot_max = 0, .two_shot_max = SIZE_MAX},
};

#line 1281 "chapters/08-direct.nw"
/**
 * The crossovers of @p size ranks on @p dev: the CPU's table, or a GPU's for any other
 * device (NULL too); the row of 2, 3 or 4, four's for more.
 */
static const Crossover *crossover_of(const Device *dev, int size)
{
    const Crossover *table = dev && dev->kind == DEVICE_CPU ? crossovers : gpu_crossovers;
    return &table[size <= 2 ? 2 : size >= 4 ? 4 : size];
}

#line 1225 "chapters/08-direct.nw"
AllReduceAlgo all_reduce_choice(Comm *c, const float *buf, size_t count)
{
    if (c->size == 1 || !c->peer_buffer || c->size > DEVICE_MAX_SOURCES)
        return ALGO_CHANNEL_RING;
    for (int q = 0; q < c->size && count; q++) /* every peer, or ranks would choose apart */
        if (q != c->rank && !c->peer_buffer(c, q, buf))
            return ALGO_CHANNEL_RING;
    const Crossover *x = crossover_of(c->dev, c->size);
    size_t bytes = count * sizeof(float);
    return bytes <= x->one_shot_max   ? ALGO_ONE_SHOT
           : bytes <= x->two_shot_max ? ALGO_TWO_SHOT
                                      : ALGO_DIRECT_RING;
}

#line 1264 "chapters/08-direct.nw"
const char *all_reduce_algo_name(AllReduceAlgo a)
{
    static const char *names[] = {"channel ring", "one-shot", "two-shot", "direct ring"};
    return names[a];
}

size_t all_reduce_scratch(size_t count, int size)
{
    size_t cpu = crossover_of(device_cpu(), size)->one_shot_max;
    size_t gpu = crossover_of(NULL, size)->one_shot_max; /* whichever device runs it */
    size_t one = (cpu > gpu ? cpu : gpu) / sizeof(float);
    size_t chunk = chunk_max(count, size), most = count < one ? count : one;
    return most > chunk ? most : chunk;
}

#line 1245 "chapters/08-direct.nw"
int all_reduce(Comm *c, float *buf, size_t count, float *scratch, float scale, char *err)
{
    switch (all_reduce_choice(c, buf, count)) {
    case ALGO_ONE_SHOT: return direct_one_shot(c, buf, count, scratch, scale, err);
    case ALGO_TWO_SHOT: return direct_two_shot(c, buf, count, scratch, scale, err);
    case ALGO_DIRECT_RING: return direct_ring(c, buf, count, scratch, scale, err);
    default: return ring_all_reduce(c, buf, count, scratch, scale, err);
#line 1253 "chapters/08-direct.nw"
    }
}
