/**
 * @file run.c
 * @brief The run layer: training over the ranks with a strategy (chapters 3, 6).
 */
#line 3326 "chapters/02-shm.nw"
#include "run.h"

#include <string.h>
#include <unistd.h>

#include "trace.h"
#include "util.h"

#line 869 "chapters/03-ps.nw"
static int check_strategy(const Run *run);
static int train_rank(Rank *r, char *err);
static int run_threads(Run *run);

#line 884 "chapters/03-ps.nw"
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
#line 1159 "chapters/03-ps.nw"
/** RUN_GO when run->strategy can run as asked; else EXIT_USAGE after one line. */
static int check_strategy(const Run *run)
{
    const StrategyDef *def = run->strategy;
    const Options *o = &run->o;
    char why[ERR_LEN] = "";
#line 3389 "chapters/06-production.nw"
    bool given = o->given & OPT_TRANSPORT;
    bool over_mpi = transport_find(o->transport) == &transport_mpi;
    char names[ERR_LEN / 4];
    if ((def->needs & NEEDS_MPI) && given && !over_mpi) {
        snprintf(why, sizeof why,
                 "--strategy %s: %s needs the MPI transport (drop --transport "
                 "shm, run under mpirun)",
                 def->name, def->title);
#line 3396 "chapters/06-production.nw"
    } else if (given && over_mpi && !(def->needs & RUNS_OVER_MPI)) {
        strategy_names(names, sizeof names, RUNS_OVER_MPI, ", ");
        snprintf(why, sizeof why,
                 "--strategy %s runs on this machine's shared memory; over "
                 "--transport mpi use %s",
                 def->name, names);
#line 3400 "chapters/06-production.nw"
    } else if (def->shape == SHAPE_ONE && (o->given & OPT_N_GPUS) && o->n_gpus != 1) {
        snprintf(why, sizeof why, "--strategy %s trains on one device: drop --n_gpus or give 1",
                 def->name);
    } else if ((def->needs & NEEDS_GPUS) && strcmp(o->device, "cpu") == 0) {
        snprintf(why, sizeof why, "--strategy %s: %s moves GPU memory: drop --device cpu",
                 def->name, def->title);
    } else if ((def->needs & CPU_ONLY) && strcmp(o->device, "cuda") == 0) {
        snprintf(why, sizeof why,
                 "--strategy %s drives CPU replicas from one process; this "
                 "book's CUDA backend holds one GPU per process (use nccl or ring on GPUs)",
                 def->name);
#line 3410 "chapters/06-production.nw"
    } else if (def->check) {
        def->check(o->n_gpus, strcmp(o->device, "cpu") == 0, why, sizeof why);
    }
#line 3427 "chapters/06-production.nw"
    if (!why[0] && (o->given & OPT_BUCKET) && !(def->needs & USES_BUCKETS)) {
        strategy_names(names, sizeof names, USES_BUCKETS, ", ");
        snprintf(why, sizeof why, "--bucket_mb sets the buckets of --strategy %s only", names);
#line 3431 "chapters/06-production.nw"
    }
#line 1192 "chapters/09-hosts.nw"
    if (!why[0] && (o->given & OPT_RANKS_PER_HOST) && !(def->needs & USES_HOSTS)) {
        strategy_names(names, sizeof names, USES_HOSTS, ", ");
        snprintf(why, sizeof why, "--ranks_per_host groups the ranks of --strategy %s only",
                 names);
    } else if (!why[0] && (o->given & OPT_RANKS_PER_HOST) && !over_mpi &&
               o->n_gpus % o->ranks_per_host) {
        snprintf(why, sizeof why, "--ranks_per_host %d does not divide --n_gpus %d",
                 o->ranks_per_host, o->n_gpus);
    }
#line 2054 "chapters/10-compress.nw"
    if (!why[0] && (o->given & OPT_CODEC)) {
        GradCodec g = {.dtype = DTYPE_FP32};
        dtype_parse(o->grad_dtype, &g.dtype);
        bool fine = grad_codec_parse(o->compress, &g, why, sizeof why) == 0;
        unsigned carries =
            g.kind != COMPRESS_NONE ? CARRIES_CODEC : CARRIES_CODEC | CARRIES_DTYPE;
#line 2059 "chapters/10-compress.nw"
        if (fine && grad_codec_active(&g) && !(def->needs & carries))
            snprintf(why, sizeof why, "--grad_dtype %s --compress %s with --strategy %s: %s",
                     o->grad_dtype, o->compress, def->name, def->no_codec);
        if (fine && !why[0] && g.dtype != DTYPE_FP32 && g.kind == COMPRESS_TOPK)
            snprintf(why, sizeof why,
                     "--grad_dtype %s with --compress %s: top-k's pairs "
                     "travel as 32-bit indices and floats",
                     o->grad_dtype, o->compress);
#line 2065 "chapters/10-compress.nw"
        if (fine && !why[0] && g.dtype == DTYPE_FP16 && g.kind != COMPRESS_NONE)
            snprintf(why, sizeof why,
                     "--grad_dtype fp16 with --compress %s: a skipped step "
                     "would leave its overflow in the error feedback (use bf16)",
                     o->compress);
#line 2068 "chapters/10-compress.nw"
        if (fine && !why[0] && g.dtype != DTYPE_FP16 &&
            (o->loss_scale != 65536 || o->scale_window != 2000))
            snprintf(why, sizeof why,
                     "--loss_scale and --scale_window scale fp16 gradients "
                     "only (add --grad_dtype fp16)");
#line 2072 "chapters/10-compress.nw"
    }
#line 681 "chapters/11-tensor.nw"
    if (!why[0] && o->tp > 0 && def != &strategy_tensor) {
        snprintf(why, sizeof why, "--tp splits the layers of --strategy tensor only");
    } else if (!why[0] && def == &strategy_tensor && o->tp > 0 && !run->mpi &&
               o->n_gpus % o->tp) {
        snprintf(why, sizeof why, "--tp %d does not divide --n_gpus %d", o->tp, o->n_gpus);
    } else if (!why[0] && def == &strategy_tensor) {
        int T = o->tp > 0 ? o->tp : o->n_gpus;
        if (o->n_hidden == 0)
            snprintf(why, sizeof why,
                     "--strategy tensor splits hidden layers, and --hidden 0 "
                     "has none");
#line 691 "chapters/11-tensor.nw"
        for (int k = 0; !why[0] && k < o->n_hidden; k += 2)
            if (!run->mpi && o->hidden[k] < T)
                snprintf(why, sizeof why, "--tp %d: hidden layer %d has only %d units to split",
                         T, k + 1, o->hidden[k]);
    }
#line 443 "chapters/07-zero.nw"
    if (!why[0] && (def->needs & SGD_ONLY) && strcmp(o->optimizer, "sgd") != 0)
        snprintf(why, sizeof why,
                 "--optimizer %s: %s steps with plain SGD on its server (use --optimizer sgd)",
                 o->optimizer, def->title);
#line 872 "chapters/07-zero.nw"
    if (!why[0] && (def->needs & NO_CHECKPOINT) && o->checkpoint)
        snprintf(why, sizeof why,
                 "--checkpoint with --strategy %s: it keeps only a part of each layer's "
                 "parameters between steps (use zero2)",
                 def->name);
    if (!why[0] && (def->needs & NO_ACCUM) && o->accum > 1)
        snprintf(why, sizeof why, "--accum %d: %s steps once per push (use --accum 1)",
                 o->accum, def->title);
#line 1170 "chapters/03-ps.nw"
    if (!why[0] && o->n_gpus < def->min_ranks)
        snprintf(why, sizeof why, "--n_gpus %d: %s needs %s (--n_gpus %d or more)", o->n_gpus,
                 def->title, def->why_min, def->min_ranks);
#line 1174 "chapters/03-ps.nw"
    if (why[0])
        fprintf(stderr, "%s: %s\n", program_name(), why);
    return why[0] ? EXIT_USAGE : RUN_GO;
}
#line 998 "chapters/03-ps.nw"
static int open_strategy(const Rank *r, Model *m, Strategy *s, char *err)
{
    const StrategyDef *def = r->run->strategy;
    StrategyEnv env = {.c = r->c,
                       .host = r->host,
                       .m = m,
                       .bucket_bytes = (size_t)(r->run->o.bucket_mb * (1 << 20)),
                       .accum = r->run->o.accum,
                       .ranks_per_host = r->run->o.ranks_per_host,
                       .tp = r->run->o.tp,
                       .codec = run_codec(&r->run->o)};
#line 1007 "chapters/03-ps.nw"
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

#line 945 "chapters/03-ps.nw"
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
#line 981 "chapters/03-ps.nw"
    TrainConfig cfg = run_train_config(run, speaks);
    TrainResult res;
    int rc = r->rank < def->servers ? serve(r, &m, &s, &cfg, err)
                                    : train_run(&cfg, &m, &run->train, &run->test,
                                                def->open ? &s : NULL, &res, err);
#line 987 "chapters/03-ps.nw"
    if (rc == 0 && run->o.trace) /* appendix A: before the report's barrier */
        rc = trace_write(run->o.trace, err);
    if (rc == 0)
        rc = run_report(r, &s, &m, speaks ? &res : NULL, err);
#line 957 "chapters/03-ps.nw"
    if (rc)
        return -1; /* closing may wait for peers (a thread inside an all-reduce): don't */
    if (def->close)
        def->close(&s);
    model_free(&m);
    return 0;
}
#line 3349 "chapters/06-production.nw"
/** Build one replica on the CPU, for a strategy that drives them all. */
static int build_replica(Model *m, void *arg, char *err)
{
    return run_model(arg, device_cpu(), m, err);
}

