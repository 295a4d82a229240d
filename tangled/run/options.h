/**
 * @file options.h
 * @brief The command line shared by every program of the book.
 */
#ifndef DPS_OPTIONS_H
#define DPS_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "launch.h"
#include "model.h"
#include "util.h"

/** One bit per option; a program accepts the options whose bits it passes. */
enum OptionBit {
    OPT_BATCH_SIZE = 1u << 0,
    OPT_EPOCHS = 1u << 1,
    OPT_LR = 1u << 2,
    OPT_HIDDEN = 1u << 3,
    OPT_SEED = 1u << 4,
    OPT_DEVICE = 1u << 5,
    OPT_DATA = 1u << 6,
    OPT_TRAIN_SIZE = 1u << 7,
    OPT_LOG = 1u << 8,
    OPT_QUIET = 1u << 9,
    OPT_N_GPUS = 1u << 10,
    OPT_TIMEOUT = 1u << 11,
    OPT_BENCH = 1u << 12,        /**< -b -e -f -n -w -c, the sizes and counts of nccl-tests */
    OPT_OP = 1u << 13,           /**< --op: the collective of ./collectives */
    OPT_TRANSPORT = 1u << 14,    /**< --transport: shm or mpi */
    OPT_STRATEGY = 1u << 15,     /**< --strategy, and --tp of chapter 11's (chapter 6) */
    OPT_BUCKET = 1u << 16,       /**< --bucket_mb: the DDP-style bucket cap (chapter 6) */
    OPT_CSV = 1u << 17,          /**< --csv: where a benchmark writes its table (chapter 6) */
    OPT_CHECKPOINT = 1u << 18,   /**< --checkpoint: a file written after every epoch (app. B) */
    OPT_RESUME = 1u << 19,       /**< --resume: go on from the --checkpoint file (app. B) */
    OPT_OPTIMIZER = 1u << 20,    /**< --optimizer: sgd, momentum or adamw (chapter 7) */
    OPT_MOMENTUM = 1u << 21,     /**< --momentum: mu of heavy-ball momentum (chapter 7) */
    OPT_WEIGHT_DECAY = 1u << 22, /**< --weight_decay: AdamW's lambda (chapter 7) */
    OPT_ACCUM = 1u << 23,        /**< --accum: micro-batches per step (chapter 7) */
    OPT_TRACE = 1u << 24,        /**< --trace: Chrome trace events of every rank (appendix A) */
    OPT_RANKS_PER_HOST = 1u << 25, /**< --ranks_per_host: pretend hosts of K ranks (ch. 9) */
    OPT_HOSTS = 1u << 26,          /**< --hosts: ./scale's hosts (chapter 9) */
    OPT_PARAMS = 1u << 27,         /**< --params: ./scale's model, in parameters */
    OPT_TOKENS = 1u << 28,         /**< --tokens: ./scale's tokens per GPU per step */
    OPT_MACHINE = 1u << 29,        /**< --machine: ./scale's links, h100 or here */
    OPT_FROM = 1u << 30,           /**< --from: the directory of this machine's measurements */
    OPT_CODEC = 1u << 31, /**< --grad_dtype --compress --loss_scale --scale_window (ch. 10) */
};

/** The options of one-device training (chapter 1). */
#define OPTS_TRAIN                                                                             \
    (OPT_BATCH_SIZE | OPT_EPOCHS | OPT_LR | OPT_HIDDEN | OPT_SEED | OPT_CHECKPOINT |           \
     OPT_RESUME | OPT_OPTIMIZER | OPT_MOMENTUM | OPT_WEIGHT_DECAY | OPT_ACCUM | OPT_DEVICE |   \
     OPT_DATA | OPT_TRAIN_SIZE | OPT_LOG | OPT_TRACE | OPT_QUIET)

/** The options of every program with several ranks (chapter 2 on). */
#define OPTS_RANKS (OPT_N_GPUS | OPT_TIMEOUT | OPT_DEVICE)
/** Most ranks a run may have: as many as the launcher supervises. */
#define MAX_RANKS LAUNCH_MAX_RANKS

