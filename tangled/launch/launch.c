/**
 * @file launch.c
 * @brief The launcher: fork, supervise, fail fast.
 */
#line 238 "chapters/02-shm.nw"
#include "launch.h"

#line 262 "chapters/02-shm.nw"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <stdlib.h>

#line 242 "chapters/02-shm.nw"
#include "device.h"
#include "util.h"

#line 195 "chapters/02-shm.nw"
/** Seconds between SIGTERM and SIGKILL when ranks are stopped. */
#define GRACE_SECONDS 1.0

/** What one rank tells the others and the parent. */
typedef struct RankSlot {
    char phase[96];                 /**< what the rank is doing now */
    char error[ERR_LEN];            /**< why it failed, written before it exits */
    _Atomic unsigned long progress; /**< signs of life: phases entered, waits woken from */
    _Atomic double progress_at;     /**< when the last one was, by now_seconds() */
    _Atomic int waiting_for;        /**< the rank it waits for, or -1 */
} RankSlot;

/** The board: a slot per rank, in memory shared by the parent and every rank. */
typedef struct Board {
    int size;        /**< ranks */
    RankSlot slot[]; /**< one per rank */
} Board;

static Board *board;  /* the current launch's board; NULL outside one */
static int self = -1; /* this process's rank; -1 in the parent */

#line 285 "chapters/02-shm.nw"
void launch_phase(const char *fmt, ...)
{
    if (!board || self < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(board->slot[self].phase, sizeof board->slot[self].phase, fmt, ap);
    va_end(ap);
    launch_alive();
}
#line 300 "chapters/02-shm.nw"
void launch_phase_of(int rank, char *buf, size_t len)
{
    if (!board || rank < 0 || rank >= board->size || len == 0) {
        snprintf(buf, len, "?");
        return;
    }
    size_t n = strnlen(board->slot[rank].phase, sizeof board->slot[rank].phase);
    if (n >= len)
        n = len - 1;
    memcpy(buf, board->slot[rank].phase, n);
    buf[n] = '\0';
}

int launch_rank(void)
{
    return self;
}
#line 347 "chapters/02-shm.nw"
void launch_alive(void)
{
    if (!board || self < 0)
        return;
    atomic_fetch_add_explicit(&board->slot[self].progress, 1, memory_order_relaxed);
    double now = now_seconds();
    atomic_store_explicit(&board->slot[self].progress_at, now, memory_order_relaxed);
}

void launch_waiting(int peer)
{
    if (board && self >= 0)
        atomic_store_explicit(&board->slot[self].waiting_for, peer, memory_order_relaxed);
}
#line 380 "chapters/02-shm.nw"
static void run_rank(int rank, int size, RankMain rank_main, void *arg, pid_t parent,
                     const sigset_t *mask)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(EXIT_RUNTIME);
    char name[32]; /* the kernel keeps the first 15 characters */
    snprintf(name, sizeof name, "%.10s:%d", program_name(), rank);
    prctl(PR_SET_NAME, name);
    sigprocmask(SIG_SETMASK, mask, NULL);
    self = rank;
    launch_phase("running");
    char err[ERR_LEN] = "";
    int rc = rank_main(rank, size, arg, err);
    fflush(NULL);
    if (rc != 0) {
        snprintf(board->slot[rank].error, ERR_LEN, "%s", err[0] ? err : "failed");
        _exit(EXIT_RUNTIME);
    }
    _exit(0);
}
#line 465 "chapters/02-shm.nw"
static void describe(int rank, int status, char *msg)
{
    char phase[96];
    launch_phase_of(rank, phase, sizeof phase);
    const char *error = board->slot[rank].error;
    if (WIFSIGNALED(status))
        snprintf(msg, ERR_LEN, "rank %d was killed by signal %d (%s) during '%s'", rank,
                 WTERMSIG(status), strsignal(WTERMSIG(status)), phase);
    else if (error[0])
        snprintf(msg, ERR_LEN, "rank %d failed during '%s': %.*s", rank, phase, ERR_LEN / 2,
                 error);
    else
        snprintf(msg, ERR_LEN, "rank %d exited with status %d during '%s'", rank,
                 WEXITSTATUS(status), phase);
}

