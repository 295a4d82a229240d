/**
 * @file run.h
 * @brief The run layer: what every program does around its ranks (chapters 1-3, 6, appendix B).
 */
#ifndef DPS_RUN_H
#define DPS_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "checkpoint.h"
#include "comm.h"
#include "data.h"
#include "device.h"
#include "options.h"
#include "strategy.h"
#include "train.h"
#include "transport.h"

struct Rank;
/** What a program prepares before its ranks start; every rank reads it. */
typedef struct Run {
    Options o;                     /**< the command line, as parsed: only read afterwards */
    int ranks;                     /**< N: how many ranks run */
    bool mpi;                      /**< the ranks are mpirun's processes, not forked ones */
    int mpi_rank;                  /**< under MPI, this process's rank */
    const TransportDef *transport; /**< --transport's row: how the ranks come to be */
    ShmWorld *w;                   /**< the forked ranks' shared world, or NULL */
    Dataset train;                 /**< a training program's training set */
    Dataset test;                  /**< ... and its test set */
    FILE *log;                     /**< the CSV log (held by one process), or NULL */
    Checkpoint resume;             /**< with --resume, where the run goes on from (app. B) */
    const StrategyDef *strategy;   /**< a training program's strategy (chapter 3) */
    void *program;                 /**< the program's own state, if it needs more */
    bool trace_owner;              /**< this process created the --trace file (appendix A) */
    int status;                    /**< EXIT_FAILURE once a part failed (its line printed) */
    int (*body)(struct Rank *r, char *err); /**< what each rank does after its prelude */
} Run;

/** One rank, after its prelude. */
typedef struct Rank {
    int rank;           /**< 0 .. size-1 */
    int size;           /**< N */
    const Device *dev;  /**< its device, opened after the fork */
    char note[ERR_LEN]; /**< how the device was chosen, for the banner */
    Comm *c;            /**< its communicator, or NULL in a run of one process */
    Comm *host;         /**< host messages beside c (c itself on the CPU and under MPI) */
    Run *run;           /**< what the program prepared */
} Rank;
/** run_parse()'s and run_start()'s answer when the program goes on. */
#define RUN_GO (-1)
/**
 * Parse @p argv into run->o, accepting the options in @p accepted; print the usage text
 * (@p summary, then the options, then @p examples) for --help. Returns RUN_GO, or the exit
 * status the program returns at once: 0 after --help, EXIT_USAGE after one line on stderr.
 */
int run_parse(Run *run, int argc, char **argv, unsigned accepted, const char *summary,
              const char *examples);
/**
 * Decide how the ranks run: run->ranks from --n_gpus, or under MPI (--transport mpi, or
 * @p mpi for a strategy that needs it) from mpirun's world. Returns RUN_GO or EXIT_USAGE.
 */
int run_start(Run *run, bool mpi);
/**
 * Run @p body on every rank after its prelude: fork run->ranks ranks over a shared world
 * and supervise them, or under MPI be this process's rank. Returns 0, or EXIT_FAILURE
 * after one line (kept in run->status); under MPI a failed rank aborts the whole job.
 */
int run_ranks(Run *run, int (*body)(Rank *r, char *err));
/** Print @p line after the program's name, and mark the run failed; EXIT_FAILURE. */
int run_fail(Run *run, const char *line);
/**
 * Close the log and the trace, free the data and the checkpoint, whatever happened
 * before; returns the run's exit status (0, or EXIT_FAILURE after a failure).
 */
int run_finish(Run *run);
/**
 * Whether the forked ranks of @p r's run share GPUs: if so, "4 ranks share 1 GPU"
 * in @p line (len bytes) and, unless the run is quiet, one line on stderr on what
 * that costs when CUDA MPS is not running. Call it once, from the rank that prints
 * the banner.
 */
bool run_gpu_sharing(const Rank *r, char *line, size_t len);
/**
 * Before training: load the data, check that a global batch of @p ranks x --batch_size
 * samples fits in the training set (@p ranks_word names the ranks in the message:
 * "ranks", "workers"), check --checkpoint and with --resume load it into @p resume
 * (zeroed otherwise), and open --log (writing the CSV header unless resuming a log).
 * Returns 0, or -1 after printing one line on stderr; the program then exits with
 * EXIT_USAGE.
 */
int train_prepare(const Options *o, int ranks, const char *ranks_word, Dataset *train,
                  Dataset *test, FILE **log, Checkpoint *resume);
/**
 * train_prepare() for @p run, with @p trainers ranks of --batch_size samples (@p word
 * names them); under MPI only rank 0 keeps the log. RUN_GO, or EXIT_USAGE (MPI finalised).
 */
int run_prepare_training(Run *run, int trainers, const char *word);
/** Build @p m on @p dev from the command line's model and seed. */
int run_model(const Run *run, const Device *dev, Model *m, char *err);
/** The loop's configuration; @p reports: this rank prints and keeps the log. */
TrainConfig run_train_config(const Run *run, bool reports);
/**
 * Train with run->strategy: check what it needs, start, prepare, run its ranks in its
 * shape, finish. Returns the program's exit status (a runtime failure ends the program).
 */
int run_training(Run *run);
/**
 * Print the banner lines every training program shares: the device (@p note says how it
 * was chosen), the model, the data, and the training of @p trainers ranks of --batch_size
 * samples each (@p each names one: "rank", "worker").
 */
void train_banner(FILE *f, const Options *o, const Model *m, const Dataset *train,
                  const Dataset *test, const Device *dev, const char *note, int trainers,
                  const char *each);
/** SHAPE_ONE: @p body as rank 0 of 1, in this process; as run_ranks() answers. */
int run_one(Run *run, int (*body)(Rank *r, char *err));
/** The banner of a training run, from the rank that speaks (banner.c). */
void run_banner(const Rank *r, const Model *m, const Strategy *s);
/**
 * After training (finish.c): compare the replicas, print the final figures (@p res: this
 * rank's, or NULL on a rank that does not speak), then the strategy's. 0, or -1 with @p err.
 */
int run_report(const Rank *r, const Strategy *s, const Model *m, const TrainResult *res,
               char *err);
/**
 * Print the banner's state line: the bytes rank 0 will keep for parameters, gradients and
 * optimizer state with @p o's optimizer and its opened strategy @p s (NULL: one device).
 */
void state_banner(const Options *o, const Strategy *s, size_t n_params);
/** The codec that --grad_dtype and --compress name (checked before the run starts). */
GradCodec run_codec(const Options *o);

#endif
