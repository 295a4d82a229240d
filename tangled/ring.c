#line 493 "chapters/05-ag.nw"
/**
 * @file ring.c
 * @brief The program ring: data-parallel training with the ring all-reduce (chapter 5).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "collectives.h"
#include "comm.h"
#include "comm_mpi.h"
#include "data.h"
#include "device.h"
#include "launch.h"
#include "model.h"
#include "options.h"
#include "report.h"
#include "ring_strategy.h"
#include "train.h"
#include "util.h"

static const char *summary =
    "Train an MLP data-parallel over N ranks with the ring all-reduce: each rank computes\n"
    "gradients on its share of every global batch of N x batch_size samples, and the ring\n"
    "averages them (share-reduce, then share-only).";
static const char *examples =
    "  ./ring --n_gpus 4                        4 ranks, global batch 256\n"
    "  ./ring --n_gpus 2 --batch_size 32        global batch 64, as ./mlp's default\n"
    "  ./ring --n_gpus 8 --device cpu --quiet   8 processes, the final line only\n"
    "  mpirun -np 4 ./ring --transport mpi      4 MPI processes (chapter 6)\n";

/** What every rank needs, prepared before the fork. */
typedef struct Run {
    Options o;          /**< the command line */
    Dataset train;      /**< training set */
    Dataset test;       /**< test set */
    FILE *log;          /**< CSV log, written by rank 0 */
    ShmWorld *w;        /**< the shared world */
    Checkpoint resume;  /**< with --resume, where the run goes on from (appendix B) */
} Run;

#line 584 "chapters/05-ag.nw"
static int ring_rank(int rank, int size, void *arg, char *err)
{
    Run *run = arg;
    const Options *o = &run->o;
    char note[ERR_LEN];
    launch_phase("opening the device");
    const Device *dev = device_open(o->device, rank, note, err);
    if (!dev)
        return -1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    device_cpu_threads((int)(cores / size > 0 ? cores / size : 1));
    Comm *c, *host;
    if (comm_open_rank(run->w, rank, dev, &c, &host, err))
        return -1;
    Model m;
    if (model_init(&m, dev, run->train.features, o->hidden, o->n_hidden, run->train.classes,
                   o->batch_size, o->seed, err))
        return -1;
    Strategy s;
    RingState st;
    ring_strategy(&s, &st, c, host, m.n_params);
    if (rank == 0 && !o->quiet)
        
#line 664 "chapters/05-ag.nw"
{
    char b1[32], b2[32];
    printf("%s: data-parallel training over %d ranks, ring all-reduce\n", program_name(), size);
    printf("  ranks    %d (%s)\n", size,
           strcmp(c->name, "mpi") == 0 ? "MPI processes"
           : dev->kind == DEVICE_CPU   ? "processes standing in for GPUs"
                                       : "GPUs");
    train_banner(stdout, o, &m, &run->train, &run->test, dev, note, size, "rank");
    printf("  traffic  each rank sends %s per step (2(N-1)/N x %s) to its neighbour\n",
           format_bytes(b2, (size_t)(2.0 * (size - 1) / size * (double)m.n_params * 4)),
           format_bytes(b1, m.n_params * 4));
}
#line 607 "chapters/05-ag.nw"
    TrainConfig cfg = {o->batch_size, o->epochs, o->lr, o->seed, o->quiet, stdout,
                       rank == 0 ? run->log : NULL, o->checkpoint,
                       o->resume ? &run->resume : NULL};
    TrainResult res;
    if (train_run(&cfg, &m, &run->train, &run->test, &s, &res, err))
        return -1;
    uint64_t mine;
    launch_phase("comparing the replicas");
    if (replicas_agree(host, &m, &mine, err))
        return -1;
    if (rank == 0) {
        train_report_end(stdout, &res, o->quiet);
        if (!o->quiet && size > 1)
            printf("replicas: the weights of all %d ranks are identical (hash %016llx)\n",
                   size, (unsigned long long)mine);
        fflush(stdout);
    }
    ring_strategy_free(&st);
    model_free(&m);
    comm_close_rank(c, host);
    return 0;
}

#line 540 "chapters/05-ag.nw"
/** Parse, load, check, launch. */
int main(int argc, char **argv)
{
    set_program_name(argv[0]);
    char err[ERR_LEN];
    static Run run;
    Options *o = &run.o;
    options_defaults(o);
    unsigned accepted = OPTS_TRAIN | OPTS_RANKS | OPT_TRANSPORT;
    if (options_parse(o, argc, argv, accepted, err)) {
        fprintf(stderr, "%s: %s\n", program_name(), err);
        return EXIT_USAGE;
    }
    if (o->help) {
        options_usage(stdout, summary, accepted, examples);
        return 0;
    }
    
#line 372 "chapters/06-production.nw"
bool mpi = strcmp(o->transport, "mpi") == 0;
int mpi_rank = mpi ? comm_mpi_start(o) : 0;
if (mpi_rank < 0)
    return EXIT_USAGE;
if (mpi_rank != 0)
    o->log = NULL;
#line 558 "chapters/05-ag.nw"
    
#line 573 "chapters/05-ag.nw"
if (train_prepare(o, o->n_gpus, "ranks", &run.train, &run.test, &run.log, &run.resume))
    return EXIT_USAGE;
#line 559 "chapters/05-ag.nw"
    
#line 381 "chapters/06-production.nw"
if (mpi) {
    comm_mpi_run(ring_rank, &run, mpi_rank, o->n_gpus);
    if (run.log && fclose(run.log) != 0)
        fatal("--log %s: %s", o->log, strerror(errno));
    return 0;
}
#line 560 "chapters/05-ag.nw"
    if (!(run.w = shm_world_create(o->n_gpus, 0, o->timeout, err)))
        fatal("%s", err);
    int rc = launch(o->n_gpus, ring_rank, &run, 0, err);
    shm_world_destroy(run.w);
    if (rc)
        fatal("%s", err);
    if (run.log && fclose(run.log) != 0)
        fatal("--log %s: %s", o->log, strerror(errno));
    return 0;
}
