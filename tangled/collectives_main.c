#line 446 "chapters/04-rs.nw"
/**
 * @file collectives_main.c
 * @brief The program collectives: run, check and time the ring's collectives
 * (chapters 4 and 5), in the conventions of nccl-tests.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "comm.h"
#include "device.h"
#include "production.h"
#include "report.h"
#include "run.h"
#include "util.h"

static const char *summary =
    "Run, check and time a collective of the ring over N ranks, for sizes from -b to -e,\n"
    "in the conventions of nccl-tests (time, algbw, busbw, #wrong).";
static const char *examples =
    "  ./collectives --n_gpus 4                         reduce-scatter, 8 B to 256 MiB\n"
    "  ./collectives --n_gpus 4 -b 1K -e 64M -f 4       fewer sizes\n"
    "  ./collectives --op all_reduce --n_gpus 2 -n 50   the ring all-reduce (chapter 5)\n"
    "  mpirun -np 2 ./collectives --transport mpi --op native_all_reduce\n"
    "                                                   MPI_Allreduce (chapter 6)\n";

/** The host communicator of this rank, beside the one of the buffers. */
static Comm *run_host;

/**
 * One collective: fill, run, count wrong elements; busbw = algbw x bus x (N-1)/N, or algbw
 * when bus is 0 (a copy on each rank, no traffic between them).
 */
typedef struct Op {
    const char *name; /**< as --op spells it */
    int bus;          /**< 1: reduce-scatter, all-gather; 2: all-reduce; 0: a local copy */
    /** Fill rank @p r's host buffer of @p count elements of @p size ranks. */
    void (*fill)(int r, int size, float *x, size_t count);
    /** Run the collective on device buffer @p buf. */
    int (*run)(Comm *c, float *buf, size_t count, float *scratch, char *err);
    /** Count the elements of rank @p r's result @p x that are wrong. */
    long (*wrong)(int r, int size, const float *x, size_t count);
} Op;

#line 507 "chapters/04-rs.nw"
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
#line 314 "chapters/05-ag.nw"
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
    return wrong;
}

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
#line 349 "chapters/06-production.nw"
static int run_native_all_reduce(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    (void)scratch;
    if (!c->allreduce)
        return error_set(err,
                         "the %s transport has no all-reduce of its own: use "
                         "--transport mpi under mpirun",
                         c->name);
    return c->allreduce(c, buf, count, err);
}
#line 378 "chapters/06-production.nw"
/** A buffer of at least @p count floats on @p dev, kept from call to call. */
static float *spare(const Device *dev, size_t count)
{
    static float *buf;
    static size_t cap;
    if (count > cap) {
        if (buf)
            dev->release(buf);
        buf = dev->alloc((count + 1) * sizeof *buf);
        cap = count;
    }
    return buf;
}

static int run_ps_all_reduce(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    (void)scratch;
    size_t bytes = count * sizeof *buf;
    if (c->rank != 0)
        return c->send(c, 0, buf, bytes, err) || c->recv(c, 0, buf, bytes, err) ? -1 : 0;
    float *in = spare(c->dev, count);
    for (int q = 1; q < c->size; q++) {
        if (c->recv(c, q, in, bytes, err))
            return -1;
        c->dev->axpy(count, 1.0f, in, buf);
    }
    for (int q = 1; q < c->size; q++)
        if (c->send(c, q, buf, bytes, err))
            return -1;
    return 0;
}

