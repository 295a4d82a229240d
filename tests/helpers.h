/* Helpers shared by the book's Criterion tests. */
#ifndef DPS_TEST_HELPERS_H
#define DPS_TEST_HELPERS_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "device.h"
#include "util.h"

extern char **environ;

/* The tests' CPU twin of the CUDA backend (tests/twin_backend.c), built by the Makefile. */
#define TWIN_BACKEND "build/tests/libdps_twin.so"
/* The autograder's warden (tests/jail/warden.c), built beside the tests. */
#define WARDEN "build/tests/warden"
#define TWIN_ENTRY "dps_twin_backend_open"
#define TWIN_WHAT "CUDA's CPU twin (DPS_TEST_DEVICE=twin)"

/* The device under test for rank @p rank: DPS_TEST_DEVICE=cpu (the default), cuda (make test
 * DEVICE=cuda), or twin (the CPU, opened as the CUDA backend is: make test DEVICE=twin).
 * NULL with the reason in @p err when it cannot be opened. Opening cuda or twin marks the
 * process as holding a GPU, after which the launcher refuses to fork ranks from it: open it
 * in a rank, or in a child of the test's own (on_test_device). */
static inline const Device *open_test_device(int rank, char *err)
{
    const char *want = getenv("DPS_TEST_DEVICE");
    char why[ERR_LEN];
    const Device *d = NULL;
    if (!want || !*want || strcmp(want, "cpu") == 0)
        return device_cpu();
    if (strcmp(want, "cuda") == 0)
        d = device_cuda_open(rank, why);
    else if (strcmp(want, "twin") == 0)
        d = device_backend_open(TWIN_BACKEND, TWIN_ENTRY, TWIN_WHAT, rank, why);
    else
        snprintf(why, sizeof why, "not a device under test (cpu, cuda or twin)");
    if (!d)
        error_set(err, "DEVICE=%s: %s", want, why);
    return d;
}

/* The device under test, in the test's own process. Asking for cuda where no GPU answers
 * fails the test rather than skipping it. */
static inline const Device *test_device(void)
{
    char err[ERR_LEN];
    const Device *d = open_test_device(0, err);
    if (!d)
        cr_assert_fail("%s", err);
    return d;
}

static inline int test_on_cuda(void)
{
    const char *want = getenv("DPS_TEST_DEVICE");
    return want && strcmp(want, "cuda") == 0;
}

/* What a child of the test computes on the device under test: 0, or -1 with @p err. It
 * must not assert (it is not the test's process): it returns. */
typedef int (*DeviceWork)(const Device *dev, void *arg, void *out, char *err);

/* Run @p work in a child of the test's own, on the device under test opened there, and copy
 * the @p bytes it leaves in its out buffer into @p out. A GPU context does not survive
 * fork(): a one-device reference computed in the test's process would leave one there, and
 * the ranks the test forks next would fail (the launcher refuses first; chapter 2). The child
 * takes the context with it when it exits. A failure in the child fails the test with the
 * child's message. */
static inline void on_test_device(DeviceWork work, void *arg, void *out, size_t bytes)
{
    typedef struct { int rc; char err[ERR_LEN]; } Outcome;
    size_t total = sizeof(Outcome) + bytes;
    Outcome *o = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(o != MAP_FAILED, "mmap: %s", strerror(errno));
    o->rc = -1;
    snprintf(o->err, sizeof o->err, "the child died before it finished");
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        char err[ERR_LEN] = "";
        const Device *dev = open_test_device(0, err);
        int rc = dev ? work(dev, arg, o + 1, err) : -1;
        if (rc == 0 && dev != device_cpu() && device_close(dev, err))
            rc = -1;
        snprintf(o->err, sizeof o->err, "%s", err);
        o->rc = rc;
        _exit(0);
    }
    int st;
    cr_assert(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0 && o->rc == 0,
              "on the device under test, in a child: %s (status %d)", o->err, st);
    memcpy(out, o + 1, bytes);
    munmap(o, total);
}

