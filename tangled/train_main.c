#line 1440 "chapters/06-production.nw"
/**
 * @file train_main.c
 * @brief The program train: every strategy of the book behind one command line (chapter 6).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buckets.h"
#include "checkpoint.h"
#include "comm.h"
#include "comm_mpi.h"
#include "data.h"
#include "device.h"
#include "launch.h"
#include "model.h"
#include "options.h"
#include "param_server.h"
#include "production.h"
#include "report.h"
#include "ring_strategy.h"
#include "train.h"
#include "util.h"

static const char *summary =
    "Train an MLP with any strategy of the book: one device, a parameter server, the ring,\n"
    "the ring with DDP-style buckets overlapped with backward, MPI_Allreduce, NCCL, or one\n"
    "process driving every replica (DataParallel). The command line is the PyTorch toy's.";
static const char *examples =
    "  ./train --strategy ring --n_gpus 4                  as ./ring --n_gpus 4\n"
    "  ./train --strategy param_server --n_gpus 4          as ./ps --n_gpus 4\n"
    "  ./train --strategy ring_bucketed --bucket_mb 0.1    small buckets, overlapped\n"
    "  ./train --strategy data_parallel --n_gpus 2         one process, two replicas\n"
    "  mpirun -np 2 ./train --strategy mpi                 MPI_Allreduce\n"
    "  ./train --strategy nccl --n_gpus 2 --device cuda    ncclAllReduce, one rank per GPU\n";

/** What every rank needs, prepared before the fork. */
typedef struct Run {
    Options o;          /**< the command line */
    Dataset train;      /**< training set */
    Dataset test;       /**< test set */
    FILE *log;          /**< CSV log, written by the first trainer */
    ShmWorld *w;        /**< the shared world, or NULL under MPI or in one process */
    Checkpoint resume;  /**< with --resume, where the run goes on from (appendix B) */
} Run;

