/**
 * @file run.c
 * @brief The run layer (chapters 1-3, 6, appendix B).
 */
#line 2747 "chapters/02-shm.nw"
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectives.h"
#include "comm_mpi.h"
#include "launch.h"
#include "report.h"
#include "ring_strategy.h"
#include "trace.h"
#include "util.h"

#line 2536 "chapters/A1-support.nw"
/** --trace: create the file (one process of the run does) and start recording. */
static int trace_begin(Run *run)
{
    char err[ERR_LEN];
    if (!run->o.trace)
        return 0;
    if (run->mpi_rank == 0) {
        if (trace_create(run->o.trace, err)) {
            fprintf(stderr, "%s: %s\n", program_name(), err);
            return -1;
        }
        run->trace_owner = true;
    }
    trace_start(0);
    return 0;
}

#line 3868 "chapters/01-mlp.nw"
int run_prepare_training(Run *run, int trainers, const char *word)
{
    Options o = run->o; /* a copy: only rank 0 of an MPI run keeps the log */
    if (run->mpi_rank != 0)
        o.log = NULL;
    if (train_prepare(&o, trainers, word, &run->train, &run->test, &run->log, &run->resume) ||
        trace_begin(run)) {
#line 3876 "chapters/01-mlp.nw"
        if (run->mpi)
            comm_mpi_finalize();
        return EXIT_USAGE;
    }
    return RUN_GO;
}

#line 3893 "chapters/01-mlp.nw"
int run_model(const Run *run, const Device *dev, Model *m, char *err)
{
    const Options *o = &run->o;
    return model_init(m, dev, run->train.features, o->hidden, o->n_hidden, run->train.classes,
                      o->batch_size, o->seed, err);
}

#line 3909 "chapters/01-mlp.nw"
TrainConfig run_train_config(const Run *run, bool reports)
{
    const Options *o = &run->o;
    OptimizerConfig opt; /* the parser let through only the names it knows */
    optimizer_config(&opt, o->optimizer, o->momentum, o->weight_decay);
    return (TrainConfig){
        .batch_size = o->batch_size,
        .epochs = o->epochs,
        .lr = options_lr(o),
        .optimizer = opt,
        .accum = o->accum,
        .seed = o->seed,
        .quiet = o->quiet,
        .out = stdout,
        .log = reports ? run->log : NULL,
        .checkpoint = o->checkpoint,
        .resume = o->resume ? &run->resume : NULL,
        .phase = launch_phase,
    };
}

#line 3945 "chapters/01-mlp.nw"
/** Undo what train_prepare() did to the log and the checkpoint before it failed; returns -1. */
static int prepare_failed(const Options *o, FILE **log, bool created, Checkpoint *resume)
{
    checkpoint_free(resume);
    if (*log)
        fclose(*log);
    *log = NULL;
    if (created)
        unlink(o->log);
    return -1;
}

#line 4060 "chapters/01-mlp.nw"
/** Open @p path for appending; *created says whether this call made the file. */
static FILE *log_open(const char *path, bool *created)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL, 0644);
    *created = fd >= 0;
    if (fd < 0 && errno == EEXIST)
        fd = open(path, O_WRONLY | O_APPEND);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "a");
    if (fd >= 0 && !f) {
        int e = errno;
        close(fd);
        if (*created)
            unlink(path);
        errno = e;
    }
    return f;
}

