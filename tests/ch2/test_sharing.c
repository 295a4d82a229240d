/* The run layer's word on ranks that share a GPU (chapter 2, after the prelude): the line for
 * the banner, and once on stderr, unless the run is quiet, what sharing costs while CUDA MPS
 * is not running and the command that starts it; nothing when each rank has its own device,
 * under mpirun, or with MPS running. The GPU is a table that says so (kind CUDA, one device):
 * nothing of it is called. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h" /* its Run is the run layer's, not helpers.h's: this file does without that */
#include "util.h"

/* Everything readable on @p fd, up to cap - 1 bytes, as a string. */
static void read_all(int fd, char *buf, size_t cap)
{
    size_t used = 0;
    ssize_t n;
    while (used + 1 < cap && (n = read(fd, buf + used, cap - 1 - used)) > 0)
        used += (size_t)n;
    buf[used] = '\0';
}

/* run_gpu_sharing(), with what it wrote on stderr in @p said. */
static bool sharing(const Rank *r, char *line, size_t len, char *said, size_t cap)
{
    int p[2];
    cr_assert(pipe(p) == 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(p[1], 2);
    close(p[1]);
    bool shares = run_gpu_sharing(r, line, len);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    read_all(p[0], said, cap);
    close(p[0]);
    return shares;
}

Test(sharing, the_banner_says_it_and_stderr_says_what_it_costs_without_mps)
{
    static Run run;
    Device gpu = {.kind = DEVICE_CUDA, .name = "cuda", .count = 1};
    Rank r = {.rank = 0, .size = 4, .dev = &gpu, .run = &run};
    char dir[64] = "/tmp/dps-mps-XXXXXX", line[64], said[1024], path[128];
    cr_assert(mkdtemp(dir), "mkdtemp failed");
    setenv("CUDA_MPS_PIPE_DIRECTORY", dir, 1);
    set_program_name("./train");

    cr_assert(sharing(&r, line, sizeof line, said, sizeof said), "4 ranks on 1 GPU share it");
    cr_assert_str_eq(line, "4 ranks share 1 GPU");
    cr_assert(strchr(said, '\n') == said + strlen(said) - 1 && strncmp(said, "train: 4 ranks share 1 GPU", 26) == 0 &&
                  strstr(said, "CUDA MPS is not running") && strstr(said, dir) &&
                  strstr(said, "nvidia-cuda-mps-control -d"),
              "stderr does not say once what sharing costs and how to start MPS: %s", said);

    run.o.quiet = true;
    cr_assert(sharing(&r, line, sizeof line, said, sizeof said) && said[0] == '\0',
              "a quiet run said: %s", said);
    run.o.quiet = false;

    snprintf(path, sizeof path, "%s/control", dir);
    cr_assert(mkfifo(path, 0600) == 0, "mkfifo: %s", strerror(errno));
    cr_assert(sharing(&r, line, sizeof line, said, sizeof said), "with MPS they still share");
    cr_assert(said[0] == '\0', "with MPS running, stderr said: %s", said);
    unlink(path);
    rmdir(dir);

    gpu.count = 4;
    cr_assert(!sharing(&r, line, sizeof line, said, sizeof said) && line[0] == '\0' &&
                  said[0] == '\0',
              "4 ranks on 4 GPUs: '%s', stderr '%s'", line, said);
    gpu.count = 1;
    run.mpi = true;
    cr_assert(!sharing(&r, line, sizeof line, said, sizeof said) && said[0] == '\0',
              "under mpirun the GPUs of other machines cannot be counted: '%s'", line);
}
