/**
 * @file pingpong_main.c
 * @brief The program pingpong: latency and bandwidth between ranks (chapter 2).
 */
#line 130 "chapters/A3-programs.nw"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_shm.h"
#include "device.h"
#include "launch.h"
#include "measure.h"
#include "report.h"
#include "run.h"
#include "util.h"

#line 158 "chapters/A3-programs.nw"
static const char *summary =
    "Measure the shared-memory transport: latency and bandwidth between two ranks,\n"
    "and the barrier at N ranks. Ranks are GPUs, or processes standing in for them.";
static const char *examples =
    "  ./pingpong --n_gpus 2                    8 B to 256 MiB, CPU or GPU (auto)\n"
    "  ./pingpong -b 1K -e 64M -f 4 -n 50       fewer sizes, more iterations\n"
    "  ./pingpong --n_gpus 8 -e 1M              the barrier at 8 ranks\n"
    "  ./pingpong --device cuda                 GPU buffers through CUDA IPC\n";

#line 3596 "chapters/02-shm.nw"
static int pingpong_rank(Rank *r, char *err)
{
    const Options *o = &r->run->o;
    const Device *dev = r->dev;
    Comm *c = r->c;
    int rank = r->rank, size = r->size;
    Timing tm = {.warmup = o->warmup, .iters = o->iters, .check = o->check};
    if (rank == 0) {
#line 254 "chapters/A3-programs.nw"
        char lo[32], hi[32], chan[32];
        printf("# pingpong: %d ranks over shared memory (%s)\n", size,
               dev->kind == DEVICE_CPU ? "processes standing in for GPUs" : "CUDA IPC");
        printf("# device %s: %s\n", r->note, dev->description);
        exercises_banner("# exercise ");
        char shared[64];
        if (run_gpu_sharing(r, shared, sizeof shared))
            printf("# %s: messages between ranks on one GPU stay in its memory\n", shared);
        printf("# sizes %s to %s, x%d; %d iterations after %d warm-up; channel %s%s\n",
               format_bytes(lo, o->min_bytes), format_bytes(hi, o->max_bytes), o->step_factor,
               o->iters, o->warmup, format_bytes(chan, SHM_CHANNEL_BYTES),
               o->check ? "; checked" : "");
        if (size >= 2)
            printf("#\n# %10s %10s %9s %10s %9s %8s\n# %10s %10s %9s %10s %9s %8s\n", "size",
                   "one-way", "algbw", "sendrecv", "algbw", "#wrong", "(B)", "(us)", "(GB/s)",
                   "(us)", "(GB/s)", "");
    }
#line 3605 "chapters/02-shm.nw"
    unsigned char *host = xcalloc(o->max_bytes ? o->max_bytes : 1, 1);
    void *sbuf = dev->alloc(o->max_bytes), *rbuf = dev->alloc(o->max_bytes);
    double *times = xcalloc((size_t)o->iters, sizeof *times);
    double alpha = 0, beta = 0;
    size_t last = 0;
#line 3633 "chapters/02-shm.nw"
    if (rank < 2) {
        for (size_t s = o->min_bytes; s <= o->max_bytes; s = s ? s * o->step_factor : 1) {
            PingRow row;
            if (pingpong_size(c, &tm, s, host, sbuf, rbuf, times, &row, err))
                return -1;
            if (rank == 0) {
#line 191 "chapters/A3-programs.nw"
                char wrong[24];
                snprintf(wrong, sizeof wrong, "%ld", row.wrong);
                printf("%12zu %10.2f %9.3f %10.2f %9.3f %8s\n", s, row.oneway * 1e6,
                       s / row.oneway / 1e9, row.both * 1e6, s / row.both / 1e9,
                       o->check ? wrong : "N/A");
                fflush(stdout);
                if (s == o->min_bytes)
                    alpha = row.oneway;
                else
                    beta = (row.oneway - alpha) / (double)(s - o->min_bytes);
                last = s;
                if (row.wrong)
                    return error_set(err, "%ld of %zu bytes came back wrong", row.wrong, s);
            }
#line 3640 "chapters/02-shm.nw"
            if (s > o->max_bytes / o->step_factor)
                break;
        }
    }
#line 3656 "chapters/02-shm.nw"
    launch_phase("barrier");
    if (c->barrier(c, err))
        return -1;
    enum { BARRIERS = 1000 };
    for (int i = 0; i < 100; i++)
        if (c->barrier(c, err))
            return -1;
    double t0 = now_seconds();
    for (int i = 0; i < BARRIERS; i++)
        if (c->barrier(c, err))
            return -1;
    if (rank == 0)
        printf("# barrier: %d ranks, %.2f us (mean of %d)\n", size,
               (now_seconds() - t0) / BARRIERS * 1e6, BARRIERS);
#line 3612 "chapters/02-shm.nw"
    if (rank == 0) {
#line 226 "chapters/A3-programs.nw"
        if (last <= o->min_bytes)
            printf("# alpha-beta fit: none (one size only: give -e larger than -b)\n");
        else if (beta > 0)
            printf("# alpha-beta fit: T(n) = %.2f us + n / (%.2f GB/s)\n", alpha * 1e6,
                   1 / beta / 1e9);
        else
            printf("# alpha-beta fit: unreliable (%zu B took %.2f us, no longer than %zu B's "
                   "%.2f us: a noisy run; try a larger -n)\n",
                   last, (alpha + beta * (double)(last - o->min_bytes)) * 1e6, o->min_bytes,
                   alpha * 1e6);
    }
#line 3614 "chapters/02-shm.nw"
    dev->release(sbuf);
    dev->release(rbuf);
    free(host);
    free(times);
    return 0;
}
#line 286 "chapters/A3-programs.nw"
/** Parse, refuse what cannot work, launch the ranks. */
int main(int argc, char **argv)
{
    static Run run;
    int status = run_parse(&run, argc, argv, OPTS_RANKS | OPT_BENCH, summary, examples);
    if (status == RUN_GO)
        status = run_start(&run, false);
    if (status != RUN_GO)
        return status;
    if (run.ranks < 2) {
        fprintf(stderr, "%s: --n_gpus %d: a ping-pong needs at least 2 ranks\n", program_name(),
                run.ranks);
        return EXIT_USAGE;
    }
    run_ranks(&run, pingpong_rank);
    return run_finish(&run);
}