/** Whether @p f is a regular file (one that can be emptied). */
static bool regular_file(FILE *f)
{
    struct stat st;
    return fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
}
#line 3970 "chapters/01-mlp.nw"
int train_prepare(const Options *o, int ranks, const char *ranks_word, Dataset *train,
                  Dataset *test, FILE **log, Checkpoint *resume)
{
    char err[ERR_LEN];
    *log = NULL;
    memset(resume, 0, sizeof *resume);
#line 429 "chapters/07-zero.nw"
    if (o->checkpoint && strcmp(o->optimizer, "sgd") != 0) {
        fprintf(stderr,
                "%s: --checkpoint with --optimizer %s: a checkpoint does not hold the "
                "optimizer's state yet (use --optimizer sgd)\n",
                program_name(), o->optimizer);
        return -1;
    }
#line 842 "chapters/07-zero.nw"
    if (o->checkpoint && o->accum > 1) {
        fprintf(stderr,
                "%s: --checkpoint with --accum %d: a checkpoint does not record the "
                "micro-batches yet (use --accum 1)\n",
                program_name(), o->accum);
#line 845 "chapters/07-zero.nw"
        return -1;
    }
#line 931 "chapters/A2-failure.nw"
    if (o->resume && !o->checkpoint) {
        fprintf(stderr, "%s: --resume needs --checkpoint FILE (the file to resume from)\n",
                program_name());
        return -1;
    }
    if (o->checkpoint && checkpoint_writable(o->checkpoint, err)) {
        fprintf(stderr, "%s: --checkpoint: %s\n", program_name(), err);
        return -1;
    }
#line 946 "chapters/A2-failure.nw"
    if (o->resume && checkpoint_load(o->checkpoint, resume, err)) {
        fprintf(stderr, "%s: --resume: %s\n", program_name(), err);
        return -1;
    }
#line 4045 "chapters/01-mlp.nw"
    bool created = false;
    if (o->log && !(*log = log_open(o->log, &created))) {
        fprintf(stderr, "%s: --log %s: cannot open: %s\n", program_name(), o->log,
                strerror(errno));
        return prepare_failed(o, log, false, resume);
    }
#line 3979 "chapters/01-mlp.nw"
    if (data_load(o->data, o->train_size, o->seed, train, test, err)) {
        fprintf(stderr, "%s: %s\n", program_name(), err);
        return prepare_failed(o, log, created, resume);
    }
#line 3999 "chapters/01-mlp.nw"
    long global = (long)o->batch_size * ranks;
    if (global > train->n) {
        if (ranks == 1)
            fprintf(stderr,
                    "%s: --batch_size %d is larger than the training set (%ld "
                    "samples)\n",
                    program_name(), o->batch_size, train->n);
        else
            fprintf(stderr,
                    "%s: a global batch of %ld samples (--batch_size %d x %d %s) is "
                    "larger than the training set (%ld samples)\n",
                    program_name(), global, o->batch_size, ranks, ranks_word, train->n);
        return prepare_failed(o, log, created, resume);
    }
#line 957 "chapters/A2-failure.nw"
    if (o->resume) {
        Checkpoint want = {.n_layers = o->n_hidden + 1,
                           .seed = o->seed,
                           .global_batch = (uint64_t)global,
                           .n_train = (uint64_t)train->n,
                           .lr = o->lr,
                           .epochs = o->epochs};
#line 961 "chapters/A2-failure.nw"
        want.width[0] = train->features;
        for (int l = 0; l < o->n_hidden; l++)
            want.width[l + 1] = o->hidden[l];
        want.width[o->n_hidden + 1] = train->classes;
        if (checkpoint_match(resume, &want, o->checkpoint, err)) {
            fprintf(stderr, "%s: %s%s\n", program_name(),
                    strncmp(err, "--resume", 8) == 0 ? "" : "--resume: ", err);
            return prepare_failed(o, log, created, resume);
        }
    }
#line 4024 "chapters/01-mlp.nw"
    if (*log && !o->resume && regular_file(*log) && ftruncate(fileno(*log), 0) != 0) {
        fprintf(stderr, "%s: --log %s: %s\n", program_name(), o->log, strerror(errno));
        return prepare_failed(o, log, created, resume);
    }
    if (*log && (!regular_file(*log) || (fseek(*log, 0, SEEK_END) == 0 && ftell(*log) == 0)))
        report_csv_header(*log); /* a resumed run appends to its log */
#line 3986 "chapters/01-mlp.nw"
    return 0;
}
#line 560 "chapters/07-zero.nw"
void state_banner(const Options *o, const Strategy *s, size_t n_params)
{
    OptimizerConfig cfg;
    optimizer_config(&cfg, o->optimizer, o->momentum, o->weight_decay);
    bool sharded = s && s->shards_state;
    size_t floats = (size_t)optimizer_state_floats(cfg.kind);
    size_t opt = floats * (sharded ? s->state_hi - s->state_lo : n_params) * sizeof(float);
    size_t full = n_params * sizeof(float);
    size_t params = s && s->param_bytes ? s->param_bytes : full;
    size_t grads = s && s->grad_bytes ? s->grad_bytes : full;
    char all[32], p[32], g[32], optimizer[32];
    printf("  state    %s on rank 0: parameters %s, gradients %s, %s %s%s\n",
           format_bytes(all, params + grads + opt), format_bytes(p, params),
           format_bytes(g, grads), o->optimizer, format_bytes(optimizer, opt),
           sharded ? " (its chunk of the state)" : "");
    if (sharded) {
#line 589 "chapters/07-zero.nw"
        size_t chunk = (s->state_hi - s->state_lo) * sizeof(float);
        size_t p_fly = params != full && params > chunk ? params - chunk : 0;
        size_t g_fly = grads != full && grads > chunk ? grads - chunk : 0;
        char c[32], pf[32], gf[32];
        format_bytes(c, chunk), format_bytes(pf, p_fly), format_bytes(gf, g_fly);
        if (p_fly)
            printf("  in flight %s of parameters and %s of gradients: two layers at a time, "
                   "gathered or reduce-scattered, beside a chunk of %s of each\n",
                   pf, gf, c);
        else if (g_fly)
            printf("  in flight %s of gradients: two layers at a time, reduce-scattered, "
                   "beside a chunk of %s\n",
                   gf, c);
    }
#line 577 "chapters/07-zero.nw"
}
#line 2503 "chapters/02-shm.nw"
int run_parse(Run *run, int argc, char **argv, unsigned accepted, const char *summary,
              const char *examples)
{
    char err[ERR_LEN];
    set_program_name(argv[0]);
    options_defaults(&run->o);
    if (options_parse(&run->o, argc, argv, accepted, err)) {
        fprintf(stderr, "%s: %s\n", program_name(), err);
        return EXIT_USAGE;
    }
    if (run->o.help) {
        options_usage(stdout, summary, accepted, examples);
        return 0;
    }
    return RUN_GO;
}

