/* Appendix B: bad input. Every flag of every program, with a missing, non-numeric, negative,
 * zero, huge or overflowing value; rank counts beyond the limit; a batch larger than the data;
 * unreadable and malformed files for --data, --log and --checkpoint. Each must end the
 * program with exit status 2, exactly one line on stderr naming the flag or the file, and
 * nothing on stdout: never a crash, a hang or a stack of messages. The table is checked
 * against each program's --help, so a new flag without bad cases fails this test. */
#include <stdint.h>
#include <sys/stat.h>

#include "helpers.h"

/* The values each flag must refuse. NULL ends a list; "" is an empty value; MISSING puts the
 * flag last, with no value at all. */
#define MISSING "\x01missing"
#define INTEGER MISSING, "", "abc", "12abc", "1.5", "-1", "99999999999999999999"
static const struct {
    const char *flag;
    const char *bad[12];
} table[] = {
    {"--batch_size", {INTEGER, "0", "2000000", NULL}},
    {"--epochs", {INTEGER, "0", "2000000", NULL}},
    {"--lr", {MISSING, "", "abc", "-1", "0", "1e30", "1e999", "nan", "inf", NULL}},
    {"--optimizer", {MISSING, "", "adam", "SGD", NULL}},
    {"--momentum", {MISSING, "", "abc", "-0.1", "1", "nan", NULL}},
    {"--weight_decay", {MISSING, "", "abc", "-1", "2", "inf", NULL}},
    {"--accum", {INTEGER, "0", "5000", NULL}},
    {"--hidden", {INTEGER, "100000", "128,", "1,2,3,4,5,6,7,8,9", "0,5", NULL}},
    {"--seed", {MISSING, "", "abc", "-1", "18446744073709551616", NULL}},
    {"--device", {MISSING, "", "gpu", NULL}},
    {"--data", {MISSING, "", NULL}},
    {"--train_size", {INTEGER, "0", "200000000", NULL}},
    {"--log", {MISSING, "", NULL}},
    {"--trace", {MISSING, "", NULL}},
    {"--checkpoint", {MISSING, "", NULL}},
    {"--quiet", {"=1", NULL}},
    {"--resume", {"=yes", NULL}},
    {"--n_gpus", {INTEGER, "0", "65", "1000000", NULL}},
    {"--timeout", {MISSING, "abc", "-1", "0", "1e9", "1e999", NULL}},
    {"--minbytes", {MISSING, "", "abc", "-1", "5X", "5G", "99999999999999999999K", NULL}},
    {"--maxbytes", {MISSING, "", "abc", "-1", "5X", "5G", "99999999999999999999", NULL}},
    {"--stepfactor", {INTEGER, "0", "1", "2000", NULL}},
    {"--iters", {INTEGER, "0", "2000000", NULL}},
    {"--warmup_iters", {INTEGER, "2000000", NULL}},
    {"--check", {INTEGER, "2", NULL}},
    {"--op", {MISSING, "", "all_reduce2", NULL}},
    {"--transport", {MISSING, "", "tcp", NULL}},
    {"--strategy", {MISSING, "", "horovod", NULL}},
    {"--csv", {MISSING, "", NULL}},
    {"--bucket_mb", {MISSING, "abc", "-1", "0", "1e9", "1e999", NULL}},
    {"--ranks_per_host", {INTEGER, "0", "65", NULL}},
    {"--hosts", {INTEGER, "0", "2000000", NULL}},
    {"--params", {MISSING, "abc", "0", "1e99", NULL}},
    {"--tokens", {INTEGER, "0", "2000000000", NULL}},
    {"--machine", {MISSING, "", "tpu", NULL}},
    {"--from", {MISSING, "", NULL}},
    {"--grad_dtype", {MISSING, "", "fp8", "FP16", NULL}},
    {"--compress", {MISSING, "", "zip", "powersgd", "powersgd:0", "powersgd:65", "topk:0",
                    "topk:1.5", "topk:abc", NULL}},
    {"--loss_scale", {MISSING, "abc", "0", "0.5", "inf", "1e99", NULL}},
    {"--scale_window", {INTEGER, "0", "2000000000", NULL}},
    {"--tp", {INTEGER, "0", "65", NULL}},
};
#define N_FLAGS (sizeof table / sizeof table[0])

static const char *programs[] = {"./mlp",   "./pingpong",        "./ps",   "./collectives",
                                 "./ring",  "./train", "./allreduce_bench", "./scale"};

