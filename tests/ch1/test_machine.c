/* What a reader's machine changes, and what a new machine meets: the banner names the BLAS
 * threads and honours OPENBLAS_NUM_THREADS; a first build without a C compiler says in one
 * line what to install (or installs it, which make fresh-check covers). */
#include <sys/stat.h>

#ifdef HAVE_BLAS
#include <cblas.h>
#endif

#include "helpers.h"

/* The banner's device line of a run of @p argv (--epochs 1 on a small set). */
static void device_line(char *const argv[], char *line, size_t cap)
{
    static Run r;
    run_program(argv, &r);
    cr_assert(r.status == 0, "%s failed: %s", argv[0], r.err);
    const char *d = strstr(r.out, "  device   ");
    cr_assert(d, "no device line in: %s", r.out);
    size_t n = strcspn(d, "\n");
    snprintf(line, cap, "%.*s", (int)(n < cap ? n : cap - 1), d);
}

Test(machine, the_banner_names_the_blas_threads_and_honours_openblas_num_threads,
     .timeout = 60)
{
#ifndef HAVE_BLAS
    cr_skip_test("built without OpenBLAS (NO_BLAS=1 or no cblas.h): no threads to set");
#else
    if (openblas_get_parallel() == 0)
        cr_skip_test("this OpenBLAS is the sequential one (libopenblas0-serial): one thread");
#endif
    int cores = cores_available();
    if (cores / 4 > 16)
        cr_skip_test("%d cores: a rank's share, %d threads, may pass this OpenBLAS's limit",
                     cores, cores / 4);
    /* Four ranks share the cores: each gets cores / 4 threads, at least one. */
    char line[512], want[64];
    device_line((char *[]){"/usr/bin/env", "-u", "OPENBLAS_NUM_THREADS", "./ring", "--n_gpus",
                           "4", "--device", "cpu", "--epochs", "1", "--train_size", "512",
                           NULL},
                line, sizeof line);
    int share = cores / 4 > 0 ? cores / 4 : 1;
    snprintf(want, sizeof want, "OpenBLAS sgemm, %d thread%s\n", share, share == 1 ? "" : "s");
    strcat(line, "\n");
    cr_expect(strstr(line, want), "%d cores, 4 ranks: expected '%.*s' in: %s", cores,
              (int)strlen(want) - 1, want, line);
    /* OPENBLAS_NUM_THREADS=2 wins over the share (OpenBLAS caps it at the cores). */
    device_line((char *[]){"/usr/bin/env", "OPENBLAS_NUM_THREADS=2", "./ring", "--n_gpus", "4",
                           "--device", "cpu", "--epochs", "1", "--train_size", "512", NULL},
                line, sizeof line);
    int asked = cores < 2 ? cores : 2;
    snprintf(want, sizeof want, "OpenBLAS sgemm, %d thread%s (OPENBLAS_NUM_THREADS)", asked,
             asked == 1 ? "" : "s");
    cr_expect(strstr(line, want), "%d cores, OPENBLAS_NUM_THREADS=2: expected '%s' in: %s",
              cores, want, line);
}

/* make chapter1 (and @p cc_arg, "CC=..." or NULL) with a PATH that holds only a stand-in for
 * id(1) saying @p uid, into @p r: no compiler and no sudo are found there, whatever this
 * machine has. make refuses before it writes anything: the checks are the Makefile's first
 * lines. */
static void make_without_a_compiler(const char *uid, char *cc_arg, Run *r)
{
    char dir[] = "/tmp/dps-nocc-XXXXXX", id[300], env[300];
    cr_assert(mkdtemp(dir), "mkdtemp failed");
    snprintf(id, sizeof id, "%s/id", dir);
    FILE *f = fopen(id, "w");
    cr_assert(f, "cannot write %s", id);
    fprintf(f, "#!/bin/sh\necho %s\n", uid);
    fclose(f);
    cr_assert(chmod(id, 0755) == 0);
    snprintf(env, sizeof env, "PATH=%s", dir);
    char *argv[] = {"/usr/bin/env", "-i", env, "/usr/bin/make", "--no-print-directory", "-s",
                    "chapter1", cc_arg, NULL};
    run_program(argv, r);
    unlink(id);
    rmdir(dir);
}

Test(machine, no_compiler_and_no_root_says_in_one_line_what_to_install, .timeout = 60)
{
    static Run r;
    make_without_a_compiler("1000", NULL, &r);
    cr_assert(r.status == 2 && count_lines(r.err) == 1 &&
                  strstr(r.err, "no C compiler (cc), and installing one needs root or sudo") &&
                  strstr(r.err, "apt-get install build-essential"),
              "make without a compiler, not root, no sudo: exit %d, stderr: %s", r.status,
              r.err);
    cr_assert(r.out[0] == '\0', "make printed on stdout: %s", r.out);
}

Test(machine, a_compiler_that_is_not_there_is_named, .timeout = 60)
{
    static Run r;
    make_without_a_compiler("0", "CC=dps-no-such-cc", &r);
    cr_assert(r.status == 2 && count_lines(r.err) == 1 &&
                  strstr(r.err, "CC=dps-no-such-cc: no such compiler here"),
              "make CC=dps-no-such-cc: exit %d, stderr: %s", r.status, r.err);
}
