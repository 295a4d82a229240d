/* The launcher: a rank that dies is reported by rank, signal or status, and phase; the
 * others are stopped fast; no process is left behind; a process that has opened a GPU is
 * not forked. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "ranks.h"

/* Whether process pid is gone: no such process, or a zombie (dead, not yet reaped by an
 * init that does not reap). */
static int gone(pid_t pid)
{
    if (kill(pid, 0) == -1 && errno == ESRCH)
        return 1;
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    char *p = strrchr(stat, ')');
    return p && p[1] == ' ' && p[2] == 'Z';
}

static int ok(int rank, int size, void *arg, char *err)
{
    (void)size;
    (void)err;
    int *seen = arg;
    seen[rank] = 1;
    return 0;
}

Test(launch, every_rank_runs_once)
{
    char err[ERR_LEN];
    int *seen = shared_zeroed(8 * sizeof *seen);
    cr_assert(launch(8, ok, seen, 10, err) == 0, "%s", err);
    for (int r = 0; r < 8; r++)
        cr_assert(seen[r] == 1, "rank %d did not run", r);
}

Test(launch, impossible_sizes_are_refused)
{
    char err[ERR_LEN];
    cr_assert(launch(0, ok, NULL, 10, err) == -1);
    cr_assert(strstr(err, "1 to 64"), "message: %s", err);
    cr_assert(launch(LAUNCH_MAX_RANKS + 1, ok, NULL, 10, err) == -1);
}

/* Rank 2 aborts while the others wait for messages that will never come (their timeout
 * is a minute): the launcher must end the run within 2 s, naming rank 2 and SIGABRT. */
static int aborts(int rank, int size, void *arg, char *err)
{
    pid_t *pids = arg;
    __atomic_store_n(&pids[rank], getpid(), __ATOMIC_SEQ_CST);
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    if (rank == 2) {
        launch_phase("step 3 of the test");
        for (int r = 0; r < size; r++) /* every rank has written its pid: the test checks them */
            while (!__atomic_load_n(&pids[r], __ATOMIC_SEQ_CST))
                usleep(1000);
        abort();
    }
    char buf[8];
    launch_phase("waiting for rank %d", (rank + 1) % size);
    return c->recv(c, (rank + 1) % size, buf, sizeof buf, err);
}

/* The peers would wait 600 s for the dead rank and so would the launcher's limit: the run
 * ends because the launcher saw the death, or the test's own time-out (30 s) fails it. How
 * fast it ends is Appendix B's measurement (make faults), never an assertion. */
Test(launch, a_rank_that_aborts_ends_the_run, .timeout = 30)
{
    char err[ERR_LEN];
    pid_t *pids = shared_zeroed(4 * sizeof *pids);
    cr_assert(run_ranks(4, 0, 600, aborts, pids, 600, err) != 0, "the run succeeded");
    cr_assert(strstr(err, "rank 2 was killed by signal 6") && strstr(err, "step 3 of the test"),
              "message: %s", err);
    for (int r = 0; r < 4; r++)
        cr_assert(pids[r] > 0 && gone(pids[r]), "rank %d (pid %d) is still alive", r, pids[r]);
}

static int fails(int rank, int size, void *arg, char *err)
{
    (void)size;
    (void)arg;
    if (rank == 1) {
        launch_phase("writing the checkpoint");
        return error_set(err, "disk full");
    }
    sleep(30);
    return 0;
}

Test(launch, an_error_is_reported_with_its_phase)
{
    char err[ERR_LEN];
    cr_assert(launch(3, fails, NULL, 30, err) != 0);
    cr_assert(strstr(err, "rank 1 failed during 'writing the checkpoint': disk full"),
              "message: %s", err);
}

static int exits(int rank, int size, void *arg, char *err)
{
    (void)size;
    (void)arg;
    (void)err;
    if (rank == 0) {
        fflush(NULL);
        _exit(3);
    }
    sleep(30);
    return 0;
}

Test(launch, an_exit_status_is_reported)
{
    char err[ERR_LEN];
    cr_assert(launch(2, exits, NULL, 30, err) != 0);
    cr_assert(strstr(err, "rank 0 exited with status 3"), "message: %s", err);
}

static int stuck(int rank, int size, void *arg, char *err)
{
    (void)size;
    (void)arg;
    (void)err;
    if (rank == 0) { /* rank 0: named first whatever the others are doing */
        launch_phase("an endless loop");
        for (volatile int spin = 1; spin;)
            ;
    }
    return 0;
}

/* The limit, not a peer, ends the run: the message says so. A launcher that ignored the
 * limit would hang, and the test's own time-out (30 s) would fail it. The limit (2 s) leaves
 * the stuck rank time to be scheduled and name its phase even on a loaded machine. */
Test(launch, a_time_limit_stops_a_stuck_rank, .timeout = 30)
{
    char err[ERR_LEN];
    cr_assert(launch(2, stuck, NULL, 2, err) != 0);
    cr_assert(strstr(err, "still running after the limit of 2 s") &&
              strstr(err, "rank 0 is in 'an endless loop'"), "message: %s", err);
}

/* If the launcher itself is killed, its ranks die with it (PR_SET_PDEATHSIG). The launcher
 * runs in a child of the test, which the test kills with SIGKILL. */
static int sleeper(int rank, int size, void *arg, char *err)
{
    (void)size;
    (void)err;
    pid_t *pids = arg;
    pids[rank] = getpid();
    sleep(30);
    return 0;
}

