/**
 * @file measure.c
 * @brief The ping-pong of one size (chapter 2) and the collectives under test (chapter 4).
 */
#line 3426 "chapters/02-shm.nw"
#include "measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "hierarchy.h"
#include "launch.h"
#include "report.h"
#include "star.h"
#include "util.h"

#line 3448 "chapters/02-shm.nw"
static unsigned char pattern(size_t i, size_t size)
{
    return (unsigned char)((i * 2654435761u + size * 40503u) >> 7);
}

static void fill(const Device *dev, unsigned char *host, void *buf, size_t size)
{
    for (size_t i = 0; i < size; i++)
        host[i] = pattern(i, size);
    dev->upload(buf, host, size);
}

static long count_wrong(const Device *dev, unsigned char *host, const void *buf, size_t size)
{
#line 3463 "chapters/02-shm.nw"
    dev->download(host, buf, size);
    long wrong = 0;
    for (size_t i = 0; i < size; i++)
        wrong += host[i] != pattern(i, size);
    return wrong;
}
#line 3510 "chapters/02-shm.nw"
int pingpong_size(Comm *c, const Timing *tm, size_t size, unsigned char *host, void *sbuf,
                  void *rbuf, double *times, PingRow *row, char *err)
{
    const Device *dev = c->dev;
    int me = c->rank, peer = 1 - me;
    row->wrong = 0;
#line 3529 "chapters/02-shm.nw"
    if (tm->check) {
        launch_phase("checking %zu B", size);
        if (me == 0) {
            fill(dev, host, sbuf, size);
            if (c->send(c, 1, sbuf, size, err) || c->recv(c, 1, rbuf, size, err))
                return -1;
            row->wrong = count_wrong(dev, host, rbuf, size);
        } else if (c->recv(c, 0, rbuf, size, err) || c->send(c, 0, rbuf, size, err)) {
            return -1;
        }
    }
#line 3552 "chapters/02-shm.nw"
    launch_phase("pingpong %zu B", size);
    for (int i = -tm->warmup; i < tm->iters; i++) {
        double t0 = now_seconds();
        if (me == 0 ? c->send(c, 1, sbuf, size, err) || c->recv(c, 1, rbuf, size, err)
                    : c->recv(c, 0, rbuf, size, err) || c->send(c, 0, rbuf, size, err))
            return -1;
        if (i >= 0)
            times[i] = (now_seconds() - t0) / 2;
    }
    row->oneway = median(times, tm->iters);
#line 3576 "chapters/02-shm.nw"
    launch_phase("sendrecv %zu B", size);
    for (int i = -tm->warmup; i < tm->iters; i++) {
        double t0 = now_seconds();
        if (c->sendrecv(c, peer, sbuf, size, peer, rbuf, size, err))
            return -1;
        if (i >= 0)
            times[i] = now_seconds() - t0;
    }
    row->both = median(times, tm->iters);
#line 3519 "chapters/02-shm.nw"
    return 0;
}
#line 376 "chapters/05-ag.nw"
static void fill_chunk(int r, int size, float *x, size_t count)
{
    for (size_t i = 0; i < count; i++)
        x[i] = NAN;
    for (size_t i = chunk_start(count, size, r); i < chunk_start(count, size, r + 1); i++)
        x[i] = collective_value(r, i);
}

static long wrong_all_gather(int r, int size, const float *x, size_t count)
{
    (void)r;
    long wrong = 0;
    for (int k = 0; k < size; k++)
        for (size_t i = chunk_start(count, size, k); i < chunk_start(count, size, k + 1); i++)
            wrong += x[i] != collective_value(k, i);
#line 392 "chapters/05-ag.nw"
    return wrong;
}

#line 402 "chapters/05-ag.nw"
static long wrong_all_reduce(int r, int size, const float *x, size_t count)
{
    (void)r;
    long wrong = 0;
    for (size_t i = 0; i < count; i++)
        wrong += x[i] != collective_sum(size, i);
    return wrong;
}

static int run_all_gather(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    (void)scratch;
    return ring_all_gather(c, buf, count, sizeof(float), err);
}

static int run_all_reduce(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    return ring_all_reduce(c, buf, count, scratch, 1.0f, err);
}
#line 858 "chapters/06-production.nw"
static int run_native_all_reduce(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
#line 861 "chapters/06-production.nw"
    (void)scratch;
    if (!c->allreduce)
        return error_set(err,
                         "the %s transport has no all-reduce of its own: use "
                         "--transport mpi under mpirun",
                         c->name);
#line 865 "chapters/06-production.nw"
    return c->allreduce(c, buf, count, err);
}
#line 928 "chapters/06-production.nw"
static int run_ps_all_reduce(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    size_t bytes = count * sizeof *buf;
    if (c->rank != 0)
        return c->send(c, 0, buf, bytes, err) || c->recv(c, 0, buf, bytes, err) ? -1 : 0;
    if (star_gather_sum(c, buf, scratch, count, 1.0f, err))
        return -1;
    return star_send_all(c, buf, count, err);
}

#line 951 "chapters/06-production.nw"
static int run_memcpy(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    (void)err;
    c->dev->copy(scratch, buf, count * sizeof *buf);
    return 0;
}