#line 544 "chapters/02-shm.nw"
/** Whether rank @p r's chain of waits leads to rank @p c (within the size of the run). */
static bool waits_on(int r, int c, int size)
{
    for (int hops = 0; hops < size && r >= 0 && r < size; hops++)
        if ((r = atomic_load(&board->slot[r].waiting_for)) == c)
            return true;
    return false;
}

#line 559 "chapters/02-shm.nw"
bool launch_stopped(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close = strrchr(buf, ')');
    return close && close[1] == ' ' && close[2] == 'T';
}

#line 515 "chapters/02-shm.nw"
static void name_the_rank_that_stood_still(const pid_t *pids, int size, int failed, char *msg)
{
#line 518 "chapters/02-shm.nw"
    double now = now_seconds(), worst = 0, next = 0;
    int c = -1;
    for (int r = 0; r < size && c < 0; r++)
        if (r != failed && pids[r] > 0 && launch_stopped(pids[r]))
            c = r, worst = now - atomic_load(&board->slot[r].progress_at);
    if (c < 0) {
#line 581 "chapters/02-shm.nw"
        for (int r = 0; r < size; r++) {
            if (r == failed || pids[r] == 0)
                continue; /* the failed rank, and ranks already ended */
            double still = now - atomic_load(&board->slot[r].progress_at);
            if (still > worst)
                next = worst, worst = still, c = r;
            else if (still > next)
                next = still;
        }
#line 525 "chapters/02-shm.nw"
        if (c < 0 || worst < 1.0 || worst < 2 * next)
            return; /* no rank stands out */
    }
    char phase[96], who[ERR_LEN / 2] = "", line[ERR_LEN];
    launch_phase_of(c, phase, sizeof phase);
    int n = 0;
#line 575 "chapters/02-shm.nw"
    for (int r = 0; r < size; r++)
        if (r != c && waits_on(r, c, size) && strlen(who) + 8 < sizeof who)
            snprintf(who + strlen(who), sizeof who - strlen(who), "%s%d", n++ ? ", " : "", r);
#line 532 "chapters/02-shm.nw"
    snprintf(line, sizeof line,
             "rank %d made no progress for %.1f s in '%s'; %s%s %s "
             "waiting for it: %s",
             c, worst, phase, n == 1 ? "rank " : "ranks ", who, n == 1 ? "was" : "were", msg);
#line 535 "chapters/02-shm.nw"
    snprintf(msg, ERR_LEN, "%s", line);
}

#line 596 "chapters/02-shm.nw"
static void signal_all(const pid_t *pids, int size, int sig)
{
    for (int r = 0; r < size; r++)
        if (pids[r] > 0)
            kill(pids[r], sig);
}

#line 433 "chapters/02-shm.nw"
static int supervise(pid_t *pids, int size, double limit_s, const sigset_t *chld, char *err)
{
#line 436 "chapters/02-shm.nw"
    int alive = size, failed = 0;
    double start = now_seconds(), kill_at = INFINITY;
    char msg[ERR_LEN] = "";
    while (alive > 0) {
#line 613 "chapters/02-shm.nw"
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            int r = 0;
            while (r < size && pids[r] != pid)
                r++;
            if (r == size)
                continue; /* not one of ours */
            pids[r] = 0;
            alive--;
            bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            if (!ok && !failed) {
                failed = 1;
                describe(r, status, msg);
                name_the_rank_that_stood_still(pids, size, r, msg);
                signal_all(pids, size, SIGTERM);
                kill_at = now_seconds() + GRACE_SECONDS;
            }
        }
        if (pid < 0 && errno == ECHILD)
            break; /* no child left at all */
#line 441 "chapters/02-shm.nw"
        if (alive == 0)
            break;
#line 649 "chapters/02-shm.nw"
        double t = now_seconds();
        if (!failed && limit_s > 0 && t - start > limit_s) {
            int r = 0;
            while (r < size && pids[r] == 0)
                r++;
            char phase[96];
            launch_phase_of(r, phase, sizeof phase);
            snprintf(msg, sizeof msg,
                     "%d rank(s) still running after the limit of %g s "
                     "(rank %d is in '%s')",
                     alive, limit_s, r, phase);
#line 658 "chapters/02-shm.nw"
            failed = 1;
            signal_all(pids, size, SIGTERM);
            kill_at = t + GRACE_SECONDS;
        } else if (t >= kill_at) {
            signal_all(pids, size, SIGKILL);
            kill_at = INFINITY;
        }
#line 680 "chapters/02-shm.nw"
        double wake = kill_at;
        if (!failed && limit_s > 0)
            wake = start + limit_s;
        double wait_s = isinf(wake) ? 1.0 : fmax(0.0, fmin(1.0, wake - t));
        struct timespec ts = {.tv_sec = (time_t)wait_s,
                              .tv_nsec = (long)((wait_s - (time_t)wait_s) * 1e9)};
        sigtimedwait(chld, NULL, &ts);
#line 445 "chapters/02-shm.nw"
    }
    if (failed)
        return error_set(err, "%s", msg);
    return 0;
}
#line 701 "chapters/02-shm.nw"
int launch(int size, RankMain rank_main, void *arg, double limit_s, char *err)
{
    if (size < 1 || size > LAUNCH_MAX_RANKS)
        return error_set(err, "launch: %d ranks asked for; 1 to %d are possible", size,
                         LAUNCH_MAX_RANKS);
#line 735 "chapters/02-shm.nw"
    if (device_fork_hazard())
        return error_set(err,
                         "launch: this process has opened %s, whose context does not survive "
                         "fork(): every rank would fail at its first call ('initialization "
                         "error'); open the device in each rank, after launch(), and compute "
                         "one-device results in a child of their own",
                         device_fork_hazard());
#line 757 "chapters/02-shm.nw"
    size_t bytes = sizeof(Board) + (size_t)size * sizeof(RankSlot);
    Board *b = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED)
        return error_set(err, "launch: cannot map %zu bytes of shared memory: %s", bytes,
                         strerror(errno));
    b->size = size;
    for (int r = 0; r < size; r++) {
        snprintf(b->slot[r].phase, sizeof b->slot[r].phase, "starting");
        b->slot[r].progress_at = now_seconds();
        b->slot[r].waiting_for = -1;
    }
    board = b;

