/* Chapter 1, "Opening once, closing once, and the rule of fork" and "Ranks that share a GPU":
 * every open of a device has its close, and the last close reports the buffers never
 * released; a backend is opened once per process and closed by its last close (the tests'
 * CPU twin of CUDA stands in for it); the programs close what they open, for every shape of
 * run; the sharing line and the test for CUDA MPS. */
#include <pthread.h>
#include <sys/stat.h>

#include "data.h"
#include "helpers.h"
#include "train.h"

Test(device_close, every_open_has_its_close)
{
    char note[ERR_LEN], err[ERR_LEN];
    int before = device_open_count();
    const Device *a = device_open("cpu", 0, note, err), *b = device_open("cpu", 1, note, err);
    cr_assert(a && a == b, "the CPU device is one table");
    cr_assert(device_open_count() == before + 2, "%d opens counted, expected %d",
              device_open_count(), before + 2);
    cr_assert(device_close(a, err) == 0 && device_close(b, err) == 0, "%s", err);
    cr_assert(device_open_count() == before);
    cr_assert(device_close(a, err) == -1 && strstr(err, "cpu is not open"),
              "a close without its open was not reported: %s", err);
}

Test(device_close, the_last_close_reports_buffers_never_released)
{
    char note[ERR_LEN], err[ERR_LEN];
    const Device *d = device_open("cpu", 0, note, err);
    void *kept = d->alloc(100), *given_back = d->alloc(0);
    d->release(given_back);
    const Device *again = device_open("cpu", 0, note, err);
    cr_assert(device_close(again, err) == 0, "a close that is not the last checked: %s", err);
    cr_assert(device_close(d, err) == -1, "a buffer never released went unnoticed");
    cr_assert(strstr(err, "1 buffer(s) from alloc() never released"), "%s", err);
    d->release(kept);
    d = device_open("cpu", 0, note, err);
    cr_assert(device_close(d, err) == 0, "every buffer released, yet: %s", err);
}

Test(device_close, a_backend_is_opened_once_and_released_by_its_last_close)
{
    char why[ERR_LEN], err[ERR_LEN];
    const Device *a = device_backend_open(TWIN_BACKEND, TWIN_ENTRY, TWIN_WHAT, 0, why);
    cr_assert(a, "%s (build it: make %s)", why, TWIN_BACKEND);
    const Device *b = device_backend_open(TWIN_BACKEND, TWIN_ENTRY, TWIN_WHAT, 0, why);
    cr_assert(b == a, "a second open made a second device");
    int (*closes)(void);
    *(void **)&closes = backend_entry(TWIN_BACKEND, "dps_twin_closes", why);
    cr_assert(closes, "%s", why);
    cr_assert(device_close(b, err) == 0 && closes() == 0, "the first of two closes released it");
    cr_assert(device_close(a, err) == 0 && closes() == 1, "the last close did not release it");
    cr_assert(device_open_count() == 0);
    const Device *c = device_backend_open(TWIN_BACKEND, TWIN_ENTRY, TWIN_WHAT, 0, why);
    cr_assert(c && device_close(c, err) == 0 && closes() == 2, "reopened, it was not closed");
}

/* The training loop on a device with pinned memory and a queued upload (the twin has
 * CUDA's, checked): the permutation comes from host_alloc() and goes back by host_release()
 * (the close fails on one never freed), and no step changes the upload's source before its
 * sync (the twin stops the process). */
Test(device_close, the_loop_frees_its_pinned_memory_and_waits_for_its_upload)
{
    char why[ERR_LEN], err[ERR_LEN];
    const Device *d = device_backend_open(TWIN_BACKEND, TWIN_ENTRY, TWIN_WHAT, 0, why);
    cr_assert(d, "%s (build it: make %s)", why, TWIN_BACKEND);
    cr_assert(d->host_alloc && d->upload_async, "the twin lost its pinned upload");
    Dataset tr, te;
    cr_assert(data_load("synthetic", 640, 1, &tr, &te, err) == 0, "%s", err);
    Model m;
    int hidden[] = {16};
    cr_assert(model_init(&m, d, tr.features, hidden, 1, tr.classes, 64, 1, err) == 0, "%s",
              err);
    TrainConfig cfg = {.batch_size = 64, .epochs = 2, .lr = 0.05f, .seed = 1, .quiet = true};
    TrainResult res;
    cr_assert(train_run(&cfg, &m, &tr, &te, NULL, &res, err) == 0, "%s", err);
    model_free(&m);
    data_free(&tr);
    data_free(&te);
    cr_assert(device_close(d, err) == 0, "%s", err);
}

/* A process that holds a GPU (the tests' twin of CUDA, opened as CUDA is) counts the GPUs from
 * its own table and forks nothing: a child would inherit its record of what is open, take the
 * parent's table for a fresh open, and close a context that fork() does not carry (a first
 * version did). Forks are counted in the parent by an atfork handler. */
static int forks;
static void count_fork(void) { forks++; }