/* The flags a program's --help lists (one per line of its options section), as "--name". */
static int flags_of(const char *program, char flags[][32])
{
    Run r;
    run_program((char *[]){(char *)program, "--help", NULL}, &r);
    cr_assert(r.status == 0, "%s --help: exit %d", program, r.status);
    const char *line = strstr(r.out, "options:\n");
    cr_assert(line, "%s --help has no options section", program);
    int n = 0;
    for (line = strchr(line, '\n') + 1; *line && *line != '\n'; line = strchr(line, '\n') + 1) {
        const char *dash = strstr(line, "--");
        size_t len = dash ? strspn(dash + 2, "abcdefghijklmnopqrstuvwxyz_") : 0;
        if (len && strncmp(dash, "--help", 6) != 0)
            snprintf(flags[n++], 32, "--%.*s", (int)len, dash + 2);
    }
    return n;
}

/* Every value is tried on the first program that takes the flag; the others share its parser
 * and get the first three values (each run costs ~60 ms of loading CUDA, NCCL and MPI). */
Test(failure_bad_input, every_flag_of_every_program_refuses_bad_values, .timeout = 240)
{
    int runs = 0;
    bool tried[N_FLAGS] = {false};
    for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++) {
        char flags[64][32];
        int n = flags_of(programs[p], flags);
        cr_assert(n >= 5, "%s --help lists %d flags", programs[p], n);
        for (int f = 0; f < n; f++) {
            size_t t = 0;
            while (t < N_FLAGS && strcmp(table[t].flag, flags[f]) != 0)
                t++;
            cr_assert(t < N_FLAGS, "%s takes %s, which has no bad values in this table: add "
                      "them", programs[p], flags[f]);
            for (int v = 0; table[t].bad[v] && (!tried[t] || v < 3); v++) {
                const char *bad = table[t].bad[v];
                char joined[2200], what[4400];
                char *argv[4] = {(char *)programs[p], flags[f], NULL, NULL};
                if (bad[0] == '=') { /* a value glued to a flag that takes none */
                    snprintf(joined, sizeof joined, "%s%s", flags[f], bad);
                    argv[1] = joined;
                } else if (strcmp(bad, MISSING) != 0) {
                    argv[2] = (char *)bad;
                }
                snprintf(what, sizeof what, "%s '%s'", argv[1], argv[2] ? argv[2] : "");
                expect_refused(argv, flags[f], what);
                runs++;
            }
            tried[t] = true;
        }
    }
    cr_log_info("%d bad command lines refused", runs);
}

/* ---------------------------------------------------------------- files and sizes */

static char dir[64];

static char *path(const char *name)
{
    static char buf[8][160];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 160, "%s/%s", dir, name);
    return p;
}

static void put_be32(FILE *f, uint32_t v)
{
    unsigned char b[4] = {v >> 24, v >> 16, v >> 8, v};
    fwrite(b, 1, 4, f);
}

/* An IDX image file of n images of 4x4 (bytes: how many pixel bytes to write), and a label
 * file of m labels all equal to label. */