/** Whether the run's strategy is @p name. */
static bool is(const Options *o, const char *name)
{
    return strcmp(o->strategy, name) == 0;
}
#line 1503 "chapters/06-production.nw"
static void banner(const Run *run, const Model *m, const Device *dev, const char *note,
                   int ranks, const char *transport)
{
    const Options *o = &run->o;
    bool ps = is(o, "param_server"), dp = is(o, "data_parallel");
    int trainers = ps ? ranks - 1 : ranks;
    char b1[32], b2[32];
    size_t bytes = m->n_params * sizeof(float);
    printf("%s: --strategy %s, %d %s\n", program_name(), o->strategy, ranks,
           dp ? "replicas in one process" : ranks == 1 ? "rank" : "ranks");
    printf("  ranks    %d (%s%s)\n", ranks,
           dp ? "threads of one process"
           : strcmp(transport, "mpi") == 0 ? "MPI processes"
           : dev->kind == DEVICE_CPU ? "processes standing in for GPUs" : "GPUs",
           ps ? ": rank 0 serves" : "");
    train_banner(stdout, o, m, &run->train, &run->test, dev, note, trainers, "rank");
    if (ps)
        printf("  traffic  %s through the server per step\n",
               format_bytes(b2, 2 * (size_t)trainers * bytes));
    else if (dp)
        printf("  traffic  %s into and out of replica 0 per step (gather, replicate)\n",
               format_bytes(b2, 2 * (size_t)(ranks - 1) * bytes));
    else if (ranks > 1)
        printf("  traffic  each rank sends %s per step (2(N-1)/N x %s)\n",
               format_bytes(b2, (size_t)(2.0 * (ranks - 1) / ranks * (double)bytes)),
               format_bytes(b1, bytes));
}
#line 1538 "chapters/06-production.nw"
static int train_rank(int rank, int size, void *arg, char *err)
{
    Run *run = arg;
    const Options *o = &run->o;
    bool ps = is(o, "param_server"), single = is(o, "single");
    char note[ERR_LEN];
    launch_phase("opening the device");
    const Device *dev = device_open(o->device, rank, note, err);
    if (!dev)
        return -1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    device_cpu_threads((int)(cores / size > 0 ? cores / size : 1));
    Comm *c = NULL, *host = NULL;
    if (!single && comm_open_rank(run->w, rank, dev, &c, &host, err))
        return -1;
    Model m;
    if (model_init(&m, dev, run->train.features, o->hidden, o->n_hidden, run->train.classes,
                   o->batch_size, o->seed, err))
        return -1;
    Strategy s, *sp = &s;
    RingState rs;
    BucketState bs;
    NativeState ns;
    NcclState cs;
    Comm *ps_state[2];
    int rc = 0;
    if (single)
        sp = NULL;
    else if (ps)
        ps_worker(&s, c, host, ps_state);
    else if (is(o, "ring"))
        ring_strategy(&s, &rs, c, host, m.n_params);
    else if (is(o, "ring_bucketed"))
        rc = bucket_strategy(&s, &bs, c, host, &m, (size_t)(o->bucket_mb * (1 << 20)), err);
    else if (is(o, "mpi"))
        rc = native_strategy(&s, &ns, c, host, err);
    else if (is(o, "nccl"))
        rc = nccl_strategy(&s, &cs, host, dev, err);
    if (rc)
        return -1;
    int first = ps ? 1 : 0; /* the rank that speaks for the trainers */
    if (rank == first && !o->quiet)
        banner(run, &m, dev, note, size, c ? c->name : "shm");
    TrainResult res;
    PsReport rep;
    TrainConfig cfg = {o->batch_size, o->epochs, o->lr, o->seed, o->quiet, stdout,
                       rank == first ? run->log : NULL, o->checkpoint,
                       o->resume ? &run->resume : NULL};
    if (ps && rank == 0 && run->resume.params)
        rc = checkpoint_restore(&run->resume, &m, err);
    if (rc)
        return -1;
    if (ps && rank == 0)
        rc = ps_serve(c, host, &m, o->epochs - run->resume.epoch,
                      train_steps_per_epoch(run->train.n, o->batch_size, size - 1), o->lr,
                      &rep, err);
    else
        rc = train_run(&cfg, &m, &run->train, &run->test, sp, &res, err);
    if (rc)
        return -1;
    
#line 1608 "chapters/06-production.nw"
uint64_t hash = 0;
launch_phase("comparing the replicas");
if (host && replicas_agree(host, &m, &hash, err))
    return -1;
if (rank == first) {
    train_report_end(stdout, &res, o->quiet);
    if (!o->quiet && is(o, "ring_bucketed"))
        printf("overlap: %d bucket%s; all-reduces took %.3f s, %.3f s of it exposed: %.0f%% "
               "hidden behind backward\n", bs.n, bs.n == 1 ? "" : "s", bs.busy, bs.exposed,
               bs.busy > 0 ? 100 * (1 - bs.exposed / bs.busy) : 0.0);
    if (!o->quiet && size > 1)
        printf("replicas: the weights of all %d ranks are identical (hash %016llx)\n", size,
               (unsigned long long)hash);
    fflush(stdout);
}
if (host && host->barrier(host, err)) /* the server speaks last */
    return -1;
if (ps && rank == 0 && !o->quiet)
    ps_report(stdout, &rep);
#line 1599 "chapters/06-production.nw"
    
#line 1637 "chapters/06-production.nw"
if (!single && !ps) {
    if (is(o, "ring"))
        ring_strategy_free(&rs);
    else if (is(o, "ring_bucketed"))
        bucket_strategy_free(&bs);
    else if (is(o, "nccl"))
        nccl_strategy_free(&cs);
}
#line 1600 "chapters/06-production.nw"
    model_free(&m);
    if (c)
        comm_close_rank(c, host);
    return 0;
}
#line 1653 "chapters/06-production.nw"
/** Build one replica for data_parallel_run(). */
static int build_replica(Model *m, void *arg, char *err)
{
    const Run *run = arg;
    const Options *o = &run->o;
    return model_init(m, device_cpu(), run->train.features, o->hidden, o->n_hidden,
                      run->train.classes, o->batch_size, o->seed, err);
}

