/* Chapter 1 and Appendix A: the command line. Bad values give one clear line on stderr and
 * exit status 2; good ones parse to what they say. */
#include <fcntl.h>

#include "helpers.h"
#include "options.h"

/* Parse one argument vector with ./mlp's options. */
static int parse(Options *o, char *err, const char *a1, const char *a2)
{
    char *argv[] = {"mlp", (char *)a1, (char *)a2, NULL};
    options_defaults(o);
    return options_parse(o, a2 ? 3 : a1 ? 2 : 1, argv, OPTS_TRAIN, err);
}

/* Each bad input and a phrase its message must contain. */
static const struct { const char *a1, *a2, *says; } bad[] = {
    {"--batch_size", "0", "--batch_size: expected an integer in [1, 1048576], got '0'"},
    {"--batch_size", "-5", "--batch_size: expected an integer in"},
    {"--batch_size", "abc", "--batch_size: expected an integer, got 'abc'"},
    {"--batch_size", "12abc", "got '12abc'"},
    {"--batch_size", "1e3", "expected an integer"},
    {"--batch_size", "99999999999999999999", "out of range"},
    {"--batch_size", "", "expected an integer, got ''"},
    {"--epochs", "0", "--epochs: expected an integer in [1, 1000000]"},
    {"--epochs", "3000000000", "--epochs"},
    {"--lr", "0", "--lr: expected a number in"},
    {"--lr", "-0.1", "--lr: expected a number in"},
    {"--lr", "nan", "--lr: 'nan' is out of range"},
    {"--lr", "inf", "--lr: 'inf' is out of range"},
    {"--lr", "1e999", "out of range"},
    {"--lr", "fast", "--lr: expected a number, got 'fast'"},
    {"--hidden", "128,", "--hidden: expected widths like 128 or 256,128"},
    {"--hidden", ",128", "--hidden"},
    {"--hidden", "128,,64", "--hidden"},
    {"--hidden", "-4", "--hidden: expected an integer in [1, 65536]"},
    {"--hidden", "1,2,3,4,5,6,7,8,9", "at most 8 hidden layers"},
    {"--seed", "-1", "--seed: expected a non-negative integer"},
    {"--seed", "18446744073709551616", "--seed: '18446744073709551616' is out of range"},
    {"--seed", "x", "--seed: expected a non-negative integer"},
    {"--device", "gpu", "--device: expected one of auto|cpu|cuda, got 'gpu'"},
    {"--device", "", "--device: expected one of"},
    {"--train_size", "0", "--train_size: expected an integer in"},
    {"--data", "", "--data: expected SRC, got an empty string"},
    {"--epochs", NULL, "--epochs needs a value"},
    {"--quiet=1", NULL, "--quiet takes no value"},
    {"--batch-size", "8", "unknown option '--batch-size': did you mean --batch_size?"},
    {"--n_gpus", "4", "unknown option '--n_gpus'"},
    {"epochs", "3", "unexpected argument 'epochs'"},
    {"--", NULL, "unexpected argument '--'"},
};

Test(ch1_cli, bad_values_are_refused_with_a_clear_message)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        Options o;
        char err[ERR_LEN] = "";
        int rc = parse(&o, err, bad[i].a1, bad[i].a2);
        cr_expect(rc == -1, "'%s %s' was accepted", bad[i].a1, bad[i].a2 ? bad[i].a2 : "");
        cr_expect(strstr(err, bad[i].says), "'%s %s': message '%s' does not say '%s'", bad[i].a1,
                  bad[i].a2 ? bad[i].a2 : "", err, bad[i].says);
        cr_expect(!strchr(err, '\n'), "message has a newline: %s", err);
    }
}

Test(ch1_cli, good_values_parse)
{
    Options o;
    char err[ERR_LEN];
    char *argv[] = {"mlp", "--batch_size=32", "--epochs", "7", "--lr", "0.25",
                    "--hidden", "256,128,64", "--seed", "18446744073709551615", "--device=cpu",
                    "--data", "some/dir", "--train_size", "1000", "--log", "x.csv", "--quiet",
                    NULL};
    options_defaults(&o);
    cr_assert(options_parse(&o, 18, argv, OPTS_TRAIN, err) == 0, "%s", err);
    cr_assert(o.batch_size == 32 && o.epochs == 7 && o.lr == 0.25f);
    cr_assert(o.n_hidden == 3 && o.hidden[0] == 256 && o.hidden[1] == 128 && o.hidden[2] == 64);
    cr_assert(o.seed == UINT64_MAX, "seed %llu", (unsigned long long)o.seed);
    cr_assert(strcmp(o.device, "cpu") == 0 && strcmp(o.data, "some/dir") == 0);
    cr_assert(o.train_size == 1000 && strcmp(o.log, "x.csv") == 0 && o.quiet && !o.help);
    cr_assert(parse(&o, err, "--hidden", "0") == 0 && o.n_hidden == 0, "--hidden 0: no hidden layer");
    cr_assert(parse(&o, err, "-h", NULL) == 0 && o.help);
    cr_assert(parse(&o, err, NULL, NULL) == 0 && o.batch_size == 64 && o.epochs == 5,
              "defaults changed: update the chapter and README");
}