static void write_set(const char *sub, const char *split, uint32_t img_magic, uint32_t n,
                      size_t bytes, uint32_t m, int label)
{
    char p[200];
    snprintf(p, sizeof p, "%s/%s", dir, sub);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/%s/%s-images-idx3-ubyte", dir, sub, split);
    FILE *f = fopen(p, "wb");
    cr_assert(f);
    put_be32(f, img_magic);
    put_be32(f, n);
    put_be32(f, 4);
    put_be32(f, 4);
    for (size_t i = 0; i < bytes; i++)
        fputc((int)(i * 37 % 256), f);
    fclose(f);
    snprintf(p, sizeof p, "%s/%s/%s-labels-idx1-ubyte", dir, sub, split);
    f = fopen(p, "wb");
    put_be32(f, 0x801);
    put_be32(f, m);
    for (uint32_t i = 0; i < m; i++)
        fputc(label, f);
    fclose(f);
}

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(path(name), "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

/* The training programs with the arguments that make them train. */
static const struct { const char *argv[8]; } trainers[] = {
    {{"./mlp", NULL}},
    {{"./ring", "--n_gpus", "2", NULL}},
    {{"./ps", "--n_gpus", "3", NULL}},
    {{"./train", "--strategy", "ring_bucketed", "--n_gpus", "2", NULL}},
};

/* Run every trainer with its arguments and @p extra (up to NULL): refused, saying @p says. */
static void refused_by_all(const char *says, const char *extra[])
{
    for (size_t t = 0; t < sizeof trainers / sizeof trainers[0]; t++) {
        char *argv[24];
        int n = 0;
        for (int i = 0; trainers[t].argv[i]; i++)
            argv[n++] = (char *)trainers[t].argv[i];
        for (int i = 0; extra[i]; i++)
            argv[n++] = (char *)extra[i];
        argv[n] = NULL;
        expect_refused(argv, says, extra[1] ? extra[1] : extra[0]);
    }
}
#define REFUSED(says, ...) refused_by_all(says, (const char *[]){__VA_ARGS__, NULL})

Test(failure_bad_input, unreadable_and_malformed_files_are_refused, .timeout = 120)
{
    strcpy(dir, "/tmp/dps-bad-XXXXXX");
    cr_assert(mkdtemp(dir));
    /* --data: not there, not a directory, files missing, wrong, cut short, inconsistent */
    REFUSED("not 'synthetic' and not a directory", "--data", path("nothing"));
    write_file("plain", "not a directory\n");
    REFUSED("not 'synthetic' and not a directory", "--data", path("plain"));
    mkdir(path("empty"), 0755);
    REFUSED("train-images-idx3-ubyte: cannot open", "--data", path("empty"));
    write_set("swapped", "train", 0x801, 8, 128, 8, 1);
    REFUSED("bad magic number 0x00000801", "--data", path("swapped"));
    write_set("cut", "train", 0x803, 8, 100, 8, 1);
    REFUSED("truncated", "--data", path("cut"));
    write_set("label", "train", 0x803, 8, 128, 8, 12);
    REFUSED("label 12 at index 0 is not in 0..9", "--data", path("label"));
    write_set("count", "train", 0x803, 8, 128, 7, 1);
    REFUSED("7 labels, but the image file has 8 images", "--data", path("count"));
    write_set("huge", "train", 0x803, 0xffffffffu, 128, 8, 1);
    REFUSED("truncated", "--data", path("huge"));
    mkdir(path("dirs"), 0755);
    mkdir(path("dirs/train-images-idx3-ubyte"), 0755);
    REFUSED("not a regular file", "--data", path("dirs"));
    /* --log: a directory, a directory that is not there */
    REFUSED("--log", "--log", dir);
    REFUSED("cannot open", "--log", path("no/such/dir/log.csv"));
    /* --trace: likewise */
    REFUSED("--trace", "--trace", dir);
    REFUSED("cannot create the file", "--trace", path("no/such/dir/trace.json"));
    /* --checkpoint: a directory, nowhere to write, and with --resume: not a checkpoint */
    REFUSED("is a directory", "--checkpoint", dir);
    REFUSED("is not a directory", "--checkpoint", path("no/such/dir/x.ckpt"));
    REFUSED("cannot open", "--checkpoint", path("absent.ckpt"), "--resume");
    write_file("text.ckpt", "epoch 3\n");
    REFUSED("not a checkpoint of this book", "--checkpoint", path("text.ckpt"), "--resume");
    write_file("short.ckpt", "DPSCKPT\n\x01");
    REFUSED("is truncated", "--checkpoint", path("short.ckpt"), "--resume");
    write_file("empty.ckpt", "");
    REFUSED("not a checkpoint", "--checkpoint", path("empty.ckpt"), "--resume");
    REFUSED("--resume needs --checkpoint", "--resume");
    /* a batch larger than the data, alone and over ranks */
    REFUSED("larger than the training set (50 samples)", "--batch_size", "100", "--train_size",
            "50");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert(system(cmd) == 0);
}

Test(failure_bad_input, rank_counts_and_sizes_that_cannot_run)
{
    expect_refused((char *[]){"./ring", "--n_gpus", "65", NULL}, "--n_gpus", "65 ranks");
    expect_refused((char *[]){"./ps", "--n_gpus", "1", NULL}, "at least one worker", "1 rank");
    expect_refused((char *[]){"./ring", "--n_gpus", "4", "--batch_size", "16", "--train_size",
                              "60", NULL},
                   "a global batch of 64 samples (--batch_size 16 x 4 ranks)", "4 x 16 > 60");
    expect_refused((char *[]){"./collectives", "-b", "1M", "-e", "1K", NULL}, "-b",
                   "min above max");
    expect_refused((char *[]){"./train", "--strategy", "single", "--n_gpus", "2", NULL},
                   "--strategy single", "two ranks for one device");
}
