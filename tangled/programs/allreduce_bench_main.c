/**
 * @file allreduce_bench_main.c
 * @brief The program allreduce_bench: every all-reduce of the book, side by side (chapter 6).
 */
#line 1035 "chapters/A3-programs.nw"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm_mpi.h"
#include "contender.h"
#include "production.h"
#include "report.h"
#include "run.h"
#include "util.h"

#line 1064 "chapters/A3-programs.nw"
static const char *summary =
    "Run every all-reduce of the book on the same ranks and sizes, in three rounds, and\n"
    "print their times and bus bandwidths side by side: ours (the best of chapter 8), the\n"
    "channel ring, MPI_Allreduce (under mpirun), the parameter server's push/pull, NCCL (one\n"
    "GPU per rank), PyTorch's gloo (with python3-torch) and a memcpy of the same bytes on\n"
    "every rank, the memory's reference.";
static const char *examples =
    "  ./allreduce_bench --n_gpus 2                       8 B to 256 MiB\n"
    "  ./allreduce_bench --n_gpus 4 -b 4K -e 64M -f 4     fewer sizes\n"
    "  ./allreduce_bench --n_gpus 2 --csv ar.csv          the table as CSV too\n";

#line 1641 "chapters/08-direct.nw"
/** Rounds of every contender: the median of three decides (chapter 8). */
#define BENCH_ROUNDS 3
/** Debian's python3-torch belongs to Debian's Python, which a pyenv may shadow. */
#define TORCH_PYTHON "/usr/bin/python3"