static int run_memcpy(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    (void)scratch, (void)err;
    c->dev->copy(spare(c->dev, count), buf, count * sizeof *buf);
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

static int run_nccl_all_reduce(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    (void)scratch;
    static NcclState st;
    static bool open;
    if (!open && nccl_open(&st, run_host, c->dev, err))
        return -1;
    open = true;
    return nccl_all_reduce(&st, buf, count, false, err);
}

#line 495 "chapters/04-rs.nw"
/** The rows of --op. */
static const Op ops[] = {
    {"reduce_scatter", 1, fill_own, ring_reduce_scatter, wrong_reduce_scatter},

#line 309 "chapters/05-ag.nw"
    {"all_gather", 1, fill_chunk, run_all_gather, wrong_all_gather},
    {"all_reduce", 2, fill_own, run_all_reduce, wrong_all_reduce},
#line 345 "chapters/06-production.nw"
    {"native_all_reduce", 2, fill_own, run_native_all_reduce, wrong_all_reduce},
#line 363 "chapters/06-production.nw"
    {"ps_all_reduce", 2, fill_own, run_ps_all_reduce, wrong_all_reduce},
    {"memcpy", 0, fill_own, run_memcpy, wrong_memcpy},
    {"nccl_all_reduce", 2, fill_own, run_nccl_all_reduce, wrong_all_reduce},
#line 499 "chapters/04-rs.nw"
};

#line 529 "chapters/04-rs.nw"
/** Check and time @p count elements; the median seconds in *t, wrong elements in *wrong. */
static int one_size(Comm *c, const Options *o, const Op *op, size_t count, float *host,
                    float *buf, float *scratch, double *times, double *t, long *wrong,
                    char *err)
{
    const Device *dev = c->dev;
    *wrong = 0;
    if (o->check) {
        op->fill(c->rank, c->size, host, count);
        dev->upload(buf, host, count * sizeof(float));
        if (op->run(c, buf, count, scratch, err))
            return -1;
        dev->download(host, buf, count * sizeof(float));
        *wrong = op->wrong(c->rank, c->size, host, count);
    }
    if (c->barrier(c, err))
        return -1;
    for (int i = -o->warmup; i < o->iters; i++) {
        double t0 = now_seconds();
        if (op->run(c, buf, count, scratch, err))
            return -1;
        dev->sync();
        if (i >= 0)
            times[i] = now_seconds() - t0;
    }
    *t = median(times, o->iters);
    return 0;
}
#line 566 "chapters/04-rs.nw"
static int collectives_rank(Rank *r, char *err)
{
    const Options *o = &r->run->o;
    const Op *op = r->run->program;
    const Device *dev = r->dev;
    Comm *c = r->c, *host = r->host;
    int rank = r->rank, size = r->size;
    run_host = host; /* for the collectives that need host messages (chapter 6) */
    if (rank == 0)
#line 615 "chapters/04-rs.nw"
    {
        char lo[32], hi[32];
        printf("# collectives: %s on %d ranks over %s\n", op->name, size,
               strcmp(c->name, "mpi") == 0 ? "MPI"
               : dev->kind == DEVICE_CPU   ? "shared memory (processes standing in for GPUs)"
                                           : "shared memory (CUDA IPC)");
        printf("# device %s: %s\n", r->note, dev->description);
        printf("# sizes %s to %s, x%d; median of %d after %d warm-up; %s\n",
               format_bytes(lo, o->min_bytes), format_bytes(hi, o->max_bytes), o->step_factor,
               o->iters, o->warmup, o->check ? "every element checked" : "not checked");
        printf("# busbw = %s\n#\n", op->bus == 2   ? "algbw x 2(N-1)/N"
                                    : op->bus == 1 ? "algbw x (N-1)/N"
                                                   : "algbw");
        printf("# %10s %12s %6s %10s %9s %9s %8s\n# %10s %12s %6s %10s %9s %9s %8s\n", "size",
               "count", "type", "time", "algbw", "busbw", "#wrong", "(B)", "(elements)", "",
               "(us)", "(GB/s)", "(GB/s)", "");
        fflush(stdout);
    }
#line 576 "chapters/04-rs.nw"
    size_t most = o->max_bytes / sizeof(float);
    float *hbuf = xcalloc(most + 1, sizeof(float));
    float *buf = dev->alloc((most + 1) * sizeof(float));
    float *scratch = dev->alloc((chunk_max(most, size) + 1) * sizeof(float));
    double *times = xcalloc((size_t)o->iters, sizeof *times), bus_sum = 0;
    int rows = 0;
    size_t last = (size_t)-1;
    for (size_t s = o->min_bytes; s <= o->max_bytes; s = s ? s * o->step_factor : 1) {
        size_t count = s / sizeof(float);
        if (count == last) /* sizes are rounded down to whole floats: 1 B is 0 B again */
            continue;
        last = count;
        double t;
        long wrong, w;
        if (one_size(c, o, op, count, hbuf, buf, scratch, times, &t, &wrong, err))
            return -1;
        if (rank != 0 && host->send(host, 0, &wrong, sizeof wrong, err))
            return -1;
        for (int q = 1; rank == 0 && q < size; q++) {
            if (host->recv(host, q, &w, sizeof w, err))
                return -1;
            wrong += w;
        }
        if (rank == 0)
#line 635 "chapters/04-rs.nw"
        {
            double bytes = (double)count * sizeof(float), algbw = bytes / t / 1e9;
            double busbw = op->bus ? algbw * op->bus * (size - 1) / size : algbw;
            char shown[24];
            snprintf(shown, sizeof shown, "%ld", wrong);
            printf("%12zu %12zu %6s %10.2f %9.3f %9.3f %8s\n", count * sizeof(float), count,
                   "float", t * 1e6, algbw, busbw, o->check ? shown : "N/A");
            fflush(stdout);
            bus_sum += busbw;
            rows++;
            if (wrong)
                return error_set(err, "%s of %zu elements: %ld wrong", op->name, count, wrong);
        }
#line 601 "chapters/04-rs.nw"
        if (s > o->max_bytes / o->step_factor)
            break;
    }
    if (rank == 0 && rows > 0)
        printf("# average bus bandwidth: %.3f GB/s over %d sizes\n", bus_sum / rows, rows);
    dev->release(buf);
    dev->release(scratch);
    free(hbuf);
    free(times);
    return 0;
}
#line 655 "chapters/04-rs.nw"
/** Parse, refuse what makes no sense, launch the ranks. */
int main(int argc, char **argv)
{
    static Run run;
    unsigned accepted = OPTS_RANKS | OPT_BENCH | OPT_OP | OPT_TRANSPORT;
    int status = run_parse(&run, argc, argv, accepted, summary, examples);
    if (status != RUN_GO)
        return status;
    if (run.o.min_bytes > run.o.max_bytes) {
        fprintf(stderr, "%s: -b %zu is larger than -e %zu\n", program_name(), run.o.min_bytes,
                run.o.max_bytes);
        return EXIT_USAGE;
    }
    const Op *op = NULL;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].name, run.o.op) == 0)
            op = &ops[i];
    if (!op) {
        fprintf(stderr, "%s: --op %s: this program has no such collective\n", program_name(),
                run.o.op);
        return EXIT_USAGE;
    }
    run.program = (void *)op;
    if ((status = run_start(&run, false)) != RUN_GO)
        return status;

#line 439 "chapters/06-production.nw"
    if (!run.mpi && strcmp(op->name, "native_all_reduce") == 0) {
        fprintf(stderr,
                "%s: --op native_all_reduce: the shared-memory transport has no "
                "all-reduce of its own; run it under mpirun with --transport mpi\n",
                program_name());
        return EXIT_USAGE;
    }
#line 681 "chapters/04-rs.nw"
    run_ranks(&run, collectives_rank);
    return run_finish(&run);
}