static int run_data_parallel(Run *run, char *err)
{
    const Options *o = &run->o;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    device_cpu_threads((int)(cores / o->n_gpus > 0 ? cores / o->n_gpus : 1));
    if (!o->quiet) {
        Model probe;
        if (build_replica(&probe, run, err))
            return -1;
        banner(run, &probe, device_cpu(), "cpu (data_parallel drives CPU replicas)",
               o->n_gpus, "threads");
        model_free(&probe);
    }
    TrainConfig cfg = {o->batch_size, o->epochs, o->lr, o->seed, o->quiet, stdout, run->log,
                       o->checkpoint, o->resume ? &run->resume : NULL};
    Model master;
    TrainResult res;
    if (data_parallel_run(&cfg, o->n_gpus, &run->train, &run->test, build_replica, run,
                          &master, &res, err))
        return -1;
    train_report_end(stdout, &res, o->quiet);
    model_free(&master);
    return 0;
}
#line 1695 "chapters/06-production.nw"
/** Refuse what cannot run, in one line; 0 when the run may start. */
static int check_strategy(Options *o)
{
    const char *why = NULL;
    bool mpi_given = (o->given & OPT_TRANSPORT) && strcmp(o->transport, "mpi") == 0;
    bool shm_given = (o->given & OPT_TRANSPORT) && strcmp(o->transport, "shm") == 0;
    static char buf[ERR_LEN];
    if (is(o, "mpi")) {
        if (shm_given)
            why = "--strategy mpi: MPI_Allreduce needs the MPI transport (drop --transport shm, "
                  "run under mpirun)";
        o->transport = "mpi";
    } else if (mpi_given && !is(o, "ring") && !is(o, "ring_bucketed")) {
        snprintf(buf, sizeof buf, "--strategy %s runs on this machine's shared memory; over "
                 "--transport mpi use ring, ring_bucketed or mpi", o->strategy);
        why = buf;
    } else if (is(o, "single")) {
        if ((o->given & OPT_N_GPUS) && o->n_gpus != 1)
            why = "--strategy single trains on one device: drop --n_gpus or give 1";
        o->n_gpus = 1;
    } else if (is(o, "param_server") && o->n_gpus < 2) {
        why = "--strategy param_server needs rank 0 as the server and at least one worker "
              "(--n_gpus 2 or more)";
    } else if (is(o, "data_parallel") && strcmp(o->device, "cuda") == 0) {
        why = "--strategy data_parallel drives CPU replicas from one process; this book's "
              "CUDA backend holds one GPU per process (use nccl or ring on GPUs)";
    } else if (is(o, "nccl")) {
        int gpus = strcmp(o->device, "cpu") == 0 ? 0 : gpu_count();
        if (strcmp(o->device, "cpu") == 0)
            why = "--strategy nccl: NCCL moves GPU memory: drop --device cpu";
        else if (gpus < o->n_gpus) {
            snprintf(buf, sizeof buf, "--strategy nccl: %d ranks but %d GPU%s answered: NCCL "
                     "needs one GPU per rank (two ranks of one communicator cannot share a "
                     "GPU); use --n_gpus %d or --strategy ring", o->n_gpus, gpus,
                     gpus == 1 ? "" : "s", gpus > 0 ? gpus : 1);
            why = buf;
        }
    }
    if (!why && (o->given & OPT_BUCKET) && !is(o, "ring_bucketed"))
        why = "--bucket_mb sets the buckets of --strategy ring_bucketed only";
    if (why)
        fprintf(stderr, "%s: %s\n", program_name(), why);
    return why ? -1 : 0;
}

/** Parse, check, load, launch. */
int main(int argc, char **argv)
{
    set_program_name(argv[0]);
    char err[ERR_LEN];
    static Run run;
    Options *o = &run.o;
    options_defaults(o);
    unsigned accepted = OPTS_TRAIN | OPTS_RANKS | OPT_TRANSPORT | OPT_STRATEGY | OPT_BUCKET;
    if (options_parse(o, argc, argv, accepted, err)) {
        fprintf(stderr, "%s: %s\n", program_name(), err);
        return EXIT_USAGE;
    }
    if (o->help) {
        options_usage(stdout, summary, accepted, examples);
        return 0;
    }
    if (check_strategy(o))
        return EXIT_USAGE;
    bool mpi = strcmp(o->transport, "mpi") == 0;
    int mpi_rank = mpi ? comm_mpi_start(o) : 0;
    if (mpi_rank < 0)
        return EXIT_USAGE;
    if (mpi_rank != 0)
        o->log = NULL;
    bool ps = is(o, "param_server");
    if (train_prepare(o, ps ? o->n_gpus - 1 : o->n_gpus, ps ? "workers" : "ranks", &run.train,
                      &run.test, &run.log, &run.resume)) {
        if (mpi)
            comm_mpi_finalize();
        return EXIT_USAGE;
    }
    int rc = 0;
    if (mpi) {
        comm_mpi_run(train_rank, &run, mpi_rank, o->n_gpus);
    } else if (is(o, "data_parallel")) {
        rc = run_data_parallel(&run, err);
    } else if (is(o, "single")) {
        rc = train_rank(0, 1, &run, err);
    } else {
        if (!(run.w = shm_world_create(o->n_gpus, 0, o->timeout, err)))
            fatal("%s", err);
        rc = launch(o->n_gpus, train_rank, &run, 0, err);
        shm_world_destroy(run.w);
    }
    if (rc)
        fatal("%s", err);
    if (run.log && fclose(run.log) != 0)
        fatal("--log %s: %s", o->log, strerror(errno));
    return 0;
}