#line 3325 "chapters/06-production.nw"
/** SHAPE_THREADS: every replica in this process. */
static int run_threads(Run *run)
{
    char err[ERR_LEN], note[ERR_LEN];
    long cores = cores_available();
    device_cpu_threads((int)(cores / run->ranks > 0 ? cores / run->ranks : 1));
    const Device *cpu = device_open("cpu", 0, note, err);
#line 3366 "chapters/06-production.nw"
    if (!run->o.quiet) {
        Rank r = {.size = run->ranks, .dev = device_cpu(), .run = run};
        Model probe;
        snprintf(r.note, sizeof r.note, "cpu (%s drives CPU replicas)", run->strategy->name);
        if (build_replica(&probe, run, err))
            return run_fail(run, err);
        run_banner(&r, &probe, NULL);
        model_free(&probe);
    }
#line 3333 "chapters/06-production.nw"
    TrainConfig cfg = run_train_config(run, true);
    Model master;
    TrainResult res;
    if (run->strategy->threads(&cfg, run->ranks, &run->train, &run->test, build_replica, run,
                               &master, &res, err))
        return run_fail(run, err);
#line 3340 "chapters/06-production.nw"
    train_report_end(stdout, &res, run->o.quiet);
    model_free(&master);
    return device_close(cpu, err) ? run_fail(run, err) : 0;
}
