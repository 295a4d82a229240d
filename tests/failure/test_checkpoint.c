/* Appendix B: checkpoints. The CRC against the value every implementation agrees on, the
 * byte layout worked by hand, every corruption and truncation refused, a resumed run
 * bit-identical to the run that never stopped (./mlp, ./ring, ./ps), mismatches named, and a
 * failed write that leaves the last checkpoint as it was. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "checkpoint.h"
#include "helpers.h"

Test(failure_checkpoint, crc32_matches_the_standard_check_value)
{
    cr_assert(crc32_update(0, "123456789", 9) == 0xCBF43926u, "crc32 = %08x",
              crc32_update(0, "123456789", 9));
    cr_assert(crc32_update(0, "", 0) == 0);
    /* in two pieces, as a stream */
    cr_assert(crc32_update(crc32_update(0, "1234", 4), "56789", 5) == 0xCBF43926u);
}

/* A 2-1 model: 2 weights and a bias, 3 parameters. */
static Checkpoint tiny(float *params)
{
    Checkpoint ck = {.n_layers = 1, .width = {2, 1}, .epoch = 2, .epochs = 5, .seed = 7,
                     .global_batch = 4, .n_train = 10, .lr = 0.5f, .n_params = 3,
                     .params = params};
    rng_seed(&ck.rng, 7, 3);
    return ck;
}

static uint32_t le32(const unsigned char *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

Test(failure_checkpoint, the_layout_is_the_documented_one)
{
    float params[3] = {1.0f, -0.0f, 0.25f};
    Checkpoint ck = tiny(params);
    size_t n = checkpoint_bytes(3);
    cr_assert(n == 136 + 12 + 4, "%zu bytes", n);
    unsigned char buf[152];
    checkpoint_encode(&ck, buf);
    cr_assert(memcmp(buf, "DPSCKPT\n", 8) == 0);
    cr_assert(le32(buf + 8) == 1 && le32(buf + 12) == 1, "version, layers");
    cr_assert(le32(buf + 16) == 2 && le32(buf + 20) == 1 && le32(buf + 24) == 0, "widths");
    cr_assert(le32(buf + 56) == 2 && le32(buf + 60) == 5, "epoch, epochs");
    cr_assert(buf[64] == 7 && buf[72] == 4 && buf[80] == 10, "seed, batch, samples");
    cr_assert(le32(buf + 88) == 0x3f000000u, "lr 0.5 is 0x3f000000, got %08x", le32(buf + 88));
    cr_assert(buf[128] == 3, "parameter count");
    cr_assert(le32(buf + 136) == 0x3f800000u && le32(buf + 140) == 0x80000000u &&
              le32(buf + 144) == 0x3e800000u, "1, -0, 0.25 as float bits");
    cr_assert(le32(buf + 148) == crc32_update(0, buf, 148), "the CRC covers all before it");
    Checkpoint back;
    char err[ERR_LEN];
    cr_assert(checkpoint_parse(buf, n, "t", &back, err) == 0, "%s", err);
    cr_assert(back.n_layers == 1 && back.width[0] == 2 && back.width[1] == 1 && back.epoch == 2 &&
              back.epochs == 5 && back.seed == 7 && back.global_batch == 4 &&
              back.n_train == 10 && back.lr == 0.5f && back.n_params == 3);
    cr_assert(memcmp(back.rng.s, ck.rng.s, sizeof ck.rng.s) == 0, "generator state");
    cr_assert(memcmp(back.params, params, sizeof params) == 0, "parameters bit for bit");
    checkpoint_free(&back);
}

Test(failure_checkpoint, every_flipped_bit_and_every_truncation_is_refused)
{
    float params[3] = {1.0f, 2.0f, 3.0f};
    Checkpoint ck = tiny(params), back;
    unsigned char good[152], bad[152];
    char err[ERR_LEN];
    checkpoint_encode(&ck, good);
    for (size_t i = 0; i < sizeof good; i++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(bad, good, sizeof bad);
            bad[i] ^= (unsigned char)(1 << bit);
            err[0] = '\0';
            cr_assert(checkpoint_parse(bad, sizeof bad, "f.ckpt", &back, err) == -1,
                      "bit %d of byte %zu flipped, accepted", bit, i);
            cr_assert(strstr(err, "f.ckpt") && !strchr(err, '\n'), "message: %s", err);
            cr_assert(back.params == NULL);
        }
    for (size_t len = 0; len < sizeof good; len++) {
        cr_assert(checkpoint_parse(good, len, "f.ckpt", &back, err) == -1, "%zu bytes accepted",
                  len);
        cr_assert(len < 8 || strstr(err, "truncated"), "%zu bytes: %s", len, err);
    }
}

/* ---------------------------------------------------------------- the programs */

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/dps-ckpt-XXXXXX");
    cr_assert(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert(system(cmd) == 0);
}

static char *path(const char *name)
{
    static char buf[4][128];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, 128, "%s/%s", dir, name);
    return p;
}

