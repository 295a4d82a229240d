/* The README's sample outputs are what the programs print (scripts/readme_samples.sh
 * --check): the same lines with their numbers masked, the losses within 1% and the
 * accuracies within one percentage point of the README's, never the last digits, which
 * belong to the machine (chapter 1). The check fails, naming the sample, when a sample is
 * edited beyond those tolerances, and --write writes nothing when a program fails. */
#include "helpers.h"

/* Run scripts/readme_samples.sh MODE on README=@p readme (NULL: README.md) into @p r. */
static void samples(const char *mode, const char *readme, Run *r)
{
    char env[300];
    snprintf(env, sizeof env, "README=%s", readme ? readme : "README.md");
    run_program((char *[]){"/usr/bin/env", env, "/bin/bash", "scripts/readme_samples.sh",
                           (char *)mode, NULL}, r);
}

/* A copy of README.md in @p copy (a mkstemp template) that holds only the sample of
 * @p program (its command up to the first option, "./mlp --epochs 3"), so that a check runs
 * that one, through the shell filter @p filter (a command line reading stdin). */
static void readme_copy(char *copy, const char *program, const char *filter)
{
    int fd = mkstemp(copy);
    cr_assert(fd >= 0, "mkstemp failed");
    close(fd);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "perl -ne 'print if m{^<!-- sample: \\Q%s\\E} .. m{^<!-- end}' "
             "README.md | %s > %s", program, filter, copy);
    cr_assert(system(cmd) == 0, "%s failed", cmd);
}

Test(readme, the_samples_are_what_the_programs_print, .timeout = 120)
{
    static Run r;
    samples("--check", NULL, &r);
    cr_assert(r.status == 0, "README.md's samples are stale (scripts/readme_samples.sh --write "
              "writes them again): %s%s", r.out, r.err);
}

/* The second epoch's loss of ./mlp's sample set to what this machine prints, times @p factor,
 * into a copy of README.md. */
static void mlp_loss_times(char *copy, double factor)
{
    static Run r;
    run_program((char *[]){"./mlp", "--epochs", "3", "--device", "cpu", NULL}, &r);
    cr_assert(r.status == 0, "./mlp failed: %s", r.err);
    const char *at = strstr(r.out, "epoch 2/3  loss ");
    cr_assert(at, "no second epoch in ./mlp's output: %s", r.out);
    double loss = atof(at + strlen("epoch 2/3  loss "));
    char filter[300];
    snprintf(filter, sizeof filter,
             "perl -pe 's/^(epoch 2\\/3  loss )[0-9.]+/${1}%.4f/ if /sample: .\\/mlp --epochs 3 "
             "/ .. /^<!-- end/'",
             loss * factor);
    readme_copy(copy, "./mlp --epochs 3 ", filter);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "grep -q '^epoch 2/3  loss %.4f' %s", loss * factor, copy);
    cr_assert(system(cmd) == 0, "the edit did not take: is ./mlp's sample in README.md?");
}

Test(readme, a_loss_beyond_the_tolerance_fails_the_check, .timeout = 120)
{
    char copy[] = "/tmp/dps-readme-XXXXXX";
    mlp_loss_times(copy, 1.02); /* 2% off: beyond the 1% allowed */
    static Run r;
    samples("--check", copy, &r);
    unlink(copy);
    cr_assert(r.status == 1 && strstr(r.err, "the sample of './mlp --epochs 3' is not what it "
                                      "prints now") && strstr(r.err, "epoch 2/3: loss"),
              "a loss 2%% off went unnoticed: exit %d: %s%s", r.status, r.out, r.err);
}

Test(readme, a_loss_within_the_tolerance_passes, .timeout = 120)
{
    char copy[] = "/tmp/dps-readme-XXXXXX";
    mlp_loss_times(copy, 0.996); /* 0.4% off: what another CPU may print */
    static Run r;
    samples("--check", copy, &r);
    unlink(copy);
    cr_assert(r.status == 0, "a loss 0.4%% off (within the 1%% allowed) failed the check: exit "
              "%d: %s%s", r.status, r.out, r.err);
}

Test(readme, an_accuracy_beyond_the_tolerance_fails_the_check, .timeout = 120)
{
    char copy[] = "/tmp/dps-readme-XXXXXX";
    /* every test_acc of the ring's sample two points higher than the README says */
    readme_copy(copy, "./ring --n_gpus 4 ", "perl -pe 's/(test_acc +)([0-9.]+)/$1 . sprintf(\"%.2f\", $2 + 2)/e "
                      "if (/sample: .\\/ring/ .. /^<!-- end/) && /^epoch/'");
    static Run r;
    samples("--check", copy, &r);
    unlink(copy);
    cr_assert(r.status == 1 && strstr(r.err, "'./ring --n_gpus 4 --epochs 3'") &&
                  strstr(r.err, "test_acc"),
              "a test accuracy 2 points off went unnoticed: exit %d: %s%s", r.status, r.out,
              r.err);
}

Test(readme, a_line_of_another_form_fails_the_check, .timeout = 120)
{
    char copy[] = "/tmp/dps-readme-XXXXXX";
    readme_copy(copy, "./mlp --epochs 3 ", "sed 's/^\\(  training 3 epochs, batch 64\\), sgd/\\1, adamw/'");
    static Run r;
    samples("--check", copy, &r);
    unlink(copy);
    cr_assert(r.status == 1 && strstr(r.err, "adamw"),
              "a banner line edited by hand went unnoticed: exit %d: %s%s", r.status, r.out,
              r.err);
}

Test(readme, write_refuses_when_a_program_fails, .timeout = 120)
{
    char copy[] = "/tmp/dps-readme-XXXXXX";
    readme_copy(copy, "./mlp --epochs 3 ", "sed 's/^<!-- sample: .\\/mlp --epochs 3 -->$/<!-- sample: .\\/mlp "
                      "--epochs 3 --no_such_option -->/'");
    char before[300];
    snprintf(before, sizeof before, "%s.before", copy);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "cp %s %s", copy, before);
    cr_assert(system(cmd) == 0);
    static Run r;
    samples("--write", copy, &r);
    snprintf(cmd, sizeof cmd, "cmp -s %s %s", copy, before);
    int same = system(cmd) == 0;
    unlink(copy);
    unlink(before);
    cr_assert(r.status == 1 && strstr(r.err, "--no_such_option' failed") &&
                  strstr(r.err, "nothing written"),
              "--write did not refuse a failing sample: exit %d: %s%s", r.status, r.out, r.err);
    cr_assert(same, "--write changed the README although a sample failed");
}