/* The program itself: exit status 2, nothing on stdout, exactly one line on stderr that
 * starts with "mlp: " (expect_refused in helpers.h). */
static void expect_usage_error(const char *says, char *const argv[])
{
    expect_refused(argv, says, argv[1]);
}

Test(ch1_cli, the_program_exits_2_with_one_line)
{
    expect_usage_error("--epochs: expected an integer", (char *[]){"./mlp", "--epochs", "x", NULL});
    expect_usage_error("unknown option", (char *[]){"./mlp", "--bogus", NULL});
    expect_usage_error("not 'synthetic' and not a directory",
                       (char *[]){"./mlp", "--data", "/nonexistent", NULL});
    expect_usage_error("--log /nonexistent/dir/x.csv: cannot open",
                       (char *[]){"./mlp", "--log", "/nonexistent/dir/x.csv", NULL});
    expect_usage_error("--batch_size 100 is larger than the training set (50 samples)",
                       (char *[]){"./mlp", "--batch_size", "100", "--train_size", "50", NULL});
}

Test(ch1_cli, help_shows_options_and_examples)
{
    Run r;
    run_program((char *[]){"./mlp", "--help", NULL}, &r);
    cr_assert(r.status == 0, "--help exited %d", r.status);
    cr_assert(strstr(r.out, "--batch_size N") && strstr(r.out, "examples:") &&
              strstr(r.out, "./mlp --epochs 3"), "help text: %s", r.out);
    cr_assert(!strstr(r.out, "--n_gpus"), "./mlp's help offers --n_gpus");
}

Test(ch1_cli, a_short_run_logs_csv, .timeout = 60)
{
    char log[] = "/tmp/dps-log-XXXXXX";
    int fd = mkstemp(log);
    cr_assert(fd >= 0);
    close(fd);
    Run r;
    run_program((char *[]){"./mlp", "--epochs", "2", "--train_size", "1000", "--device", "cpu",
                           "--log", log, NULL}, &r);
    cr_assert(r.status == 0, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.out, "device   cpu (as asked)") && strstr(r.out, "epoch 2/2") &&
              strstr(r.out, "time: data"), "output: %s", r.out);
    FILE *f = fopen(log, "r");
    char line[512];
    cr_assert(fgets(line, sizeof line, f) &&
              strcmp(line, "epoch,loss,train_acc,test_acc,seconds,samples_per_s,step_ms,state_bytes,"
                           "grad_absmax,grad_zero,half_lost,half_subnormal,half_lost_s16,"
                           "half_subnormal_s16\n") == 0,
              "header: %s", line);
    int rows = 0, epoch;
    double loss, tr, te, s, sps, ms;
    while (fgets(line, sizeof line, f)) {
        cr_assert(sscanf(line, "%d,%lf,%lf,%lf,%lf,%lf,%lf", &epoch, &loss, &tr, &te, &s, &sps,
                         &ms) == 7, "row: %s", line);
        /* the measured columns (seconds, samples/s, ms/step) must parse; their values are
         * the machine's business, not the test's */
        cr_assert(epoch == ++rows && loss > 0 && te >= 0 && te <= 1, "row: %s", line);
        /* chapter 10's census of the last gradient: six numbers, fractions in [0, 1] that
         * do not overlap (0 already, lost, subnormal) */
        const char *c = line;
        for (int k = 0; k < 8; k++)
            c = strchr(c, ',') + 1;
        double mx, zero, lost, sub, lost16, sub16;
        cr_assert(sscanf(c, "%lf,%lf,%lf,%lf,%lf,%lf", &mx, &zero, &lost, &sub, &lost16,
                         &sub16) == 6, "census: %s", line);
        cr_assert(mx > 0 && zero >= 0 && lost >= 0 && sub >= 0 && zero + lost + sub <= 1 &&
                  lost16 <= lost && sub16 <= lost + sub, "census: %s", line);
    }
    cr_assert(rows == 2, "%d rows, expected 2", rows);
    fclose(f);
    unlink(log);
}

/* With no GPU visible (CUDA_VISIBLE_DEVICES empty hides those a machine has), --device cuda
 * is an error at run time, in one line. */