#line 2483 "chapters/02-shm.nw"
int run_start(Run *run, bool mpi)
{
    run->ranks = run->o.n_gpus;
    run->mpi = mpi || strcmp(run->o.transport, "mpi") == 0;
    run->mpi_rank = 0;
    if (run->mpi) {
#line 603 "chapters/06-production.nw"
        char err[ERR_LEN];
        int size;
        if (comm_mpi_init(&run->mpi_rank, &size, err)) {
            fprintf(stderr, "%s: %s\n", program_name(), err);
            return EXIT_USAGE;
        }
        if ((run->o.given & OPT_N_GPUS) && run->o.n_gpus != size) {
            if (run->mpi_rank == 0)
                fprintf(stderr,
                        "%s: --n_gpus %d, but mpirun started %d process(es): give mpirun "
                        "-np %d, or leave --n_gpus out\n",
                        program_name(), run->o.n_gpus, size, run->o.n_gpus);
#line 616 "chapters/06-production.nw"
            comm_mpi_finalize();
            return EXIT_USAGE;
        }
        run->ranks = size;
    }
#line 2490 "chapters/02-shm.nw"
    return RUN_GO;
}
#line 287 "chapters/08-direct.nw"
/** Bind this process to the @p rank-th allowed core, when @p size ranks each can have one. */
static void bind_to_core(int rank, int size)
{
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < size)
        return;
    for (int cpu = 0, k = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &allowed) && k++ == rank) {
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            sched_setaffinity(0, sizeof one, &one);
            return;
        }
}

