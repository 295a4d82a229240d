/**
 * @file options.c
 * @brief A table-driven parser for the book's command line.
 */
#line 922 "chapters/A1-support.nw"
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#line 949 "chapters/A1-support.nw"
void options_defaults(Options *o)
{
    memset(o, 0, sizeof *o);
    o->batch_size = 64;
    o->epochs = 5;
    o->lr = 0.05f;
    o->optimizer = "sgd";
    o->momentum = 0.9f;
    o->weight_decay = 0.01f;
    o->accum = 1;
    o->hidden[0] = 128;
    o->n_hidden = 1;
    o->seed = 1;
    o->device = "auto";
    o->data = "synthetic";
    o->train_size = 0;
    o->log = NULL;
#line 984 "chapters/A1-support.nw"
    o->n_gpus = 2;
    o->timeout = 60;
    o->min_bytes = 8;
    o->max_bytes = 256u << 20;
    o->step_factor = 2;
    o->iters = 20;
    o->warmup = 5;
    o->check = 1;
    o->op = "reduce_scatter";
    o->transport = "shm";
    o->strategy = "direct"; /* chapter 8's choice; the channel ring where there is no window */
    o->bucket_mb = 25;
#line 967 "chapters/A1-support.nw"
}
#line 1026 "chapters/A1-support.nw"
/** The kinds of value an option takes. */
typedef enum {
#line 1027 "chapters/A1-support.nw"
    ARG_INT,
    ARG_LONG,
    ARG_U64,
    ARG_FLOAT,
    ARG_STRING,
    ARG_CHOICE,
    ARG_WIDTHS,
    ARG_FLAG,
    ARG_BYTES
} ArgKind;

#line 1030 "chapters/A1-support.nw"
/** One row of the option table. */
typedef struct OptionSpec {
    const char *name;    /**< without the leading -- */
    unsigned bit;        /**< its OptionBit */
    ArgKind kind;        /**< what its value is */
    size_t offset;       /**< of its field in Options */
    double min;          /**< smallest number accepted */
    double max;          /**< largest number accepted */
    const char *choices; /**< for ARG_CHOICE: "a|b|c" */
    const char *metavar; /**< the value's name in the usage text */
    const char *help;    /**< one line of usage text */
    char short_name;     /**< a one-letter alias (-b), or 0 */
} OptionSpec;