Test(ch1_cli, device_cuda_without_a_gpu_is_a_runtime_error)
{
    Run r;
    run_program((char *[]){"/usr/bin/env", "CUDA_VISIBLE_DEVICES=", "./mlp", "--device", "cuda",
                           "--train_size", "100", NULL}, &r);
    cr_assert(r.status == 1, "exit %d, expected 1: %s", r.status, r.err);
    cr_assert(count_lines(r.err) == 1 && strstr(r.err, "--device cuda: "), "stderr: %s", r.err);
}

/* A run refused after its log was opened (here: bad data) leaves an existing log as it was and
 * removes a log it created; a log that is not a regular file is written to, header first. */
Test(ch1_cli, a_refused_run_leaves_the_log_as_it_was, .timeout = 60)
{
    char dir[] = "/tmp/dps-log-XXXXXX", kept[64], made[64];
    cr_assert(mkdtemp(dir));
    snprintf(kept, sizeof kept, "%s/kept.csv", dir);
    snprintf(made, sizeof made, "%s/made.csv", dir);
    FILE *f = fopen(kept, "w");
    cr_assert(f);
    fputs("an earlier run's log\n", f);
    fclose(f);
    Run r;
    run_program((char *[]){"./mlp", "--data", dir, "--log", kept, NULL}, &r);
    cr_assert(r.status == 2, "exit %d: %s", r.status, r.err);
    char back[64] = "";
    f = fopen(kept, "r");
    cr_assert(f && fgets(back, sizeof back, f), "the existing log is gone");
    fclose(f);
    cr_assert(strcmp(back, "an earlier run's log\n") == 0, "the existing log now holds '%s'",
              back);
    run_program((char *[]){"./mlp", "--data", dir, "--log", made, NULL}, &r);
    cr_assert(r.status == 2, "exit %d: %s", r.status, r.err);
    cr_assert(access(made, F_OK) != 0, "a refused run left the log it created");
    run_program((char *[]){"./mlp", "--epochs", "1", "--train_size", "256", "--quiet",
                           "--device", "cpu", "--log", "/dev/stdout", NULL}, &r);
    cr_assert(r.status == 0, "--log /dev/stdout: exit %d: %s", r.status, r.err);
    cr_assert(strncmp(r.out, "epoch,loss,", 11) == 0, "no CSV header first: %s", r.out);
    unlink(kept);
    rmdir(dir);
}

/* make help lists every target and every opt-out, NO_MPI=1 among them. */
Test(ch1_cli, make_help_names_every_opt_out)
{
    static Run r;
    run_program((char *[]){"/usr/bin/env", "make", "--no-print-directory", "help", NULL}, &r);
    cr_assert(r.status == 0, "make help: exit %d: %s", r.status, r.err);
    const char *want[] = {"NO_CUDA=1", "NO_BLAS=1", "NO_MPI=1", "make deps", "deps-test",
                          "make test", "make book", "make soak", "DEVICE=cpu|cuda|twin"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect(strstr(r.out, want[i]), "make help does not say '%s': %s", want[i], r.out);
}

/* Every --help names the choices of each enumerated option as the parser knows them: the list
 * a bad value is refused with ("expected one of a|b|c") appears in the help, whole. */
Test(ch1_cli, help_lists_the_choices_the_parser_accepts)
{
    struct {
        char *prog, *flag;
    } cases[] = {{"./train", "--strategy"},   {"./train", "--transport"},
                 {"./train", "--device"},     {"./train", "--optimizer"},
                 {"./collectives", "--op"},   {"./collectives", "--transport"},
                 {"./mlp", "--device"},       {"./ring", "--transport"}};
    static Run help, bad;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_program((char *[]){cases[i].prog, "--help", NULL}, &help);
        run_program((char *[]){cases[i].prog, cases[i].flag, "nope", NULL}, &bad);
        const char *list = strstr(bad.err, "expected one of ");
        cr_assert(bad.status == 2 && list, "%s %s nope: %s", cases[i].prog, cases[i].flag,
                  bad.err);
        char want[512];
        sscanf(list + 16, "%511[^,]", want);
        /* the help's text with the wrapping undone: spaces and newlines after a bar dropped */
        char flat[65536];
        size_t k = 0;
        for (const char *p = help.out; *p && k + 1 < sizeof flat; p++) {
            if ((*p == ' ' || *p == '\n') && k > 0 && flat[k - 1] == '|')
                continue;
            flat[k++] = *p;
        }
        flat[k] = '\0';
        cr_expect(strstr(flat, want), "%s --help does not list %s's choices %s", cases[i].prog,
                  cases[i].flag, want);
    }
}