Test(launch, ranks_die_with_their_launcher)
{
    pid_t *pids = shared_zeroed(3 * sizeof *pids);
    pid_t launcher = fork();
    cr_assert(launcher >= 0);
    if (launcher == 0) {
        char err[ERR_LEN];
        _exit(launch(3, sleeper, pids, 60, err) == 0 ? 0 : 1);
    }
    double t0 = now_seconds();
    while ((!pids[0] || !pids[1] || !pids[2]) && now_seconds() - t0 < 10)
        usleep(1000);
    kill(launcher, SIGKILL);
    waitpid(launcher, NULL, 0);
    t0 = now_seconds();
    for (int r = 0; r < 3; r++) {
        cr_assert(pids[r] > 0, "rank %d never started", r);
        while (!gone(pids[r]) && now_seconds() - t0 < 10) /* they sleep 30 s */
            usleep(1000);
        cr_assert(gone(pids[r]), "rank %d (pid %d) outlived its launcher", r, pids[r]);
    }
}

/* The rule of fork (chapter 1, "Opening once, closing once, and the rule of fork"): once a
 * process has opened a GPU backend it may not fork ranks, even after closing the device, since
 * the driver's context outlives the close. The backend here is the tests' CPU twin of CUDA,
 * opened through device_backend_open() as the CUDA backend is, so that this runs on any
 * machine; the launcher refuses before any rank runs, in one line that names the cause and
 * the fix. */
Test(launch, refuses_to_fork_a_process_that_opened_a_gpu)
{
    char why[ERR_LEN], err[ERR_LEN];
    int *seen = shared_zeroed(2 * sizeof *seen);
    cr_assert(device_fork_hazard() == NULL, "marked before any backend was opened: %s",
              device_fork_hazard());
    cr_assert(launch(2, ok, seen, 10, err) == 0, "before the open: %s", err);
    seen[0] = seen[1] = 0;
    const Device *d = device_backend_open(TWIN_BACKEND, TWIN_ENTRY, TWIN_WHAT, 0, why);
    cr_assert(d, "%s (build it: make %s)", why, TWIN_BACKEND);
    cr_assert(device_close(d, err) == 0, "%s", err);
    cr_assert(launch(2, ok, seen, 10, err) == -1, "the launcher forked after a GPU was opened");
    cr_assert(seen[0] == 0 && seen[1] == 0, "a rank ran");
    cr_assert(strstr(err, "opened " TWIN_WHAT ", whose context does not survive fork()") &&
                  strstr(err, "open the device in each rank") && !strchr(err, '\n'),
              "the refusal does not name the cause and the fix in one line: %s", err);
}

/* The same refusal after the real CUDA backend ran. Without a GPU, CUDA's stub driver, loaded
 * first under its own name (libcuda.so.1), lets device_cuda_open() reach the backend, whose
 * cudaGetDeviceCount initialises the driver whatever it answers; on a GPU the real driver
 * does. Either way the process is marked "CUDA" from then on. */
Test(launch, refuses_to_fork_after_the_cuda_backend_ran)
{
#ifndef HAVE_CUDA
    cr_skip_test("this build has no CUDA backend (nvcc was not found, or NO_CUDA=1)");
#else
    if (!test_on_cuda()) {
        const char *home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
        char stub[512];
        snprintf(stub, sizeof stub, "%s/lib64/stubs/libcuda.so", home);
        if (!dlopen(stub, RTLD_NOW | RTLD_GLOBAL))
            cr_skip_test("the toolkit has no stub driver (%s)", stub);
    }
    char why[ERR_LEN] = "", err[ERR_LEN];
    const Device *d = device_cuda_open(0, why);
    if (!d && strstr(why, "could not be loaded"))
        cr_skip_test("%s", why);
    if (d)
        cr_assert(device_close(d, err) == 0, "%s", err);
    cr_assert(device_fork_hazard() && strcmp(device_fork_hazard(), "CUDA") == 0,
              "the CUDA backend ran (%s) but the process is not marked",
              d ? "a GPU answered" : why);
    int *seen = shared_zeroed(2 * sizeof *seen);
    cr_assert(launch(2, ok, seen, 10, err) == -1, "the launcher forked after CUDA ran");
    cr_assert(seen[0] == 0 && seen[1] == 0, "a rank ran");
    cr_assert(strstr(err, "opened CUDA, whose context does not survive fork()"), "%s", err);
#endif
}

/* What the launcher asks first of a rank that made no progress: whether the kernel has it
 * stopped. A child that stops itself is seen stopped, and not once SIGCONT has resumed it;
 * a running process is not, nor one that does not exist. */
Test(launch, a_process_stopped_by_a_signal_is_seen_stopped, .timeout = 30)
{
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork failed");
    if (pid == 0) {
        raise(SIGSTOP);
        for (;;)
            pause();
    }
    int st;
    cr_assert(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st), "the child did not stop");
    bool stopped = launch_stopped(pid);
    kill(pid, SIGCONT);
    cr_assert(waitpid(pid, &st, WCONTINUED) == pid && WIFCONTINUED(st));
    bool resumed = launch_stopped(pid);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    cr_expect(stopped, "a stopped child (SIGSTOP) was not seen stopped");
    cr_expect(!resumed, "a child resumed by SIGCONT was still seen stopped");
    cr_expect(!launch_stopped(getpid()), "this running process was seen stopped");
    cr_expect(!launch_stopped(pid), "a process that no longer exists was seen stopped");
}