#line 709 "chapters/02-shm.nw"
    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);
    fflush(NULL);
    pid_t pids[LAUNCH_MAX_RANKS] = {0}, parent = getpid();
    int rc = 0;
#line 780 "chapters/02-shm.nw"
    for (int r = 0; r < size; r++) {
        pid_t pid = fork();
        if (pid == 0)
            run_rank(r, size, rank_main, arg, parent, &old);
        if (pid < 0) {
            rc = error_set(err, "launch: cannot start rank %d: %s", r, strerror(errno));
            signal_all(pids, r, SIGKILL);
            for (int q = 0; q < r; q++)
                waitpid(pids[q], NULL, 0);
            break;
        }
        pids[r] = pid;
    }
#line 717 "chapters/02-shm.nw"
    if (rc == 0)
        rc = supervise(pids, size, limit_s, &chld, err);
    sigprocmask(SIG_SETMASK, &old, NULL);
    board = NULL;
    munmap(b, bytes);
    return rc;
}
#line 1238 "chapters/09-hosts.nw"
/** What the watchdog says a rank is, and how long it may stand still. */
static struct {
    double timeout_s;
    char who[128];
} watch;

static void *watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec tick = {0, 100 * 1000 * 1000};
        nanosleep(&tick, NULL);
        double still = now_seconds() - atomic_load(&board->slot[self].progress_at);
        if (still > watch.timeout_s) {
#line 1265 "chapters/09-hosts.nw"
            char phase[96], line[ERR_LEN];
            launch_phase_of(self, phase, sizeof phase);
            int n = snprintf(line, sizeof line,
                             "%s: %s made no progress for %.1f s in '%s': a "
                             "peer, or the link to it, is gone\n",
                             program_name(), watch.who, still, phase);
#line 1269 "chapters/09-hosts.nw"
            if (write(2, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1)) < 0)
                _exit(EXIT_FAILURE);
            _exit(EXIT_FAILURE);
#line 1253 "chapters/09-hosts.nw"
        }
    }
    return NULL;
}
#line 1278 "chapters/09-hosts.nw"
void launch_watch(int rank, double timeout_s, const char *who)
{
    board = xcalloc(1, sizeof *board + (size_t)(rank + 1) * sizeof(RankSlot));
    board->size = rank + 1;
    self = rank;
    watch.timeout_s = timeout_s;
    snprintf(watch.who, sizeof watch.who, "%s", who);
    launch_alive();
    pthread_t t;
    if (pthread_create(&t, NULL, watchdog, NULL) == 0)
        pthread_detach(t);
}