#line 2535 "chapters/02-shm.nw"
/** The prelude of every rank, then the program's body. */
static int rank_main(int rank, int size, void *arg, char *err)
{
    Run *run = arg;
    Rank r = {.rank = rank, .size = size, .run = run};
    launch_phase("opening the device");
    if (!(r.dev = device_open(run->o.device, rank, r.note, err)))
        return -1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN); /* the ranks share the machine's cores */
    device_cpu_threads((int)(cores / size > 0 ? cores / size : 1));
    if (run->w) /* chapter 8: forked ranks, one core each when there are enough */
        bind_to_core(rank, size);
    if ((run->w || run->mpi) && comm_open_rank(run->w, rank, r.dev, &r.c, &r.host, err))
        return -1;
    if (run->o.trace) /* appendix A: the rank records its own timeline */
        trace_start(rank);
    if (run->body(&r, err))
        return -1;
    if (r.c)
        comm_close_rank(r.c, r.host);
    launch_phase("closing the device");
    return device_close(r.dev, err);
}
#line 2588 "chapters/02-shm.nw"
bool run_gpu_sharing(const Rank *r, char *line, size_t len)
{
    char pipe[ERR_LEN];
    line[0] = '\0';
    if (r->run->mpi || !device_sharing(r->dev, r->size, line, len))
        return false;
    if (!r->run->o.quiet && !device_mps_running(pipe, sizeof pipe))
        fprintf(stderr,
                "%s: %s, and CUDA MPS is not running (no %s): each handshake "
                "between two of them waits for a context switch, about 150 us on an "
                "H100 against 11 us with MPS; start it with: nvidia-cuda-mps-control -d\n",
                program_name(), line, pipe);
    return true;
}
#line 2610 "chapters/02-shm.nw"
void run_ranks(Run *run, int (*body)(Rank *r, char *err))
{
    char err[ERR_LEN];
    run->body = body;
    if (run->mpi) {
#line 639 "chapters/06-production.nw"
        if (rank_main(run->mpi_rank, run->ranks, run, err)) {
            fprintf(stderr, "%s: rank %d: %s\n", program_name(), run->mpi_rank, err);
            comm_mpi_abort(EXIT_FAILURE);
        }
        return;
    }
#line 2616 "chapters/02-shm.nw"
    if (!(run->w = shm_world_create(run->ranks, 0, run->o.timeout, err)))
        fatal("%s", err);
    int rc = launch(run->ranks, rank_main, run, 0, err);
    shm_world_destroy(run->w);
    run->w = NULL;
    if (rc)
        fatal("%s", err);
}