#line 1055 "chapters/A1-support.nw"
/** The offset of a field of Options, as the table's .offset. */
#define AT(field) .offset = offsetof(Options, field)
static const OptionSpec specs[] = {
#line 1091 "chapters/A1-support.nw"
    {.name = "batch_size",
     .bit = OPT_BATCH_SIZE,
     .kind = ARG_INT,
     AT(batch_size),
     .min = 1,
     .max = 1 << 20,
     .metavar = "N",
     .help = "samples per step on each rank (default 64)"},
    {.name = "epochs",
     .bit = OPT_EPOCHS,
     .kind = ARG_INT,
     AT(epochs),
     .min = 1,
     .max = 1000000,
     .metavar = "N",
     .help = "passes over the training set (default 5)"},
    {.name = "lr",
     .bit = OPT_LR,
     .kind = ARG_FLOAT,
     AT(lr),
     .min = 1e-9,
     .max = 1e3,
     .metavar = "F",
     .help = "learning rate (default 0.05; with adamw 0.001)"},
    {.name = "hidden",
     .bit = OPT_HIDDEN,
     .kind = ARG_WIDTHS,
     AT(hidden),
     .min = 1,
     .max = 65536,
     .metavar = "W[,W...]",
     .help = "hidden layer widths, one per layer; 0: none (default 128)"},
    {.name = "seed",
     .bit = OPT_SEED,
     .kind = ARG_U64,
     AT(seed),
     .metavar = "N",
     .help = "seed of data, initial weights and shuffles (default 1)"},
    {.name = "device",
     .bit = OPT_DEVICE,
     .kind = ARG_CHOICE,
     AT(device),
     .choices = "auto|cpu|cuda",
     .metavar = "D",
     .help = "auto|cpu|cuda (default auto: CUDA when a GPU answers)"},
    {.name = "data",
     .bit = OPT_DATA,
     .kind = ARG_STRING,
     AT(data),
     .metavar = "SRC",
     .help = "synthetic, or a directory of MNIST IDX files (default synthetic)"},
    {.name = "train_size",
     .bit = OPT_TRAIN_SIZE,
     .kind = ARG_LONG,
     AT(train_size),
     .min = 1,
     .max = 100000000,
     .metavar = "N",
     .help = "training samples to use (default: synthetic 20000, IDX all)"},
    {.name = "log",
     .bit = OPT_LOG,
     .kind = ARG_STRING,
     AT(log),
     .metavar = "FILE.csv",
     .help = "write the per-epoch figures as CSV"},
    {.name = "trace",
     .bit = OPT_TRACE,
     .kind = ARG_STRING,
     AT(trace),
     .metavar = "FILE.json",
     .help = "write every rank's timeline as Chrome trace events (Perfetto opens it)"},
    {.name = "quiet",
     .bit = OPT_QUIET,
     .kind = ARG_FLAG,
     AT(quiet),
     .help = "print only the final line"},
    {.name = "optimizer",
     .bit = OPT_OPTIMIZER,
     .kind = ARG_CHOICE,
     AT(optimizer),
     .choices = "sgd|momentum|adamw",
     .metavar = "O",
     .help = "sgd|momentum|adamw: the update and its state (default sgd)"},
    {.name = "momentum",
     .bit = OPT_MOMENTUM,
     .kind = ARG_FLOAT,
     AT(momentum),
     .min = 0,
     .max = 0.999999,
     .metavar = "F",
     .help = "mu of --optimizer momentum (default 0.9)"},
    {.name = "weight_decay",
     .bit = OPT_WEIGHT_DECAY,
     .kind = ARG_FLOAT,
     AT(weight_decay),
     .min = 0,
     .max = 1,
     .metavar = "F",
     .help = "lambda of --optimizer adamw (default 0.01)"},
    {.name = "accum",
     .bit = OPT_ACCUM,
     .kind = ARG_INT,
     AT(accum),
     .min = 1,
     .max = 4096,
     .metavar = "K",
     .help = "micro-batches per step, gradients synced once (default 1)"},
    {.name = "n_gpus",
     .bit = OPT_N_GPUS,
     .kind = ARG_INT,
     AT(n_gpus),
     .min = 1,
     .max = MAX_RANKS,
     .metavar = "N",
     .help = "ranks: GPUs, or on the CPU processes standing in for them (default 2)"},
    {.name = "timeout",
     .bit = OPT_TIMEOUT,
     .kind = ARG_FLOAT,
     AT(timeout),
     .min = 0.01,
     .max = 86400,
     .metavar = "S",
     .help = "seconds a rank waits for a peer before it gives up (default 60)"},
    {.name = "minbytes",
     .bit = OPT_BENCH,
     .kind = ARG_BYTES,
     AT(min_bytes),
     .max = 1ull << 32,
     .metavar = "SIZE",
     .help = "smallest message, e.g. 8, 4K, 1M (default 8)",
     .short_name = 'b'},
    {.name = "maxbytes",
     .bit = OPT_BENCH,
     .kind = ARG_BYTES,
     AT(max_bytes),
     .max = 1ull << 32,
     .metavar = "SIZE",
     .help = "largest message (default 256M)",
     .short_name = 'e'},
    {.name = "stepfactor",
     .bit = OPT_BENCH,
     .kind = ARG_INT,
     AT(step_factor),
     .min = 2,
     .max = 1024,
     .metavar = "F",
     .help = "each size is the previous one times F (default 2)",
     .short_name = 'f'},
    {.name = "iters",
     .bit = OPT_BENCH,
     .kind = ARG_INT,
     AT(iters),
     .min = 1,
     .max = 1000000,
     .metavar = "N",
     .help = "timed iterations per size; the median is shown (default 20)",
     .short_name = 'n'},
    {.name = "warmup_iters",
     .bit = OPT_BENCH,
     .kind = ARG_INT,
     AT(warmup),
     .max = 1000000,
     .metavar = "N",
     .help = "untimed iterations before them (default 5)",
     .short_name = 'w'},
    {.name = "check",
     .bit = OPT_BENCH,
     .kind = ARG_INT,
     AT(check),
     .max = 1,
     .metavar = "0|1",
     .help = "check every result (default 1)",
     .short_name = 'c'},
    {.name = "op",
     .bit = OPT_OP,
     .kind = ARG_CHOICE,
     AT(op),
     .metavar = "OP",
     .help = "the collective; native_all_reduce: the transport's own (default reduce_scatter)"},
    {.name = "transport",
     .bit = OPT_TRANSPORT,
     .kind = ARG_CHOICE,
     AT(transport),
     .choices = "shm|mpi",
     .metavar = "T",
     .help =
         "shm: fork --n_gpus ranks here; mpi: one rank per process of mpirun (default shm)"},
    {.name = "strategy",
     .bit = OPT_STRATEGY,
     .kind = ARG_CHOICE,
     AT(strategy),
     .metavar = "S",
     .help = "how the ranks agree on the gradients (default direct)"},
    {.name = "csv",
     .bit = OPT_CSV,
     .kind = ARG_STRING,
     AT(csv),
     .metavar = "FILE.csv",
     .help = "also write the table as CSV, with the machine in its first line"},
    {.name = "bucket_mb",
     .bit = OPT_BUCKET,
     .kind = ARG_FLOAT,
     AT(bucket_mb),
     .min = 0.001,
     .max = 4096,
     .metavar = "MB",
     .help =
         "ring_bucketed: largest bucket in MiB; the first holds at most 1 MiB (default 25)"},
    {.name = "checkpoint",
     .bit = OPT_CHECKPOINT,
     .kind = ARG_STRING,
     AT(checkpoint),
     .metavar = "FILE",
     .help = "save the weights after every epoch, atomically (FILE.tmp, then "
             "rename)"},
    {.name = "resume",
     .bit = OPT_RESUME,
     .kind = ARG_FLAG,
     AT(resume),
     .help = "go on from the --checkpoint FILE, after the last epoch it holds"},
};
#line 1060 "chapters/A1-support.nw"
/** Rows in the option table. */
#define N_SPECS (sizeof specs / sizeof specs[0])
#line 1207 "chapters/A1-support.nw"
/** Choices handed in by options_set_choices(), by the option's bit number. */
static const char *choices_given[32];

