#line 314 "chapters/03-ps.nw"
/**
 * @file ps.c
 * @brief The program ps: data-parallel training through a parameter server (chapter 3).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "comm.h"
#include "data.h"
#include "device.h"
#include "launch.h"
#include "model.h"
#include "options.h"
#include "param_server.h"
#include "report.h"
#include "train.h"
#include "util.h"

static const char *summary =
    "Train an MLP with a parameter server: rank 0 keeps the weights, ranks 1..N-1 compute\n"
    "gradients on their share of each global batch of (N-1) x batch_size samples.";
static const char *examples =
    "  ./ps --n_gpus 4                          a server and 3 workers\n"
    "  ./ps --n_gpus 3 --batch_size 32          global batch 64, as ./mlp's default\n"
    "  ./ps --n_gpus 8 --device cpu --quiet     8 processes, the final line only\n";

/** What every rank needs, prepared before the fork. */
typedef struct Run {
    Options o;          /**< the command line */
    Dataset train;      /**< training set */
    Dataset test;       /**< test set */
    FILE *log;          /**< CSV log, written by worker 1 */
    ShmWorld *w;        /**< the shared world */
    Checkpoint resume;  /**< with --resume, where the run goes on from (appendix B) */
} Run;

#line 403 "chapters/03-ps.nw"
static int ps_rank(int rank, int size, void *arg, char *err)
{
    Run *run = arg;
    const Options *o = &run->o;
    char note[ERR_LEN];
    launch_phase("opening the device");
    const Device *dev = device_open(o->device, rank, note, err);
    if (!dev)
        return -1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    device_cpu_threads((int)(cores / size)); /* the ranks share the machine's cores */
    Comm *c = comm_shm_open(run->w, rank, dev, err), *host = c ? comm_shm_host(c, err) : NULL;
    if (!c || !host)
        return -1;
    Model m;
    if (model_init(&m, dev, run->train.features, o->hidden, o->n_hidden, run->train.classes,
                   o->batch_size, o->seed, err))
        return -1;
    long steps = train_steps_per_epoch(run->train.n, o->batch_size, size - 1);
    PsReport rep;
    if (rank == 0) { /* a resumed server starts from the checkpoint's weights */
        if ((run->resume.params && checkpoint_restore(&run->resume, &m, err)) ||
            ps_serve(c, host, &m, o->epochs - run->resume.epoch, steps, o->lr, &rep, err))
            return -1;
    } else {
        Strategy s;
        Comm *state[2];
        ps_worker(&s, c, host, state);
        if (rank == 1 && !o->quiet)
            
#line 455 "chapters/03-ps.nw"
{
    char b1[32];
    printf("%s: a parameter server and %d workers\n", program_name(), size - 1);
    printf("  ranks    %d (%s): rank 0 serves, ranks 1..%d compute\n", size,
           dev->kind == DEVICE_CPU ? "processes standing in for GPUs" : "GPUs", size - 1);
    train_banner(stdout, o, &m, &run->train, &run->test, dev, note, size - 1, "worker");
    printf("  traffic  %s through the server per step: %d gradients in, %d copies of the "
           "weights out\n", format_bytes(b1, 2 * (size_t)(size - 1) * m.n_params * 4),
           size - 1, size - 1);
}
#line 433 "chapters/03-ps.nw"
        TrainConfig cfg = {o->batch_size, o->epochs, o->lr, o->seed, o->quiet, stdout,
                           rank == 1 ? run->log : NULL, o->checkpoint,
                           o->resume ? &run->resume : NULL};
        TrainResult res;
        if (train_run(&cfg, &m, &run->train, &run->test, &s, &res, err))
            return -1;
        if (rank == 1)
            
#line 523 "chapters/03-ps.nw"
{
    train_report_end(stdout, &res, o->quiet);
    fflush(stdout);
}
#line 441 "chapters/03-ps.nw"
    }
    if (host->barrier(host, err)) /* the server speaks last, after worker 1 */
        return -1;
    if (rank == 0 && !o->quiet)
        
#line 506 "chapters/03-ps.nw"
ps_report(stdout, &rep);
#line 446 "chapters/03-ps.nw"
    model_free(&m);
    if (host != c)
        host->close(host);
    c->close(c);
    return 0;
}

#line 356 "chapters/03-ps.nw"
/** Parse, load, check, launch. */
int main(int argc, char **argv)
{
    set_program_name(argv[0]);
    char err[ERR_LEN];
    static Run run;
    Options *o = &run.o;
    options_defaults(o);
    unsigned accepted = OPTS_TRAIN | OPTS_RANKS;
    if (options_parse(o, argc, argv, accepted, err)) {
        fprintf(stderr, "%s: %s\n", program_name(), err);
        return EXIT_USAGE;
    }
    if (o->help) {
        options_usage(stdout, summary, accepted, examples);
        return 0;
    }
    
#line 387 "chapters/03-ps.nw"
if (o->n_gpus < 2) {
    fprintf(stderr, "%s: --n_gpus %d: a parameter server needs rank 0 as the server and at "
            "least one worker (--n_gpus 2 or more)\n", program_name(), o->n_gpus);
    return EXIT_USAGE;
}
if (train_prepare(o, o->n_gpus - 1, "workers", &run.train, &run.test, &run.log,
                  &run.resume))
    return EXIT_USAGE;
#line 374 "chapters/03-ps.nw"
    if (!(run.w = shm_world_create(o->n_gpus, 0, o->timeout, err)))
        fatal("%s", err);
    int rc = launch(o->n_gpus, ps_rank, &run, 0, err);
    shm_world_destroy(run.w);
    if (rc)
        fatal("%s", err);
    if (run.log && fclose(run.log) != 0)
        fatal("--log %s: %s", o->log, strerror(errno));
    return 0;
}