int run_finish(Run *run)
{
    if (run->log && fclose(run->log) != 0)
        fatal("--log %s: %s", run->o.log, strerror(errno));
    run->log = NULL;
#line 2561 "chapters/A1-support.nw"
    char terr[ERR_LEN];
    if (run->o.trace && (trace_write(run->o.trace, terr) ||
                         (run->trace_owner && trace_close(run->o.trace, terr))))
        fatal("%s", terr);
#line 2631 "chapters/02-shm.nw"
    data_free(&run->train);
    data_free(&run->test);
    checkpoint_free(&run->resume);
    return 0;
}
#line 830 "chapters/03-ps.nw"
/** SHAPE_ONE: rank 0 of 1, in this process. */
static void run_one(Run *run, int (*body)(Rank *r, char *err))
{
    char err[ERR_LEN];
    run->body = body;
    if (rank_main(0, 1, run, err))
        fatal("%s", err);
}
#line 1063 "chapters/03-ps.nw"
/** RUN_GO when run->strategy can run as asked; else EXIT_USAGE after one line. */
static int check_strategy(const Run *run)
{
    const StrategyDef *def = run->strategy;
    const Options *o = &run->o;
    char why[ERR_LEN] = "";
#line 3078 "chapters/06-production.nw"
    bool given = o->given & OPT_TRANSPORT, over_mpi = strcmp(o->transport, "mpi") == 0;
    char names[ERR_LEN / 4];
    if ((def->needs & NEEDS_MPI) && given && !over_mpi) {
        snprintf(why, sizeof why,
                 "--strategy %s: %s needs the MPI transport (drop --transport "
                 "shm, run under mpirun)",
                 def->name, def->title);
#line 3084 "chapters/06-production.nw"
    } else if (given && over_mpi && !(def->needs & RUNS_OVER_MPI)) {
        strategy_names(names, sizeof names, RUNS_OVER_MPI, ", ");
        snprintf(why, sizeof why,
                 "--strategy %s runs on this machine's shared memory; over "
                 "--transport mpi use %s",
                 def->name, names);
#line 3088 "chapters/06-production.nw"
    } else if (def->shape == SHAPE_ONE && (o->given & OPT_N_GPUS) && o->n_gpus != 1) {
        snprintf(why, sizeof why, "--strategy %s trains on one device: drop --n_gpus or give 1",
                 def->name);
#line 3092 "chapters/06-production.nw"
    } else if ((def->needs & NEEDS_GPUS) && strcmp(o->device, "cpu") == 0) {
        snprintf(why, sizeof why, "--strategy %s: %s moves GPU memory: drop --device cpu",
                 def->name, def->title);
    } else if ((def->needs & CPU_ONLY) && strcmp(o->device, "cuda") == 0) {
        snprintf(why, sizeof why,
                 "--strategy %s drives CPU replicas from one process; this "
                 "book's CUDA backend holds one GPU per process (use nccl or ring on GPUs)",
                 def->name);
#line 3099 "chapters/06-production.nw"
    } else if (def->check) {
        def->check(o->n_gpus, strcmp(o->device, "cpu") == 0, why, sizeof why);
    }
#line 3116 "chapters/06-production.nw"
    if (!why[0] && (o->given & OPT_BUCKET) && !(def->needs & USES_BUCKETS)) {
        strategy_names(names, sizeof names, USES_BUCKETS, ", ");
        snprintf(why, sizeof why, "--bucket_mb sets the buckets of --strategy %s only", names);
#line 3120 "chapters/06-production.nw"
    }
#line 418 "chapters/07-zero.nw"
    if (!why[0] && (def->needs & SGD_ONLY) && strcmp(o->optimizer, "sgd") != 0)
        snprintf(why, sizeof why,
                 "--optimizer %s: %s steps with plain SGD on its server (use --optimizer sgd)",
                 o->optimizer, def->title);
#line 831 "chapters/07-zero.nw"
    if (!why[0] && (def->needs & NO_CHECKPOINT) && o->checkpoint)
        snprintf(why, sizeof why,
                 "--checkpoint with --strategy %s: it keeps only a part of each layer's "
                 "parameters between steps (use zero2)",
                 def->name);
    if (!why[0] && (def->needs & NO_ACCUM) && o->accum > 1)
        snprintf(why, sizeof why, "--accum %d: %s steps once per push (use --accum 1)",
                 o->accum, def->title);
#line 1071 "chapters/03-ps.nw"
    if (!why[0] && o->n_gpus < def->min_ranks)
        snprintf(why, sizeof why, "--n_gpus %d: %s needs %s (--n_gpus %d or more)", o->n_gpus,
                 def->title, def->why_min, def->min_ranks);
#line 1075 "chapters/03-ps.nw"
    if (why[0])
        fprintf(stderr, "%s: %s\n", program_name(), why);
    return why[0] ? EXIT_USAGE : RUN_GO;
}
#line 978 "chapters/03-ps.nw"
static void run_banner(const Rank *r, const Model *m, const Strategy *s)
{
    const Run *run = r->run;
    const StrategyDef *def = run->strategy;
    char line[ERR_LEN], shared[64];
    bool sharing = r->c && run_gpu_sharing(r, shared, sizeof shared);
    printf("%s: %s (--strategy %s), %d %s\n", program_name(),
           s && s->runs ? s->runs : def->title, def->name, r->size,
           r->size == 1 ? "rank" : "ranks");
#line 986 "chapters/03-ps.nw"
    printf("  ranks    %d (%s%s%s%s%s)\n", r->size,
           def->shape == SHAPE_THREADS  ? "threads of one process"
           : !r->c                      ? "one process"
           : run->mpi                   ? "MPI processes"
           : r->dev->kind == DEVICE_CPU ? "processes standing in for GPUs"
                                        : "GPUs",
           sharing ? ": " : "", shared, def->servers ? (sharing ? "; " : ": ") : "",
           def->servers ? "rank 0 serves" : "");
    train_banner(stdout, &run->o, m, &run->train, &run->test, r->dev, r->note,
                 r->size - def->servers, def->trainer);
    state_banner(&run->o, s, m->n_params);
    exercises_banner("  exercise ");
    if (def->traffic && r->size > 1) {
        def->traffic(line, sizeof line, r->size, m->n_params * sizeof(float));
        printf("  traffic  %s\n", line);
    }
}
#line 1018 "chapters/03-ps.nw"
void train_banner(FILE *f, const Options *o, const Model *m, const Dataset *train,
                  const Dataset *test, const Device *dev, const char *note, int trainers,
                  const char *each)
{
    char shape[128], n1[32], n2[32], n3[32], b1[32];
    model_describe(m, shape, sizeof shape);
    fprintf(f, "  device   %s: %s\n", note, dev->description);
    fprintf(f, "  model    %s, %s parameters (%s), ReLU, softmax cross-entropy\n", shape,
            format_count(n1, (long long)m->n_params), format_bytes(b1, m->n_params * 4));
    fprintf(f, "  data     %s: %s train, %s test, %dx%d, %d classes\n", train->source,
            format_count(n2, train->n), format_count(n3, test->n), train->rows, train->cols,
            train->classes);
#line 1046 "chapters/03-ps.nw"
    int step_b = o->batch_size * o->accum; /* a rank's samples per step (chapter 7) */
    long steps = train_steps_per_epoch(train->n, step_b, trainers);
    long dropped = train->n - steps * step_b * trainers;
    fprintf(f, "  training %d epochs, batch %d", o->epochs, o->batch_size);
    if (trainers > 1)
        fprintf(f, " per %s (global %d)", each, step_b * trainers);
    fprintf(f, ", %s, lr %g, %ld steps/epoch", o->optimizer, options_lr(o), steps);
    if (dropped > 0)
        fprintf(f, " (last %ld samples dropped)", dropped);
    fprintf(f, "\n");
#line 1032 "chapters/03-ps.nw"
    if (o->accum > 1)
        fprintf(f, "  accum    %d micro-batches of %d per %s and step, synced once\n", o->accum,
                o->batch_size, each);
}
#line 949 "chapters/03-ps.nw"
/** After training: compare the replicas, print the final figures (@p res: this rank's). */
static int run_report(const Rank *r, const Strategy *s, const Model *m, const TrainResult *res,
                      char *err)
{
    const Options *o = &r->run->o;
    uint64_t hash = 0;
    launch_phase("comparing the replicas");
    if (r->host && replicas_agree(r->host, m, &hash, err))
        return -1;
    if (res) {
        train_report_end(stdout, res, o->quiet);
        if (!o->quiet && r->size > 1)
            printf("replicas: the weights of all %d ranks are identical (hash %016llx)\n",
                   r->size, (unsigned long long)hash);
        fflush(stdout);
    }
    if (r->host && r->host->barrier(r->host, err)) /* the strategy's figures come last */
        return -1;
    if (r->rank == 0 && !o->quiet && r->run->strategy->report)
        r->run->strategy->report(s, stdout);
    return 0;
}
#line 910 "chapters/03-ps.nw"
static int open_strategy(const Rank *r, Model *m, Strategy *s, char *err)
{
    const StrategyDef *def = r->run->strategy;
    StrategyEnv env = {.c = r->c,
                       .host = r->host,
                       .m = m,
                       .bucket_bytes = (size_t)(r->run->o.bucket_mb * (1 << 20)),
                       .accum = r->run->o.accum};
#line 916 "chapters/03-ps.nw"
    return def->open ? def->open(s, &env, err) : 0;
}

