/**
 * @file prepare.c
 * @brief The run layer: a training run's data, log, checkpoint, model and loop (chapter 1).
 */
#line 3306 "chapters/02-shm.nw"
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "trace.h"
#include "util.h"

#line 2663 "chapters/A1-support.nw"
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

#line 4821 "chapters/01-mlp.nw"
int run_prepare_training(Run *run, int trainers, const char *word)
{
    Options o = run->o; /* a copy: only rank 0 of an MPI run keeps the log */
    if (run->mpi_rank != 0)
        o.log = NULL;
    if (train_prepare(&o, trainers, word, &run->train, &run->test, &run->log, &run->resume) ||
        trace_begin(run)) {
#line 4829 "chapters/01-mlp.nw"
        if (run->mpi)
            run->transport->leave();
        return EXIT_USAGE;
    }
    return RUN_GO;
}

#line 4846 "chapters/01-mlp.nw"
int run_model(const Run *run, const Device *dev, Model *m, char *err)
{
    const Options *o = &run->o;
    return model_init(m, dev, run->train.features, o->hidden, o->n_hidden, run->train.classes,
                      o->batch_size, o->seed, err);
}

#line 4862 "chapters/01-mlp.nw"
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
        .loss_scale = strcmp(o->grad_dtype, "fp16") == 0 ? o->loss_scale : 0,
        .scale_window = o->scale_window,
    };
#line 4882 "chapters/01-mlp.nw"
}

#line 4899 "chapters/01-mlp.nw"
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

#line 5014 "chapters/01-mlp.nw"
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
#line 4924 "chapters/01-mlp.nw"
int train_prepare(const Options *o, int ranks, const char *ranks_word, Dataset *train,
                  Dataset *test, FILE **log, Checkpoint *resume)
{
    char err[ERR_LEN];
    *log = NULL;
    memset(resume, 0, sizeof *resume);
#line 454 "chapters/07-zero.nw"
    if (o->checkpoint && strcmp(o->optimizer, "sgd") != 0) {
        fprintf(stderr,
                "%s: --checkpoint with --optimizer %s: a checkpoint does not hold the "
                "optimizer's state yet (use --optimizer sgd)\n",
                program_name(), o->optimizer);
        return -1;
    }
#line 883 "chapters/07-zero.nw"
    if (o->checkpoint && o->accum > 1) {
        fprintf(stderr,
                "%s: --checkpoint with --accum %d: a checkpoint does not record the "
                "micro-batches yet (use --accum 1)\n",
                program_name(), o->accum);
#line 886 "chapters/07-zero.nw"
        return -1;
    }
#line 934 "chapters/A2-failure.nw"
    if (o->resume && !o->checkpoint) {
        fprintf(stderr, "%s: --resume needs --checkpoint FILE (the file to resume from)\n",
                program_name());
        return -1;
    }
    if (o->checkpoint && checkpoint_writable(o->checkpoint, err)) {
        fprintf(stderr, "%s: --checkpoint: %s\n", program_name(), err);
        return -1;
    }
#line 949 "chapters/A2-failure.nw"
    if (o->resume && checkpoint_load(o->checkpoint, resume, err)) {
        fprintf(stderr, "%s: --resume: %s\n", program_name(), err);
        return -1;
    }
#line 4999 "chapters/01-mlp.nw"
    bool created = false;
    if (o->log && !(*log = log_open(o->log, &created))) {
        fprintf(stderr, "%s: --log %s: cannot open: %s\n", program_name(), o->log,
                strerror(errno));
        return prepare_failed(o, log, false, resume);
    }
#line 4933 "chapters/01-mlp.nw"
    if (data_load(o->data, o->train_size, o->seed, train, test, err)) {
        fprintf(stderr, "%s: %s\n", program_name(), err);
        return prepare_failed(o, log, created, resume);
    }
#line 4953 "chapters/01-mlp.nw"
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
#line 960 "chapters/A2-failure.nw"
    if (o->resume) {
        Checkpoint want = {.n_layers = o->n_hidden + 1,
                           .seed = o->seed,
                           .global_batch = (uint64_t)global,
                           .n_train = (uint64_t)train->n,
                           .lr = o->lr,
                           .epochs = o->epochs};
#line 964 "chapters/A2-failure.nw"
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
#line 4978 "chapters/01-mlp.nw"
    if (*log && !o->resume && regular_file(*log) && ftruncate(fileno(*log), 0) != 0) {
        fprintf(stderr, "%s: --log %s: %s\n", program_name(), o->log, strerror(errno));
        return prepare_failed(o, log, created, resume);
    }
    if (*log && (!regular_file(*log) || (fseek(*log, 0, SEEK_END) == 0 && ftell(*log) == 0)))
        report_csv_header(*log); /* a resumed run appends to its log */
#line 4940 "chapters/01-mlp.nw"
    return 0;
}
#line 2036 "chapters/10-compress.nw"
GradCodec run_codec(const Options *o)
{
    GradCodec g = {.dtype = DTYPE_FP32};
    char why[ERR_LEN];
    dtype_parse(o->grad_dtype, &g.dtype);
    if (grad_codec_parse(o->compress, &g, why, sizeof why))
        g.kind = COMPRESS_NONE;
    return g;
}