void options_set_choices(unsigned bit, const char *choices)
{
    choices_given[__builtin_ctz(bit)] = choices;
}

/** The choices of an ARG_CHOICE option: its row's, or those handed in ("" if none). */
static const char *choices_of(const OptionSpec *s)
{
    const char *c = s->choices ? s->choices : choices_given[__builtin_ctz(s->bit)];
    return c ? c : "";
}

#line 1241 "chapters/A1-support.nw"
float options_lr(const Options *o)
{
    if (!(o->given & OPT_LR) && strcmp(o->optimizer, "adamw") == 0)
        return 1e-3f;
    return o->lr;
}
#line 1264 "chapters/A1-support.nw"
static int parse_number(const OptionSpec *s, const char *v, double *out, char *err)
{
    char *end = NULL;
    errno = 0;
    double x;
#line 1309 "chapters/A1-support.nw"
    if (s->kind == ARG_FLOAT) {
        x = strtod(v, &end);
    } else {
        if (strchr(v, '-') && s->kind == ARG_U64)
            return error_set(err, "--%s: expected a non-negative integer, got '%s'", s->name,
                             v);
        long long n = strtoll(v, &end, 10);
        x = (double)n;
    }
#line 1270 "chapters/A1-support.nw"
    if (end == v || *end != '\0' || *v == '\0' || (*v == ' ' || *v == '\t'))
        return error_set(err, "--%s: expected %s, got '%s'", s->name,
                         s->kind == ARG_FLOAT ? "a number" : "an integer", v);
    if (errno == ERANGE || !isfinite(x))
        return error_set(err, "--%s: '%s' is out of range", s->name, v);
    if (s->kind != ARG_U64 && (x < s->min || x > s->max)) {
        if (s->kind == ARG_FLOAT)
            return error_set(err, "--%s: expected a number in [%g, %g], got '%s'", s->name,
                             s->min, s->max, v);
        return error_set(err, "--%s: expected an integer in [%.0f, %.0f], got '%s'", s->name,
                         s->min, s->max, v);
    }
    *out = x;
    return 0;
}
#line 1348 "chapters/A1-support.nw"
/** The multiple a size's suffix (K, M or G, either case) stands for, stepping past it. */
static unsigned long long binary_unit(char **end)
{
    const char *units = "kmg";
    const char *u = **end ? strchr(units, tolower((unsigned char)**end)) : NULL;
    if (!u)
        return 1; /* no suffix, or a wrong one, which the caller refuses */
    (*end)++;
    return 1ull << (10 * (u - units + 1));
}

