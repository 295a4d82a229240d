/* The README's sample outputs are what the programs print (scripts/readme_samples.sh
 * --check: timings and the device line aside), and the check fails, naming the sample, when a
 * sample is edited by hand. */
#include "helpers.h"

Test(readme, the_samples_are_what_the_programs_print, .timeout = 120)
{
    static Run r;
    run_program((char *[]){"/bin/bash", "scripts/readme_samples.sh", "--check", NULL}, &r);
    cr_assert(r.status == 0, "README.md's samples are stale (scripts/readme_samples.sh --write "
              "writes them again): %s%s", r.out, r.err);
}

Test(readme, a_sample_edited_by_hand_fails_the_check, .timeout = 120)
{
    char copy[] = "/tmp/dps-readme-XXXXXX", cmd[256];
    int fd = mkstemp(copy);
    cr_assert(fd >= 0, "mkstemp failed");
    close(fd);
    /* the second epoch's loss of ./mlp's sample, one digit off */
    snprintf(cmd, sizeof cmd, "sed 's/^\\(epoch 2\\/3  loss 0\\.\\)8499/\\18498/' README.md > %s",
             copy);
    cr_assert(system(cmd) == 0, "%s failed", cmd);
    snprintf(cmd, sizeof cmd, "grep -q '^epoch 2/3  loss 0.8498' %s", copy);
    cr_assert(system(cmd) == 0, "the edit did not take: is ./mlp's sample in README.md?");
    static Run r;
    char env[300];
    snprintf(env, sizeof env, "README=%s", copy);
    run_program((char *[]){"/usr/bin/env", env, "/bin/bash", "scripts/readme_samples.sh",
                           "--check", NULL}, &r);
    unlink(copy);
    cr_assert(r.status == 1 && strstr(r.err, "the sample of './mlp --epochs 3' is not what it "
                                      "prints now") && strstr(r.err, "loss 0.8498"),
              "an edited sample went unnoticed: exit %d: %s%s", r.status, r.out, r.err);
}