static int serve(const Rank *r, Model *m, Strategy *s, const TrainConfig *cfg, char *err)
{
    const Run *run = r->run;
    long steps = train_steps_per_epoch(run->train.n, run->o.batch_size,
                                       r->size - run->strategy->servers);
    if (run->resume.params && checkpoint_restore(&run->resume, m, err))
        return -1;
    return run->strategy->serve(s, m, cfg, steps, err);
}

#line 857 "chapters/03-ps.nw"
static int train_rank(Rank *r, char *err)
{
    Run *run = r->run;
    const StrategyDef *def = run->strategy;
    bool speaks = r->rank == def->servers;
    Model m;
    Strategy s = {0};
    if (run_model(run, r->dev, &m, err) || open_strategy(r, &m, &s, err))
        return -1;
    if (speaks && !run->o.quiet)
        run_banner(r, &m, &s);
#line 893 "chapters/03-ps.nw"
    TrainConfig cfg = run_train_config(run, speaks);
    TrainResult res;
    int rc = r->rank < def->servers ? serve(r, &m, &s, &cfg, err)
                                    : train_run(&cfg, &m, &run->train, &run->test,
                                                def->open ? &s : NULL, &res, err);
#line 899 "chapters/03-ps.nw"
    if (rc == 0 && run->o.trace) /* appendix A: before the report's barrier */
        rc = trace_write(run->o.trace, err);
    if (rc == 0)
        rc = run_report(r, &s, &m, speaks ? &res : NULL, err);
#line 869 "chapters/03-ps.nw"
    if (rc)
        return -1; /* closing may wait for peers (a thread inside an all-reduce): don't */
    if (def->close)
        def->close(&s);
    model_free(&m);
    return 0;
}
#line 3038 "chapters/06-production.nw"
/** Build one replica on the CPU, for a strategy that drives them all. */
static int build_replica(Model *m, void *arg, char *err)
{
    return run_model(arg, device_cpu(), m, err);
}