#line 1363 "chapters/A1-support.nw"
static int parse_bytes(const OptionSpec *s, const char *v, size_t *out, char *err)
{
    char *end = NULL;
    errno = 0;
    if (*v < '0' || *v > '9')
        return error_set(err, "--%s: expected a size like 8, 4K or 256M, got '%s'", s->name, v);
#line 1370 "chapters/A1-support.nw"
    unsigned long long n = strtoull(v, &end, 10);
    unsigned long long unit = binary_unit(&end);
    if (*end != '\0')
        return error_set(err, "--%s: expected a size like 8, 4K or 256M, got '%s'", s->name, v);
#line 1375 "chapters/A1-support.nw"
    if (errno == ERANGE || n > (unsigned long long)s->max / unit)
        return error_set(err, "--%s: '%s' is larger than %.0f bytes", s->name, v, s->max);
    *out = (size_t)(n * unit);
    return 0;
}

#line 1393 "chapters/A1-support.nw"
static int parse_u64(const OptionSpec *s, const char *v, uint64_t *out, char *err)
{
    char *end = NULL;
    errno = 0;
    if (*v < '0' || *v > '9')
        return error_set(err, "--%s: expected a non-negative integer, got '%s'", s->name, v);
#line 1400 "chapters/A1-support.nw"
    unsigned long long n = strtoull(v, &end, 10);
    if (*end != '\0')
        return error_set(err, "--%s: expected a non-negative integer, got '%s'", s->name, v);
#line 1404 "chapters/A1-support.nw"
    if (errno == ERANGE)
        return error_set(err, "--%s: '%s' is out of range (at most 2^64-1)", s->name, v);
    *out = (uint64_t)n;
    return 0;
}

#line 1422 "chapters/A1-support.nw"
static int parse_widths(const OptionSpec *s, const char *v, Options *o, char *err)
{
    int n = 0;
    const char *p = v;
    if (*v == '\0')
        return error_set(err, "--%s: expected widths like 128 or 256,128, got ''", s->name);
#line 1429 "chapters/A1-support.nw"
    if (strcmp(v, "0") == 0) { /* no hidden layer: softmax regression */
        o->n_hidden = 0;
        return 0;
    }
    while (*p) {
#line 1456 "chapters/A1-support.nw"
        char item[32];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item)
            return error_set(err, "--%s: expected widths like 128 or 256,128, got '%s'",
                             s->name, v);
        if (n == MAX_HIDDEN)
            return error_set(err, "--%s: at most %d hidden layers, got '%s'", s->name,
                             MAX_HIDDEN, v);
        memcpy(item, p, len);
        item[len] = '\0';
        double x;
        if (parse_number(
                &(OptionSpec){.name = s->name, .kind = ARG_INT, .min = s->min, .max = s->max},
                item, &x, err))
            return -1;
        o->hidden[n++] = (int)x;
        p += len;
        if (*p == ',' && *++p == '\0')
            return error_set(err, "--%s: expected widths like 128 or 256,128, got '%s'",
                             s->name, v);
#line 1435 "chapters/A1-support.nw"
    }
    o->n_hidden = n;
    return 0;
}
#line 1489 "chapters/A1-support.nw"
static int store(const OptionSpec *s, const char *v, Options *o, char *err)
{
    char *field = (char *)o + s->offset;
    double x = 0;
    switch (s->kind) {
#line 1517 "chapters/A1-support.nw"
    /* numbers, checked against their ranges */
    case ARG_INT:
        if (parse_number(s, v, &x, err))
            return -1;
        *(int *)field = (int)x;
        return 0;
    case ARG_LONG:
        if (parse_number(s, v, &x, err))
            return -1;
        *(long *)field = (long)x;
        return 0;
    case ARG_FLOAT:
        if (parse_number(s, v, &x, err))
            return -1;
        *(float *)field = (float)x;
        return 0;
    case ARG_U64: return parse_u64(s, v, (uint64_t *)field, err);
    case ARG_WIDTHS: return parse_widths(s, v, o, err);
    case ARG_BYTES: return parse_bytes(s, v, (size_t *)field, err);
#line 1553 "chapters/A1-support.nw"
    /* names: one of a list, any, or none */
    case ARG_CHOICE: {
        size_t len = strlen(v);
        const char *c = choices_of(s);
        while (c && *c) {
            size_t n = strcspn(c, "|");
            if (n == len && strncmp(c, v, n) == 0) {
                *(const char **)field = v;
                return 0;
            }
            c += n + (c[n] == '|');
        }
        return error_set(err, "--%s: expected one of %s, got '%s'", s->name, choices_of(s), v);
#line 1567 "chapters/A1-support.nw"
    }
    case ARG_STRING:
        if (*v == '\0')
            return error_set(err, "--%s: expected %s, got an empty string", s->name,
                             s->metavar);
        *(const char **)field = v;
        return 0;
    case ARG_FLAG: *(bool *)field = true; return 0;
#line 1496 "chapters/A1-support.nw"
    }
    return error_set(err, "--%s: internal error: unknown kind", s->name);
}
#line 1604 "chapters/A1-support.nw"
static const OptionSpec *find(const char *name, size_t len, unsigned accepted)
{
    for (size_t i = 0; i < N_SPECS; i++)
        if ((specs[i].bit & accepted) &&
            ((strlen(specs[i].name) == len && strncmp(specs[i].name, name, len) == 0) ||
             (len == 1 && specs[i].short_name == *name)))
            return &specs[i];
    return NULL;
}