/* The bytes of a file (at most 1 MiB), its length in *len. */
static unsigned char *slurp(const char *file, size_t *len)
{
    static unsigned char buf[2][1 << 20];
    static int next;
    unsigned char *b = buf[next++ % 2];
    FILE *f = fopen(file, "rb");
    cr_assert(f, "%s: %s", file, strerror(errno));
    *len = fread(b, 1, sizeof buf[0], f);
    fclose(f);
    return b;
}

/* Run @p prog (argv up to NULL, then --epochs E --checkpoint FILE [--resume] are added). */
static void train(char *const prog[], int epochs, const char *file, bool resume, Run *r)
{
    char *argv[32], e[16];
    int n = 0;
    while (prog[n])
        argv[n] = prog[n], n++;
    snprintf(e, sizeof e, "%d", epochs);
    argv[n++] = "--epochs";
    argv[n++] = e;
    argv[n++] = "--checkpoint";
    argv[n++] = (char *)file;
    argv[n++] = "--quiet";
    if (resume)
        argv[n++] = "--resume";
    argv[n] = NULL;
    run_program(argv, r);
    cr_assert(r->status == 0, "%s exited %d: %s", prog[0], r->status, r->err);
}

/* Stopped after @p k of 3 epochs and resumed: the same bytes as the run that never stopped. */
static void expect_bit_identical(char *const prog[], int k)
{
    make_dir();
    Run whole, part;
    train(prog, 3, path("whole.ckpt"), false, &whole);
    train(prog, k, path("part.ckpt"), false, &part);
    train(prog, 3, path("part.ckpt"), true, &part);
    size_t n1, n2;
    unsigned char *a = slurp(path("whole.ckpt"), &n1), *b = slurp(path("part.ckpt"), &n2);
    cr_assert(n1 == n2 && n1 > 1000, "%zu and %zu bytes", n1, n2);
    cr_assert(memcmp(a, b, n1) == 0, "%s stopped after epoch %d and resumed: weights differ from "
              "the run that never stopped", prog[0], k);
    cr_assert(strcmp(whole.out, part.out) == 0, "final lines differ:\n%s%s", whole.out, part.out);
    struct stat st;
    cr_assert(stat(path("part.ckpt.tmp"), &st) != 0, "a temporary file was left behind");
    remove_dir();
}

Test(failure_checkpoint, mlp_resumed_is_bit_identical, .timeout = 60)
{
    char *prog[] = {"./mlp", "--device", "cpu", "--train_size", "2000", NULL};
    expect_bit_identical(prog, 1);
    expect_bit_identical(prog, 2);
}

Test(failure_checkpoint, ring_resumed_is_bit_identical, .timeout = 60)
{
    char *prog[] = {"./ring", "--n_gpus", "3", "--device", "cpu", "--train_size", "2000",
                    "--batch_size", "16", NULL};
    expect_bit_identical(prog, 1);
}

Test(failure_checkpoint, parameter_server_resumed_is_bit_identical, .timeout = 60)
{
    char *prog[] = {"./ps", "--n_gpus", "3", "--device", "cpu", "--train_size", "2000",
                    "--batch_size", "16", NULL};
    expect_bit_identical(prog, 2);
}

/* Status 2, one line saying @p says, nothing on stdout (helpers.h). */
static void refused(char *const argv[], const char *says)
{
    expect_refused(argv, says, says);
}