#line 3013 "chapters/06-production.nw"
/** SHAPE_THREADS: every replica in this process. */
static void run_threads(Run *run)
{
    char err[ERR_LEN], note[ERR_LEN];
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    device_cpu_threads((int)(cores / run->ranks > 0 ? cores / run->ranks : 1));
    const Device *cpu = device_open("cpu", 0, note, err);
#line 3055 "chapters/06-production.nw"
    if (!run->o.quiet) {
        Rank r = {.size = run->ranks, .dev = device_cpu(), .run = run};
        Model probe;
        snprintf(r.note, sizeof r.note, "cpu (%s drives CPU replicas)", run->strategy->name);
        if (build_replica(&probe, run, err))
            fatal("%s", err);
        run_banner(&r, &probe, NULL);
        model_free(&probe);
    }
#line 3021 "chapters/06-production.nw"
    TrainConfig cfg = run_train_config(run, true);
    Model master;
    TrainResult res;
    if (run->strategy->threads(&cfg, run->ranks, &run->train, &run->test, build_replica, run,
                               &master, &res, err))
        fatal("%s", err);
#line 3028 "chapters/06-production.nw"
    train_report_end(stdout, &res, run->o.quiet);
    model_free(&master);
    if (device_close(cpu, err))
        fatal("%s", err);
}

#line 794 "chapters/03-ps.nw"
int run_training(Run *run)
{
    const StrategyDef *def = run->strategy;
    char word[32];
    snprintf(word, sizeof word, "%ss", def->trainer);
    int status = check_strategy(run);
    if (status == RUN_GO)
        status = run_start(run, def->needs & NEEDS_MPI);
    if (status == RUN_GO && def->shape == SHAPE_ONE)
        run->ranks = 1;
    if (status == RUN_GO)
        status = run_prepare_training(run, run->ranks - def->servers, word);
    if (status != RUN_GO)
        return status;
    if (def->shape == SHAPE_THREADS)
        run_threads(run);
    else if (def->shape == SHAPE_ONE)
        run_one(run, train_rank);
    else
        run_ranks(run, train_rank);
    return run_finish(run);
}
