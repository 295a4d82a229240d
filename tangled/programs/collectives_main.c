/**
 * @file collectives_main.c
 * @brief The program collectives: run, check and time the ring's collectives
 * (chapters 4 and 5), in the conventions of nccl-tests.
 */
#line 679 "chapters/A3-programs.nw"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "comm_nccl.h"
#include "device.h"
#include "measure.h"
#include "report.h"
#include "run.h"
#include "util.h"

#line 703 "chapters/A3-programs.nw"
static const char *summary =
    "Run, check and time a collective of the ring over N ranks, for sizes from -b to -e,\n"
    "in the conventions of nccl-tests (time, algbw, busbw, #wrong).";
static const char *examples =
    "  ./collectives --n_gpus 4                         reduce-scatter, 8 B to 256 MiB\n"
    "  ./collectives --n_gpus 4 -b 1K -e 64M -f 4       fewer sizes\n"
    "  ./collectives --op all_reduce --n_gpus 2 -n 50   the ring all-reduce (chapter 5)\n"
    "  mpirun -np 2 ./collectives --transport mpi --op native_all_reduce\n"
    "                                                   MPI_Allreduce (chapter 6)\n";

#line 589 "chapters/A3-programs.nw"
static int collectives_rank(Rank *r, char *err)
{
    const Options *o = &r->run->o;
    const Op *op = r->run->program;
    const Device *dev = r->dev;
    Comm *host = r->host, *c = op->nccl ? comm_nccl_open(r->c, host, err) : r->c;
    if (!c)
        return -1;
    int rank = r->rank, size = r->size;
    Timing tm = {.warmup = o->warmup, .iters = o->iters, .check = o->check};
    if (rank == 0) {
#line 731 "chapters/A3-programs.nw"
        char lo[32], hi[32];
        printf("# collectives: %s on %d ranks over %s\n", op->name, size,
               r->run->mpi               ? "MPI"
               : dev->kind == DEVICE_CPU ? "shared memory (processes standing in for GPUs)"
                                         : "shared memory (CUDA IPC)");
        printf("# device %s: %s\n", r->note, dev->description);
        exercises_banner("# exercise ");
        char shared[64];
        if (run_gpu_sharing(r, shared, sizeof shared))
            printf("# %s: the ranks take turns on it\n", shared);
        printf("# sizes %s to %s, x%d; median of %d after %d warm-up; %s\n",
               format_bytes(lo, o->min_bytes), format_bytes(hi, o->max_bytes), o->step_factor,
               o->iters, o->warmup, o->check ? "every element checked" : "not checked");
        printf("# busbw = %s\n#\n", op->bus == 2   ? "algbw x 2(N-1)/N"
                                    : op->bus == 1 ? "algbw x (N-1)/N"
                                                   : "algbw");
#line 746 "chapters/A3-programs.nw"
        printf("# %10s %12s %6s %10s %9s %9s %8s\n# %10s %12s %6s %10s %9s %9s %8s\n", "size",
               "count", "type", "time", "algbw", "busbw", "#wrong", "(B)", "(elements)", "",
               "(us)", "(GB/s)", "(GB/s)", "");
        fflush(stdout);
    }
#line 617 "chapters/A3-programs.nw"
    size_t most = o->max_bytes / sizeof(float);
    float *hbuf = xcalloc(most + 1, sizeof(float));
#line 1352 "chapters/08-direct.nw"
    float *shared = c->alloc_shared ? c->alloc_shared(c, (most + 1) * sizeof(float)) : NULL;
#line 620 "chapters/A3-programs.nw"
    float *buf = shared ? shared : dev->alloc((most + 1) * sizeof(float));
    size_t need = all_reduce_scratch(most, size); /* and a whole vector, for some rows */
    float *scratch = dev->alloc(((need > most ? need : most) + 1) * sizeof(float));
    double *times = xcalloc((size_t)o->iters, sizeof *times), bus_sum = 0;
    int rows = 0;
    size_t last = (size_t)-1;
#line 634 "chapters/A3-programs.nw"
    for (size_t s = o->min_bytes; s <= o->max_bytes; s = s ? s * o->step_factor : 1) {
        size_t count = s / sizeof(float);
        if (count == last) /* sizes are rounded down to whole floats: 1 B is 0 B again */
            continue;
        last = count;
#line 651 "chapters/A3-programs.nw"
        double t;
        long wrong, w;
        if (op_measure(c, &tm, op, count, hbuf, buf, scratch, times, &t, &wrong, err))
            return -1;
        if (rank != 0 && host->send(host, 0, &wrong, sizeof wrong, err))
            return -1;
        for (int q = 1; rank == 0 && q < size; q++) {
            if (host->recv(host, q, &w, sizeof w, err))
                return -1;
            wrong += w;
        }
#line 640 "chapters/A3-programs.nw"
        if (rank == 0) {
#line 769 "chapters/A3-programs.nw"
            double bytes = (double)count * sizeof(float), algbw = bytes / t / 1e9;
            double busbw = op->bus ? algbw * op->bus * (size - 1) / size : algbw;
            char shown[24];
            snprintf(shown, sizeof shown, "%ld", wrong);
            printf("%12zu %12zu %6s %10.2f %9.3f %9.3f %8s\n", count * sizeof(float), count,
                   "float", t * 1e6, algbw, busbw, o->check ? shown : "N/A");
#line 776 "chapters/A3-programs.nw"
            fflush(stdout);
            bus_sum += busbw;
            rows++;
            if (wrong)
                return error_set(err, "%s of %zu elements: %ld wrong", op->name, count, wrong);
        }
#line 642 "chapters/A3-programs.nw"
        if (s > o->max_bytes / o->step_factor)
            break;
    }
#line 796 "chapters/A3-programs.nw"
    if (rank == 0 && rows > 0)
        printf("# average bus bandwidth: %.3f GB/s over %d sizes\n", bus_sum / rows, rows);
    if (!shared) /* chapter 8: a window's memory is the world's */
        dev->release(buf);
    dev->release(scratch);
    free(hbuf);
    free(times);
    if (c != r->c)
        c->close(c);
#line 604 "chapters/A3-programs.nw"
    return 0;
}
#line 820 "chapters/A3-programs.nw"
/** Parse, refuse what makes no sense, launch the ranks. */
int main(int argc, char **argv)
{
    static Run run;
    unsigned accepted = OPTS_RANKS | OPT_BENCH | OPT_OP | OPT_TRANSPORT;
    options_set_choices(OPT_OP, op_names());
    int status = run_parse(&run, argc, argv, accepted, summary, examples);
    if (status != RUN_GO)
        return status;
    const Op *op = op_find(run.o.op); /* the parser took only the table's names */
    run.program = (void *)op;
    if ((status = run_start(&run, false)) != RUN_GO)
        return status;
#line 850 "chapters/A3-programs.nw"
    if (!run.mpi && op->native) {
        fprintf(stderr,
                "%s: --op native_all_reduce: the shared-memory transport has no "
                "all-reduce of its own; run it under mpirun with --transport mpi\n",
                program_name());
#line 854 "chapters/A3-programs.nw"
        return EXIT_USAGE;
    }
#line 834 "chapters/A3-programs.nw"
    run_ranks(&run, collectives_rank);
    return run_finish(&run);
}