/** Parsed options, with their defaults filled by options_defaults(). */
typedef struct Options {
    int batch_size;         /**< samples per step on each rank */
    int epochs;             /**< passes over the training set */
    float lr;               /**< learning rate (see options_lr()) */
    const char *optimizer;  /**< "sgd", "momentum" or "adamw" (chapter 7) */
    float momentum;         /**< mu of heavy-ball momentum */
    float weight_decay;     /**< AdamW's decoupled weight decay */
    int accum;              /**< micro-batches per step (chapter 7) */
    int hidden[MAX_HIDDEN]; /**< widths of the hidden layers */
    int n_hidden;           /**< how many hidden layers */
    uint64_t seed;          /**< seeds data, initial weights and shuffles */
    const char *device;     /**< "auto", "cpu" or "cuda" */
    const char *data;       /**< "synthetic" or a directory of MNIST IDX files */
    long train_size;        /**< training samples to use; 0: the data's default */
    const char *log;        /**< CSV file for per-epoch figures, or NULL */
    const char *trace;      /**< Chrome trace file of every rank's timeline, or NULL */
    bool quiet;             /**< print only the final line */
    int n_gpus;             /**< ranks: GPUs, or processes standing in for them */
    float timeout;          /**< seconds a rank waits for a peer before giving up */
    size_t min_bytes;       /**< -b: smallest message of a benchmark */
    size_t max_bytes;       /**< -e: largest message of a benchmark */
    int step_factor;        /**< -f: each size is the last times this */
    int iters;              /**< -n: timed iterations per size */
    int warmup;             /**< -w: untimed iterations before them */
    int check;              /**< -c: 1 to check the results, 0 not to */
    const char *op;         /**< --op: reduce_scatter, all_gather or all_reduce */
    const char *transport;  /**< --transport: "shm" (fork N ranks) or "mpi" (under mpirun) */
    const char *strategy;   /**< --strategy: single, param_server, ring, ... */
    float bucket_mb;        /**< --bucket_mb: largest bucket of ring_bucketed, in MiB */
    int ranks_per_host;     /**< --ranks_per_host: pretend hosts of that many ranks; 0: real */
    int hosts;              /**< --hosts: ./scale's hosts (chapter 9) */
    float params;           /**< --params: ./scale's model, in parameters */
    long tokens;            /**< --tokens: ./scale's tokens per GPU per step */
    const char *machine;    /**< --machine: ./scale's links, h100 or here */
    const char *from;       /**< --from: where ./scale finds this machine's measurements */
    const char *csv;        /**< --csv: a benchmark's table as CSV, or NULL */
    const char *grad_dtype; /**< --grad_dtype: fp32, bf16 or fp16 (chapter 10) */
    const char *compress;   /**< --compress: none, powersgd:R or topk:F */
    float loss_scale;       /**< --loss_scale: fp16's first loss scale */
    int scale_window;       /**< --scale_window: clean steps before it doubles */
    int tp; /**< --tp: ranks each pair of layers is split across; 0: all (chapter 11) */
    const char *checkpoint; /**< --checkpoint: where to save after every epoch, or NULL */
    bool resume;            /**< --resume: continue from --checkpoint */
    unsigned given;         /**< the OptionBits of the options on the command line */
    bool help;              /**< --help was given */
} Options;

/** Fill @p o with the defaults. */
void options_defaults(Options *o);
/**
 * Parse @p argv into @p o (which holds the defaults), accepting the options in
 * @p accepted. Returns 0, or -1 with a one-line message in @p err.
 */
int options_parse(Options *o, int argc, char **argv, unsigned accepted, char *err);
/** Print the usage text for the options in @p accepted, then @p examples. */
void options_usage(FILE *f, const char *summary, unsigned accepted, const char *examples);
/**
 * Give the option of bit @p bit (one whose table row has no choices) its choices, "a|b|c",
 * before parsing: --strategy's come from the strategy table, which the options do not know.
 */
void options_set_choices(unsigned bit, const char *choices);
/** The learning rate of the run: --lr, or its default for the optimizer (chapter 7). */
float options_lr(const Options *o);

#endif