static long wrong_memcpy(int r, int size, const float *x, size_t count)
{
    (void)size;
    long wrong = 0;
    for (size_t i = 0; i < count; i++)
        wrong += x[i] != collective_value(r, i);
    return wrong;
}

#line 1356 "chapters/08-direct.nw"
static int run_one_shot(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    return direct_one_shot(c, buf, count, scratch, 1.0f, err); /* scratch: a whole vector */
}

static int run_two_shot(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    return direct_two_shot(c, buf, count, scratch, 1.0f, err);
}

static int run_direct_ring(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    return direct_ring(c, buf, count, scratch, 1.0f, err);
}

static int run_all_reduce_auto(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    return all_reduce(c, buf, count, scratch, 1.0f, err);
}
#line 1171 "chapters/09-hosts.nw"
static int run_hierarchical(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    static Hierarchy h; /* this process's: its program measures on one communicator */
    if (!h.local && c->dev->kind != DEVICE_CPU)
        return error_set(err, "all_reduce_hierarchical: host names travel in host memory "
                              "(use --device cpu)");
    if (!h.local && hierarchy_open(&h, c, c, 0, err))
        return -1;
    return hierarchical_all_reduce(&h, buf, count, scratch, 1.0f, err);
}
#line 523 "chapters/A3-programs.nw"
static void fill_own(int r, int size, float *x, size_t count)
{
    (void)size;
    for (size_t i = 0; i < count; i++)
        x[i] = collective_value(r, i);
}

static long wrong_reduce_scatter(int r, int size, const float *x, size_t count)
{
    long wrong = 0;
    for (size_t i = chunk_start(count, size, r); i < chunk_start(count, size, r + 1); i++)
        wrong += x[i] != collective_sum(size, i);
    return wrong;
}

#line 485 "chapters/A3-programs.nw"
/** The rows of --op. */
static const Op ops[] = {
    {.name = "reduce_scatter",
     .bus = 1,
     .fill = fill_own,
     .run = ring_reduce_scatter,
     .wrong = wrong_reduce_scatter},
    {.name = "all_gather",
     .bus = 1,
     .fill = fill_chunk,
     .run = run_all_gather,
     .wrong = wrong_all_gather},
    {.name = "all_reduce",
     .bus = 2,
     .fill = fill_own,
     .run = run_all_reduce,
     .wrong = wrong_all_reduce},
    {.name = "native_all_reduce",
     .bus = 2,
     .native = true,
     .fill = fill_own,
     .run = run_native_all_reduce,
     .wrong = wrong_all_reduce},
    {.name = "ps_all_reduce",
     .bus = 2,
     .fill = fill_own,
     .run = run_ps_all_reduce,
     .wrong = wrong_all_reduce},
    {.name = "memcpy", .bus = 0, .fill = fill_own, .run = run_memcpy, .wrong = wrong_memcpy},
    {.name = "nccl_all_reduce",
     .bus = 2,
     .nccl = true,
     .fill = fill_own,
     .run = run_native_all_reduce,
     .wrong = wrong_all_reduce},
    {.name = "all_reduce_one_shot",
     .bus = 2,
     .fill = fill_own,
     .run = run_one_shot,
     .wrong = wrong_all_reduce},
    {.name = "all_reduce_two_shot",
     .bus = 2,
     .fill = fill_own,
     .run = run_two_shot,
     .wrong = wrong_all_reduce},
    {.name = "all_reduce_direct_ring",
     .bus = 2,
     .fill = fill_own,
     .run = run_direct_ring,
     .wrong = wrong_all_reduce},
    {.name = "all_reduce_auto",
     .bus = 2,
     .fill = fill_own,
     .run = run_all_reduce_auto,
     .wrong = wrong_all_reduce},
    {.name = "all_reduce_hierarchical",
     .bus = 2,
     .fill = fill_own,
     .run = run_hierarchical,
     .wrong = wrong_all_reduce},
};

#line 502 "chapters/A3-programs.nw"
const Op *op_find(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].name, name) == 0)
            return &ops[i];
    return NULL;
}

const char *op_names(void)
{
    static char names[256];
    for (size_t i = 0, used = 0; i < sizeof ops / sizeof ops[0] && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? "|" : "",
                                 ops[i].name);
#line 517 "chapters/A3-programs.nw"
    return names;
}

#line 545 "chapters/A3-programs.nw"
int op_measure(Comm *c, const Timing *tm, const Op *op, size_t count, float *host, float *buf,
               float *scratch, double *times, double *t, long *wrong, char *err)
{
#line 549 "chapters/A3-programs.nw"
    const Device *dev = c->dev;
    *wrong = 0;
    if (tm->check) {
        op->fill(c->rank, c->size, host, count);
        dev->upload(buf, host, count * sizeof(float));
        if (op->run(c, buf, count, scratch, err))
            return -1;
        dev->download(host, buf, count * sizeof(float));
        *wrong = op->wrong(c->rank, c->size, host, count);
    }
    if (c->barrier(c, err))
        return -1;
#line 572 "chapters/A3-programs.nw"
    for (int i = -tm->warmup; i < tm->iters; i++) {
        double t0 = now_seconds();
        if (op->run(c, buf, count, scratch, err))
            return -1;
        dev->sync();
        if (i >= 0)
            times[i] = now_seconds() - t0;
    }
#line 562 "chapters/A3-programs.nw"
    *t = median(times, tm->iters);
    return 0;
}