Test(device_close, gpu_count_in_a_process_that_holds_a_gpu_forks_nothing)
{
    char why[ERR_LEN], err[ERR_LEN];
    cr_assert(pthread_atfork(NULL, count_fork, NULL) == 0);
    const Device *d = device_backend_open(TWIN_BACKEND, TWIN_ENTRY, TWIN_WHAT, 0, why);
    cr_assert(d, "%s (build it: make %s)", why, TWIN_BACKEND);
    int n = gpu_count();
    cr_assert(forks == 0, "gpu_count forked a child of a process that holds a GPU");
    cr_assert(n == d->count, "%d GPU(s) counted, the open device has %d", n, d->count);
    cr_assert(device_close(d, err) == 0, "%s", err);
}

/* Every shape of run closes its device last and fails, naming the count, when a buffer is
 * still held then (a model_free() left out of the run layer was seen to fail this). */
Test(device_close, the_programs_close_what_they_open)
{
    char *runs[][16] = {
        {"./mlp", "--epochs", "1", "--train_size", "256", "--quiet", NULL},
        {"./ring", "--n_gpus", "2", "--epochs", "1", "--train_size", "256", "--quiet", NULL},
        {"./ps", "--n_gpus", "3", "--epochs", "1", "--train_size", "256", "--quiet", NULL},
        {"./train", "--strategy", "fsdp", "--n_gpus", "2", "--hidden", "16,8", "--optimizer",
         "adamw", "--epochs", "1", "--train_size", "256", "--quiet", NULL},
        {"./train", "--strategy", "data_parallel", "--n_gpus", "2", "--epochs", "1",
         "--train_size", "256", "--quiet", NULL},
        {"./train", "--strategy", "single", "--epochs", "1", "--train_size", "256", "--quiet",
         NULL},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        static Run r;
        run_program(runs[i], &r);
        cr_assert(r.status == 0 && strstr(r.out, "final: loss") && !strstr(r.err, "never"),
                  "%s %s: exit %d: %s", runs[i][0], runs[i][1], r.status, r.err);
    }
}

/* Every row of ./collectives on the CPU, and ./pingpong, end with every buffer released (the
 * second buffer of the parameter server's, memcpy's and one-shot's rows was once kept in a
 * static, which the device's close reported). */
Test(device_close, every_measured_collective_releases_its_buffers)
{
    char *ops[] = {"reduce_scatter", "all_gather", "all_reduce", "ps_all_reduce", "memcpy",
                   "all_reduce_one_shot", "all_reduce_two_shot", "all_reduce_direct_ring",
                   "all_reduce_auto"};
    static Run r;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        run_program((char *[]){"./collectives", "--n_gpus", "3", "--device", "cpu", "--op",
                               ops[i], "-b", "4", "-e", "64K", "-f", "16", "-n", "2", "-w", "1",
                               NULL}, &r);
        cr_assert(r.status == 0 && !strstr(r.err, "never"), "--op %s: exit %d: %s", ops[i],
                  r.status, r.err);
    }
    run_program((char *[]){"./pingpong", "--n_gpus", "2", "--device", "cpu", "-e", "64K", "-n",
                           "2", "-w", "1", NULL}, &r);
    cr_assert(r.status == 0 && !strstr(r.err, "never"), "pingpong: exit %d: %s", r.status,
              r.err);
}

Test(device_close, ranks_that_outnumber_the_gpus_share_them)
{
    Device gpu = {.kind = DEVICE_CUDA, .name = "cuda", .count = 1};
    char line[64];
    cr_assert(device_sharing(&gpu, 4, line, sizeof line));
    cr_assert_str_eq(line, "4 ranks share 1 GPU");
    gpu.count = 2;
    cr_assert(device_sharing(&gpu, 3, line, sizeof line));
    cr_assert_str_eq(line, "3 ranks share 2 GPUs");
    cr_assert(!device_sharing(&gpu, 2, line, sizeof line) && line[0] == '\0',
              "2 ranks on 2 GPUs share none: '%s'", line);
    cr_assert(!device_sharing(device_cpu(), 8, line, sizeof line) && line[0] == '\0',
              "processes standing in for GPUs share no GPU: '%s'", line);
}

/* MPS is running when its control pipe exists in CUDA_MPS_PIPE_DIRECTORY: a directory of the
 * test's own, without the pipe, then with one; a plain file of that name is not a pipe. */
Test(device_close, mps_is_found_by_its_control_pipe)
{
    char dir[64] = "/tmp/dps-mps-XXXXXX", pipe[ERR_LEN], path[128];
    cr_assert(mkdtemp(dir), "mkdtemp failed");
    setenv("CUDA_MPS_PIPE_DIRECTORY", dir, 1);
    snprintf(path, sizeof path, "%s/control", dir);
    cr_assert(!device_mps_running(pipe, sizeof pipe), "MPS found in an empty directory");
    cr_assert_str_eq(pipe, path);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fclose(f);
    cr_assert(!device_mps_running(pipe, sizeof pipe), "a plain file taken for MPS's pipe");
    unlink(path);
    cr_assert(mkfifo(path, 0600) == 0, "mkfifo: %s", strerror(errno));
    cr_assert(device_mps_running(pipe, sizeof pipe), "MPS's pipe not found at %s", path);
    unlink(path);
    rmdir(dir);
    unsetenv("CUDA_MPS_PIPE_DIRECTORY");
    device_mps_running(pipe, sizeof pipe);
    cr_assert_str_eq(pipe, "/tmp/nvidia-mps/control");
}
