#line 1797 "chapters/06-production.nw"
/**
 * @file allreduce_bench.c
 * @brief The program allreduce_bench: every all-reduce of the book, side by side (chapter 6).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "comm_mpi.h"
#include "options.h"
#include "production.h"
#include "report.h"
#include "util.h"

static const char *summary =
    "Run every all-reduce of the book on the same ranks and sizes, one after the other, and\n"
    "print their times and bus bandwidths side by side: our ring (shared memory),\n"
    "MPI_Allreduce (under mpirun), the parameter server's push/pull, NCCL (one GPU per rank)\n"
    "and a memcpy of the same bytes on every rank, the memory's bound.";
static const char *examples =
    "  ./allreduce_bench --n_gpus 2                       8 B to 256 MiB\n"
    "  ./allreduce_bench --n_gpus 4 -b 4K -e 64M -f 4     fewer sizes\n"
    "  ./allreduce_bench --n_gpus 2 --csv ar.csv          the table as CSV too\n";

/** Most rows a table can have. */
#define MAX_ROWS 64

/** One contender: the command that measures it and the rows it printed. */
typedef struct Column {
    const char *title;      /**< its heading */
    char *argv[40];         /**< the command */
    bool ran;               /**< it was run */
    char why[96];           /**< why not, or why it failed */
    int rows;               /**< rows read */
    size_t size[MAX_ROWS];  /**< bytes */
    size_t count[MAX_ROWS]; /**< elements */
    double us[MAX_ROWS];    /**< median time */
    double busbw[MAX_ROWS]; /**< GB/s */
    long wrong[MAX_ROWS];   /**< wrong elements */
} Column;
#line 1852 "chapters/06-production.nw"
/** Run @p col's command and read its rows; on failure say why in col->why. */
static void measure(Column *col)
{
    int fd[2];
    if (pipe(fd) != 0)
        fatal("pipe: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    pid_t pid;
    int rc = posix_spawnp(&pid, col->argv[0], &fa, NULL, col->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (rc != 0) {
        close(fd[0]);
        snprintf(col->why, sizeof col->why, "cannot run %s: %s", col->argv[0], strerror(rc));
        return;
    }
    FILE *f = fdopen(fd[0], "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char type[16], wrong[32];
        int i = col->rows;
        double algbw;
        if (line[0] != '#' && i < MAX_ROWS &&
            sscanf(line, "%zu %zu %15s %lf %lf %lf %31s", &col->size[i], &col->count[i], type,
                   &col->us[i], &algbw, &col->busbw[i], wrong) == 7) {
            col->wrong[i] = strcmp(wrong, "N/A") == 0 ? 0 : atol(wrong);
            col->rows++;
        }
    }
    if (f)
        fclose(f);
    int st;
    waitpid(pid, &st, 0);
    col->ran = true;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        snprintf(col->why, sizeof col->why, "failed (%s %d): see its message above",
                 WIFEXITED(st) ? "exit status" : "signal",
                 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

/** The value of @p col at @p size, or NAN when it has none. */
static double at(const Column *col, size_t size, int what)
{
    for (int i = 0; i < col->rows; i++)
        if (col->size[i] == size)
            return what == 0 ? col->us[i] : what == 1 ? col->busbw[i] : (double)col->wrong[i];
    return NAN;
}
#line 1910 "chapters/06-production.nw"
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

/** One line describing this machine, for the CSV files. */
static void machine(char *buf, size_t len)
{
    char model[128] = "unknown CPU", line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
            snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    if (f)
        fclose(f);
    struct utsname u;
    uname(&u);
    time_t now = time(NULL);
    char day[32];
    strftime(day, sizeof day, "%Y-%m-%d", gmtime(&now));
    snprintf(buf, len, "%s, %ld cores, %s %s, %s", model, sysconf(_SC_NPROCESSORS_ONLN),
             u.sysname, u.release, day);
}
#line 1954 "chapters/06-production.nw"
/** Parse, run every contender, print the table (and the CSV). */
int main(int argc, char **argv)
{
    set_program_name(argv[0]);
    char err[ERR_LEN];
    Options o;
    options_defaults(&o);
    o.min_bytes = 8;
    unsigned accepted = OPT_N_GPUS | OPT_TIMEOUT | OPT_DEVICE | OPT_BENCH | OPT_CSV;
    if (options_parse(&o, argc, argv, accepted, err)) {
        fprintf(stderr, "%s: %s\n", program_name(), err);
        return EXIT_USAGE;
    }
    if (o.help) {
        options_usage(stdout, summary, accepted, examples);
        return 0;
    }
    if (o.min_bytes > o.max_bytes) {
        fprintf(stderr, "%s: -b %zu is larger than -e %zu\n", program_name(), o.min_bytes,
                o.max_bytes);
        return EXIT_USAGE;
    }
    FILE *csv = NULL;
    if (o.csv && !(csv = fopen(o.csv, "w"))) {
        fprintf(stderr, "%s: --csv %s: cannot open: %s\n", program_name(), o.csv,
                strerror(errno));
        return EXIT_USAGE;
    }

#line 1989 "chapters/06-production.nw"
    char self[PATH_MAX], coll[PATH_MAX + 16], bufs[8][32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(coll, sizeof coll, "%s/collectives", slash ? self : ".");
    enum { RING, MPI, PS, NCCL, COPY, N_COLUMNS };
    static Column col[N_COLUMNS] = {{.title = "ring (ours, shm)"},
                                    {.title = "MPI_Allreduce"},
                                    {.title = "param server"},
                                    {.title = "NCCL"},
                                    {.title = "memcpy (bound)"}};
    const char *ops[N_COLUMNS] = {"all_reduce", "native_all_reduce", "ps_all_reduce",
                                  "nccl_all_reduce", "memcpy"};
    for (int k = 0; k < N_COLUMNS; k++) {
        int i = 0;
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
    int gpus = gpu_count();
    if (!comm_mpi_available() || system("command -v mpirun >/dev/null 2>&1") != 0)
        snprintf(col[MPI].why, sizeof col[MPI].why,
                 "not run: no MPI in this build or no mpirun");
    if (gpus < o.n_gpus)
        snprintf(col[NCCL].why, sizeof col[NCCL].why,
                 "not run: %d rank%s, %d GPU%s (one per rank)", o.n_gpus,
                 o.n_gpus == 1 ? "" : "s", gpus, gpus == 1 ? "" : "s");
#line 1983 "chapters/06-production.nw"

#line 2038 "chapters/06-production.nw"
    for (int k = 0; k < N_COLUMNS; k++)
        if (!col[k].why[0])
            measure(&col[k]);
    char lo[32], hi[32], where[256];
    machine(where, sizeof where);
    printf(
        "# allreduce_bench: %d ranks, float sum in place, %s to %s x%d, median of %d after %d "
        "warm-up%s\n# machine: %s\n",
        o.n_gpus, format_bytes(lo, o.min_bytes), format_bytes(hi, o.max_bytes), o.step_factor,
        o.iters, o.warmup, o.check ? ", every element checked" : "", where);
    printf(
        "# time in us, busbw in GB/s (all-reduce: algbw x 2(N-1)/N; memcpy: bytes/time)\n#\n");
    printf("# %10s", "size (B)");
    for (int k = 0; k < N_COLUMNS; k++)
        printf(" %19s", col[k].title);
    printf(" %7s %7s %7s\n# %10s", "#wrong", "ring/", "ring/", "");
    for (int k = 0; k < N_COLUMNS; k++)
        printf(" %9s %9s", "time", k == COPY ? "bw" : "busbw");
    printf(" %7s %7s %7s\n", "", "MPI", "memcpy");
    if (csv)
        fprintf(csv,
                "# machine: %s; %d ranks\nsize,ring_us,ring_busbw,mpi_us,mpi_busbw,ps_us,"
                "ps_busbw,nccl_us,nccl_busbw,memcpy_us,memcpy_bw,wrong\n",
                where, o.n_gpus);
    int status = 0;
    for (int i = 0; i < col[RING].rows || (col[RING].rows == 0 && i < col[COPY].rows); i++) {
        size_t size = col[RING].rows ? col[RING].size[i] : col[COPY].size[i];
        double wrong = 0;
        printf("%12zu", size);
        if (csv)
            fprintf(csv, "%zu", size);
        for (int k = 0; k < N_COLUMNS; k++) {
            double t = at(&col[k], size, 0), b = at(&col[k], size, 1), w = at(&col[k], size, 2);
            if (isnan(t))
                printf(" %9s %9s", "-", "-");
            else
                printf(" %9.1f %9.3f", t, b);
            if (csv)
                fprintf(csv, ",%.3f,%.4f", t, b);
            if (!isnan(w))
                wrong += w;
        }
        double vs_mpi = at(&col[RING], size, 1) / at(&col[MPI], size, 1);
        double vs_copy = at(&col[RING], size, 1) / at(&col[COPY], size, 1);
        printf(" %7.0f %6.0f%% %6.0f%%\n", wrong, 100 * vs_mpi, 100 * vs_copy);
        if (csv)
            fprintf(csv, ",%.0f\n", wrong);
        if (wrong > 0)
            status = 1;
    }
    for (int k = 0; k < N_COLUMNS; k++)
        if (col[k].why[0]) {
            printf("# %s: %s\n", col[k].title, col[k].why);
            if (col[k].ran)
                status = 1;
        }
    if (csv && fclose(csv) != 0)
        fatal("--csv %s: %s", o.csv, strerror(errno));
    fflush(stdout);
#line 1984 "chapters/06-production.nw"
    return status;
}