#line 1089 "chapters/A3-programs.nw"
/** Append the common arguments of every contender to @p argv from index @p k. */
static int common_args(char **argv, int k, const Options *o, char bufs[][32])
{
    snprintf(bufs[0], 32, "%zu", o->min_bytes);
    snprintf(bufs[1], 32, "%zu", o->max_bytes);
    snprintf(bufs[2], 32, "%d", o->step_factor);
    snprintf(bufs[3], 32, "%d", o->iters);
    snprintf(bufs[4], 32, "%d", o->warmup);
    snprintf(bufs[5], 32, "%d", o->check);
    snprintf(bufs[6], 32, "%d", o->n_gpus);
    snprintf(bufs[7], 32, "%g", o->timeout);
    const char *flags[] = {"-b", "-e", "-f", "-n", "-w", "-c", "--n_gpus", "--timeout"};
    for (int i = 0; i < 8; i++) {
        argv[k++] = (char *)flags[i];
        argv[k++] = bufs[i];
    }
    argv[k] = NULL;
    return k;
}
#line 1129 "chapters/A3-programs.nw"
/** Parse, run every contender, print the table (and the CSV). */
int main(int argc, char **argv)
{
    static Run run;
    unsigned accepted = OPT_N_GPUS | OPT_TIMEOUT | OPT_DEVICE | OPT_BENCH | OPT_CSV;
    int status = run_parse(&run, argc, argv, accepted, summary, examples);
    if (status != RUN_GO)
        return status;
    const Options o = run.o;
    FILE *csv = NULL;
    if (o.csv && !(csv = fopen(o.csv, "w"))) {
        fprintf(stderr, "%s: --csv %s: cannot open: %s\n", program_name(), o.csv,
                strerror(errno));
        return EXIT_USAGE;
    }
#line 1194 "chapters/A3-programs.nw"
    char self[PATH_MAX], coll[PATH_MAX + 16], bufs[8][32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(coll, sizeof coll, "%s/collectives", slash ? self : ".");
#line 1164 "chapters/A3-programs.nw"
    enum { OURS, RING, MPI, PS, NCCL, GLOO, COPY, N_COLUMNS };
    static Contender col[N_COLUMNS] = {
        {.title = "ours (best, shm)", .key = "ours", .bus = true},
        {.title = "channel ring", .key = "ring", .bus = true},
        {.title = "MPI_Allreduce", .key = "mpi", .bus = true},
        {.title = "param server", .key = "ps", .bus = true},
        {.title = "NCCL", .key = "nccl", .bus = true},
        {.title = "gloo (PyTorch)", .key = "gloo", .bus = true},
        {.title = "memcpy (reference)", .key = "memcpy"},
    };
    const char *ops[N_COLUMNS] = {"all_reduce_auto", "all_reduce",      "native_all_reduce",
                                  "ps_all_reduce",   "nccl_all_reduce", NULL,
                                  "memcpy"};
#line 1218 "chapters/A3-programs.nw"
    for (int k = 0; k < N_COLUMNS; k++) {
        int i = 0;
        if (!ops[k])
            continue;
        if (k == MPI) {
            char *mpirun[] = {"mpirun", "-np", bufs[6], "--oversubscribe"};
            for (size_t j = 0; j < sizeof mpirun / sizeof *mpirun; j++)
                col[k].argv[i++] = mpirun[j];
            if (geteuid() == 0)
                col[k].argv[i++] = "--allow-run-as-root";
        }
        col[k].argv[i++] = coll;
        col[k].argv[i++] = "--op";
        col[k].argv[i++] = (char *)ops[k];
        if (k == MPI) {
            col[k].argv[i++] = "--transport";
            col[k].argv[i++] = "mpi";
        }
        col[k].argv[i++] = "--device";
        col[k].argv[i++] = k == NCCL ? "cuda" : k == MPI ? "cpu" : (char *)o.device;
        common_args(col[k].argv, i, &o, bufs);
    }
#line 1633 "chapters/08-direct.nw"
    char gloo[PATH_MAX + 32];
    snprintf(gloo, sizeof gloo, "%s/bench/gloo_allreduce.py", slash ? self : ".");
    col[GLOO].argv[0] = TORCH_PYTHON;
    col[GLOO].argv[1] = gloo;
    common_args(col[GLOO].argv, 2, &o, bufs);
#line 1255 "chapters/A3-programs.nw"
    int gpus = gpu_count();
    if (!comm_mpi_available() || system("command -v mpirun >/dev/null 2>&1") != 0)
        snprintf(col[MPI].why, sizeof col[MPI].why,
                 "not run: no MPI in this build or no mpirun");
    if (gpus < o.n_gpus)
        snprintf(col[NCCL].why, sizeof col[NCCL].why,
                 "not run: %d rank%s, %d GPU%s (one per rank)", o.n_gpus,
                 o.n_gpus == 1 ? "" : "s", gpus, gpus == 1 ? "" : "s");
    if (system(TORCH_PYTHON " -c 'import torch.distributed' >/dev/null 2>&1") != 0 ||
        access(gloo, R_OK) != 0)
        snprintf(col[GLOO].why, sizeof col[GLOO].why,
                 "not run: no python3-torch (apt-get install python3-torch) or no %s",
                 "bench/gloo_allreduce.py");
#line 1286 "chapters/A3-programs.nw"
    for (int round = 0; round < BENCH_ROUNDS; round++) /* forwards, then backwards */
        for (int j = 0; j < N_COLUMNS; j++) {
            int k = round % 2 ? N_COLUMNS - 1 - j : j;
            if (!col[k].why[0])
                contender_run(&col[k]);
        }
    char lo[32], hi[32], where[256];
    machine_line(where, sizeof where);
    printf("# allreduce_bench: %d ranks, float sum in place, %s to %s x%d, the median of %d "
           "rounds of the median of %d after %d warm-up%s\n# machine: %s\n",
           o.n_gpus, format_bytes(lo, o.min_bytes), format_bytes(hi, o.max_bytes),
           o.step_factor, BENCH_ROUNDS, o.iters, o.warmup,
           o.check ? ", every element checked" : "", where);
#line 1298 "chapters/A3-programs.nw"
    exercises_banner("# exercise ");
    printf(
        "# time in us, busbw in GB/s (all-reduce: algbw x 2(N-1)/N; memcpy: bytes/time)\n#\n");
#line 1300 "chapters/A3-programs.nw"
    if (csv)
        fprintf(csv, "# machine: %s; %d ranks\n", where, o.n_gpus);
    const int vs[] = {MPI, COPY, GLOO};
    status = contender_table(csv, col, N_COLUMNS, OURS, vs, 3);
    if (csv && fclose(csv) != 0)
        fatal("--csv %s: %s", o.csv, strerror(errno));
    fflush(stdout);
#line 1146 "chapters/A3-programs.nw"
    return status;
}