Test(failure_checkpoint, a_wrong_or_damaged_checkpoint_is_refused, .timeout = 60)
{
    make_dir();
    Run r;
    char *base[] = {"./mlp", "--device", "cpu", "--train_size", "1000", NULL};
    train(base, 1, path("good.ckpt"), false, &r);
    char *good = path("good.ckpt");
#define RESUME(...) (char *[]){"./mlp", "--device", "cpu", "--checkpoint", good, "--resume", \
                               "--epochs", "3", __VA_ARGS__, NULL}
    refused(RESUME("--train_size", "1000", "--hidden", "64"),
                   "holds a 784-128-10 model, this run builds 784-64-10");
    refused(RESUME("--train_size", "1000", "--seed", "2"), "written with --seed 1");
    refused(RESUME("--train_size", "800"), "written for 1000 training samples");
    refused(RESUME("--train_size", "1000", "--batch_size", "32"),
                   "global batch of 64 samples, this run's is 32");
    refused(RESUME("--train_size", "1000", "--lr", "0.1"), "written with --lr 0.05");
    refused((char *[]){"./mlp", "--checkpoint", good, "--resume", "--epochs", "1",
                              "--train_size", "1000", NULL}, "nothing to resume");
    /* damaged copies */
    size_t n;
    unsigned char *bytes = slurp(good, &n);
    FILE *f = fopen(path("cut.ckpt"), "wb");
    fwrite(bytes, 1, n / 2, f);
    fclose(f);
    bytes[n / 2] ^= 0x10;
    f = fopen(path("flip.ckpt"), "wb");
    fwrite(bytes, 1, n, f);
    fclose(f);
    good = path("cut.ckpt");
    refused(RESUME("--train_size", "1000"), "is truncated");
    good = path("flip.ckpt");
    refused(RESUME("--train_size", "1000"), "is damaged: its CRC-32");
    good = path("none.ckpt");
    refused(RESUME("--train_size", "1000"), "cannot open");
    good = dir;
    refused(RESUME("--train_size", "1000"), "is a directory");
#undef RESUME
    refused((char *[]){"./mlp", "--resume", NULL}, "--resume needs --checkpoint");
    refused((char *[]){"./ring", "--checkpoint", "/nonexistent/x.ckpt", NULL},
                   "/nonexistent is not a directory");
    /* ./ckpt says the same */
    run_program((char *[]){"./ckpt", path("good.ckpt"), path("flip.ckpt"), NULL}, &r);
    cr_assert(r.status == 2 && strstr(r.out, "good: model 784-128-10") &&
              strstr(r.err, "is damaged") && count_lines(r.err) == 1, "ckpt: %d %s %s",
              r.status, r.out, r.err);
    remove_dir();
}

Test(failure_checkpoint, a_failed_write_keeps_the_last_checkpoint, .timeout = 60)
{
    make_dir();
    Run r;
    char *base[] = {"./mlp", "--device", "cpu", "--train_size", "1000", NULL};
    train(base, 1, path("c.ckpt"), false, &r);
    size_t n1 = 0, n2;
    static unsigned char before[1 << 20];
    unsigned char *first = slurp(path("c.ckpt"), &n1);
    memcpy(before, first, n1);
    /* files may grow to 100 blocks of 512 bytes: the 400 KiB checkpoint cannot be written */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ulimit -f 100; trap '' XFSZ; exec ./mlp --device cpu "
             "--train_size 1000 --epochs 2 --quiet --checkpoint %s", path("c.ckpt"));
    run_program((char *[]){"/bin/sh", "-c", cmd, NULL}, &r);
    cr_assert(r.status == 1, "exit %d, expected 1: %s", r.status, r.err);
    cr_assert(count_lines(r.err) == 1 && strstr(r.err, "checkpoint: cannot write") &&
              strstr(r.err, "File too large"), "stderr: %s", r.err);
    unsigned char *after = slurp(path("c.ckpt"), &n2);
    cr_assert(n1 == n2 && memcmp(before, after, n1) == 0, "the last checkpoint changed");
    struct stat st;
    cr_assert(stat(path("c.ckpt.tmp"), &st) != 0, "the temporary file was left behind");
    remove_dir();
}