#line 1623 "chapters/A1-support.nw"
static int unknown(const char *arg, size_t len, unsigned accepted, char *err)
{
    char fixed[64];
    if (len < sizeof fixed) {
        for (size_t i = 0; i < len; i++)
            fixed[i] = arg[i] == '-' ? '_' : arg[i];
        const OptionSpec *s = find(fixed, len, accepted);
        if (s)
            return error_set(err, "unknown option '--%.*s': did you mean --%s?", (int)len, arg,
                             s->name);
#line 1634 "chapters/A1-support.nw"
    }
    return error_set(err, "unknown option '--%.*s' (try --help)", (int)len, arg);
}

#line 1653 "chapters/A1-support.nw"
int options_parse(Options *o, int argc, char **argv, unsigned accepted, char *err)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = true;
            continue;
        }
#line 1691 "chapters/A1-support.nw"
        bool one_letter = a[0] == '-' && a[1] && a[1] != '-' && a[2] == '\0';
        if (!one_letter && (strncmp(a, "--", 2) != 0 || a[2] == '\0'))
            return error_set(err,
                             "unexpected argument '%s' (options start with --; try --help)", a);
        const char *name = a + (one_letter ? 1 : 2), *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const OptionSpec *s = find(name, len, accepted);
        if (!s && one_letter)
            return error_set(err, "unknown option '%s' (try --help)", a);
        if (!s)
            return unknown(name, len, accepted, err);
#line 1716 "chapters/A1-support.nw"
        const char *value = NULL;
        if (s->kind == ARG_FLAG) {
            if (eq)
                return error_set(err, "--%s takes no value", s->name);
        } else if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return error_set(err, "--%s needs a value (%s)", s->name, s->metavar);
        }
#line 1663 "chapters/A1-support.nw"
        if (store(s, value, o, err))
            return -1;
        o->given |= s->bit;
    }
    if ((accepted & OPT_BENCH) && o->min_bytes > o->max_bytes)
        return error_set(err, "-b %zu is larger than -e %zu", o->min_bytes, o->max_bytes);
    return 0;
}
#line 1756 "chapters/A1-support.nw"
/** "one of a|b|c" under an option's help, wrapped before 96 columns at a bar. */
static void print_choices(FILE *f, const char *choices)
{
    int col = fprintf(f, "  %-24s one of ", "");
    for (const char *c = choices; *c;) {
        int n = (int)strcspn(c, "|");
        if (c != choices && col + n > 95)
            col = fprintf(f, "\n  %-24s        ", "") - 1;
        col += fprintf(f, "%.*s%s", n, c, c[n] ? "|" : "");
        c += n + (c[n] != '\0');
    }
    fprintf(f, "\n");
}

#line 1773 "chapters/A1-support.nw"
void options_usage(FILE *f, const char *summary, unsigned accepted, const char *examples)
{
    fprintf(f, "usage: %s [options]\n%s\n\noptions:\n", program_name(), summary);
    for (size_t i = 0; i < N_SPECS; i++) {
        const OptionSpec *s = &specs[i];
        if (!(s->bit & accepted))
            continue;
        char left[48];
        snprintf(left, sizeof left, "%s%c%s--%s%s%s", s->short_name ? "-" : "",
                 s->short_name ? s->short_name : ' ', s->short_name ? ", " : "   ", s->name,
                 s->metavar ? " " : "", s->metavar ? s->metavar : "");
#line 1785 "chapters/A1-support.nw"
        fprintf(f, "  %-24s %s\n", left, s->help);
        const char *choices = s->kind == ARG_CHOICE ? choices_of(s) : NULL;
        if (choices && *choices && !strstr(s->help, choices))
            print_choices(f, choices);
    }
    fprintf(f, "  %-24s %s\n", "--help", "this text");
    if (examples)
        fprintf(f, "\nexamples:\n%s", examples);
}