/* What a program printed and how it ended. */
typedef struct Run {
    int status;       /* exit status, or 128 + signal */
    char out[65536];  /* stdout, truncated */
    char err[65536];  /* stderr, truncated */
} Run;

static inline void drain(int fd, char *buf, size_t cap)
{
    size_t used = 0;
    ssize_t n;
    char sink[4096];
    while ((n = read(fd, used + 1 < cap ? buf + used : sink,
                     used + 1 < cap ? cap - 1 - used : sizeof sink)) > 0)
        if (used + 1 < cap)
            used += (size_t)n;
    buf[used] = '\0';
}

/* Start argv[0] with argv, its stdout on @p out_fd and its stderr on @p err_fd (both
 * closed here), and return its pid. The child is made to die with the test
 * (PR_SET_PDEATHSIG), so that a test that fails or times out never leaves a program running
 * to load the tests after it; between fork() and exec it only calls async-signal-safe
 * functions and never returns into the test. A program that cannot be started fails the
 * test. */
static inline pid_t spawn_dying_with_test(char *const argv[], int out_fd, int err_fd)
{
    int exec_failed[2];
    cr_assert(pipe2(exec_failed, O_CLOEXEC) == 0, "pipe failed");
    pid_t test = getpid(), pid = fork();
    cr_assert(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != test)
            _exit(127); /* the test is already gone */
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execve(argv[0], argv, environ);
        int e = errno;
        ssize_t w = write(exec_failed[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(out_fd);
    close(err_fd);
    close(exec_failed[1]);
    int e = 0;
    ssize_t got = read(exec_failed[0], &e, sizeof e);
    close(exec_failed[0]);
    cr_assert(got <= 0, "cannot run %s: %s (build it first: make)", argv[0], strerror(e));
    return pid;
}

/* Let the mpirun of a test run as root (CI runs as root) and start more ranks than cores (CI
 * has 2): Open MPI 4 reads OMPI_MCA_rmaps_base_oversubscribe, Open MPI 5 (Debian 13), whose
 * launcher is PRRTE, reads PRTE_MCA_rmaps_default_mapping_policy instead. */
static inline void mpirun_may_oversubscribe(void)
{
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
    setenv("PRTE_MCA_rmaps_default_mapping_policy", ":oversubscribe", 1);
}

/* The ranks of launcher @p parent: pid per rank, from /proc (their names are "prog:rank"). */
static inline int ranks_of_launcher(pid_t parent, pid_t *pid, int max)
{
    int found = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char p[300], stat[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(p, sizeof p, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = '\0';
        /* pid (comm) state ppid ... ; comm may hold spaces, so parse from the last ')' */
        char *open = strchr(stat, '('), *close = strrchr(stat, ')');
        int ppid;
        char state;
        if (!open || !close || sscanf(close + 1, " %c %d", &state, &ppid) != 2 ||
            ppid != parent || state == 'Z')
            continue;
        char *colon = memchr(open, ':', (size_t)(close - open));
        int r = colon ? atoi(colon + 1) : -1;
        if (r >= 0 && r < max) {
            pid[r] = atoi(e->d_name);
            found++;
        }
    }
    if (d)
        closedir(d);
    return found;
}

/* Run argv[0] with argv, capturing stdout and stderr. stderr is read after stdout, so keep
 * outputs under the pipe size. */
static inline void run_program(char *const argv[], Run *r)
{
    int out[2], err[2];
    cr_assert(pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0, "pipe failed");
    pid_t pid = spawn_dying_with_test(argv, out[1], err[1]);
    drain(out[0], r->out, sizeof r->out);
    drain(err[0], r->err, sizeof r->err);
    close(out[0]);
    close(err[0]);
    int st;
    waitpid(pid, &st, 0);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The hash on a program's replicas line: the bits of the weights every rank ended with. */
static inline void replicas_hash(const Run *a, char *hash, size_t cap)
{
    const char *h = strstr(a->out, "are identical (hash ");
    cr_assert(h, "no replicas line: %.300s %.600s", a->out, a->err);
    snprintf(hash, cap, "%.16s", h + 20);
}

/* The loss on a program's "final: loss X ..." line (--quiet). */
static inline double final_loss(const char *out)
{
    const char *f = strstr(out, "final: loss ");
    cr_assert(f, "no final line in: %s", out);
    return atof(f + 12);
}

static inline int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Every data row of ./collectives's table: its #wrong column is 0; returns the rows. */
static inline int table_rows(const char *out, size_t *last_size)
{
    int rows = 0;
    for (const char *p = out; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
        if (*p == '#' || *p == '\n')
            continue;
        size_t size, count;
        double t, alg, bus;
        char type[16], wrong[16];
        if (sscanf(p, "%zu %zu %15s %lf %lf %lf %15s", &size, &count, type, &t, &alg, &bus,
                   wrong) != 7)
            cr_assert_fail("a row that does not parse: %.80s", p);
        cr_assert(size == count * 4 && strcmp(type, "float") == 0 && strcmp(wrong, "0") == 0,
                  "row: %.80s", p);
        *last_size = size;
        rows++;
    }
    return rows;
}

/* A refused command line: exit status 2, nothing on stdout, exactly one line on stderr that
 * starts with the program's name ("./mlp" speaks as "mlp:") and says @p says. @p what names
 * the case in failure messages. */
static inline void expect_refused(char *const argv[], const char *says, const char *what)
{
    Run r;
    run_program(argv, &r);
    const char *slash = strrchr(argv[0], '/'), *name = slash ? slash + 1 : argv[0];
    cr_expect(r.status == 2, "%s %s: exit status %d, expected 2 (stderr: %s)", argv[0], what,
              r.status, r.err);
    cr_expect(r.out[0] == '\0', "%s %s: printed on stdout: %.200s", argv[0], what, r.out);
    cr_expect(count_lines(r.err) == 1, "%s %s: %d lines on stderr: %s", argv[0], what,
              count_lines(r.err), r.err);
    cr_expect(strncmp(r.err, name, strlen(name)) == 0 && r.err[strlen(name)] == ':',
              "%s %s: the line does not start with '%s:': %s", argv[0], what, name, r.err);
    cr_expect(strstr(r.err, says), "%s %s: stderr '%s' does not say '%s'", argv[0], what, r.err,
              says);
}

/* Whether process @p pid (0: this one) maps, or holds open, a file in /dev/shm that still
 * has its name there; if so, "what" names it. Only what a process of a test's own run maps or
 * holds can be counted against that run: /dev/shm itself is shared with every other program
 * on the machine. A file already unlinked ("(deleted)", like the arena Criterion's runner
 * shares with its workers) cannot be left behind, so it does not count. */
static inline bool names_in_dev_shm(pid_t pid, char *what, size_t cap)
{
    char path[300], line[1024];
    snprintf(path, sizeof path, pid ? "/proc/%d/maps" : "/proc/self/maps", (int)pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "/dev/shm/") && !strstr(line, "(deleted)")) {
            snprintf(what, cap, "a mapping: %s", line);
            fclose(f);
            return true;
        }
    if (f)
        fclose(f);
    snprintf(path, sizeof path, pid ? "/proc/%d/fd" : "/proc/self/fd", (int)pid);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
        char fd[600], target[512];
        snprintf(fd, sizeof fd, "%s/%s", path, e->d_name);
        ssize_t n = readlink(fd, target, sizeof target - 1);
        if (n > 0 && (target[n] = '\0', strncmp(target, "/dev/shm/", 9) == 0) &&
            !strstr(target, "(deleted)")) {
            snprintf(what, cap, "descriptor %s: %s", e->d_name, target);
            closedir(d);
            return true;
        }
    }
    if (d)
        closedir(d);
    return false;
}

#endif
