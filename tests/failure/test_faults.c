/* Appendix B: kill -9 of a random rank at a random moment of a 4-rank ./ring, ./ps,
 * ./train --strategy fsdp run (whose communication thread may be inside a gather) or
 * ./train --strategy direct run (whose ranks may be waiting on each other's counters).
 * Every run must end (a run still going 10 s after the kill has hung), with a non-zero status
 * and a message naming the dead rank; no rank may survive; no process of the run may map or
 * hold a file in /dev/shm; the last checkpoint must be intact. How long the end took is
 * measured and reported (make faults), never asserted: on a loaded machine it is anyone's
 * guess. DPS_FAULT_TRIALS sets the number of trials (default 8; `make faults` runs 50),
 * DPS_FAULT_SEED the generator that picks the rank and the moment. A rank stopped (SIGSTOP)
 * rather than killed is named first as the one that made no progress. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "checkpoint.h"
#include "helpers.h"
#include "rng.h"

/* What one trial saw. */
typedef struct Trial {
    double abort_s;   /* from the kill to the launcher's exit */
    int leftovers;    /* processes alive afterwards, and files in /dev/shm the run held */
    bool checkpoint;  /* a checkpoint existed (and was intact) */
    bool tmp;         /* FILE.tmp was left by a writer killed mid-write */
} Trial;

/* The programs the trials take turns with; fsdp takes no checkpoint (it would refuse one). */
static const struct {
    const char *name, *prog, *strategy;
    bool checkpoint;
} programs[] = {{"./ring", "./ring", NULL, true},
                {"./ps", "./ps", NULL, true},
                {"./train --strategy fsdp", "./train", "fsdp", false},
                {"./train --strategy direct", "./train", "direct", true}};
enum { N_PROGRAMS = sizeof programs / sizeof programs[0] };

static void trial(int which, const char *ckpt, Rng *g, Trial *t)
{
    const char *prog = programs[which].name;
    unlink(ckpt);
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp", ckpt);
    unlink(tmp);
    int err[2];
    cr_assert(pipe2(err, O_CLOEXEC) == 0);
    char *argv[24] = {(char *)programs[which].prog, "--n_gpus", "4", "--device", "cpu",
                      "--train_size", "2048", "--batch_size", "16", "--epochs", "100000",
                      "--timeout", "30"};
    int argc = 13;
    if (programs[which].strategy) {
        argv[argc++] = "--strategy";
        argv[argc++] = (char *)programs[which].strategy;
    }
    if (programs[which].checkpoint) {
        argv[argc++] = "--checkpoint";
        argv[argc++] = (char *)ckpt;
    }
    argv[argc] = NULL;
    /* The run would go on for an hour: it dies with this test, however the test ends (a failed
     * assertion, its time-out); its ranks die with their launcher. */
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    cr_assert(null >= 0);
    pid_t parent = spawn_dying_with_test(argv, null, err[1]);
    pid_t pid[4] = {0};
    double t0 = now_seconds();
    while (ranks_of_launcher(parent, pid, 4) < 4) { /* wait for all four ranks */
        cr_assert(now_seconds() - t0 < 20, "%s: the ranks did not start", prog);
        usleep(2000);
    }
    int victim = (int)rng_below(g, 4);
    double moment = 1.5 * rng_uniform(g); /* 0 to 1.5 s into the run */
    usleep((useconds_t)(moment * 1e6));
    int st;
    cr_assert(waitpid(parent, &st, WNOHANG) == 0, "%s ended before the kill", prog);
    /* nothing of the run lives in /dev/shm, so nothing can be left there by the kill */
    t->leftovers = 0;
    for (int r = -1; r < 4; r++) {
        char what[1200];
        if (names_in_dev_shm(r < 0 ? parent : pid[r], what, sizeof what)) {
            t->leftovers++;
            cr_expect(0, "%s: %s %d holds a file in /dev/shm: %s", prog, r < 0 ? "the launcher" :
                      "rank", r, what);
        }
    }
    cr_assert(kill(pid[victim], SIGKILL) == 0, "kill rank %d: %s", victim, strerror(errno));
    double killed = now_seconds();
    pid_t w;
    while ((w = waitpid(parent, &st, WNOHANG)) == 0 && now_seconds() - killed < 10)
        usleep(500);
    t->abort_s = now_seconds() - killed;
    if (w == 0) { /* hung: clean up before failing */
        kill(parent, SIGKILL);
        for (int r = 0; r < 4; r++)
            kill(pid[r], SIGKILL);
        waitpid(parent, &st, 0);
    }
    char msg[4096];
    drain(err[0], msg, sizeof msg);
    close(err[0]);
    cr_assert(w == parent, "%s: still running 10 s after rank %d was killed", prog, victim);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) != 0, "%s: status %d after a rank died", prog, st);
    char says[64];
    snprintf(says, sizeof says, "rank %d was killed by signal 9", victim);
    cr_expect(strstr(msg, says) && count_lines(msg) == 1, "%s: stderr '%s' does not say '%s'",
              prog, msg, says);
    /* no rank survives: each pid is gone, or belongs to someone else now */
    int survivors = 0;
    for (int r = 0; r < 4; r++) {
        char p[64], comm[32] = "";
        snprintf(p, sizeof p, "/proc/%d/comm", pid[r]);
        FILE *f = fopen(p, "r");
        if (f) {
            if (fgets(comm, sizeof comm, f) && strchr(comm, ':'))
                survivors++;
            fclose(f);
        }
    }
    cr_expect(survivors == 0, "%s: %d rank(s) survived", prog, survivors);
    t->leftovers += survivors;
    /* the last checkpoint, if an epoch finished, is intact */
    struct stat sb;
    t->checkpoint = stat(ckpt, &sb) == 0;
    t->tmp = stat(tmp, &sb) == 0;
    if (t->checkpoint) {
        Checkpoint ck;
        char why[ERR_LEN];
        cr_expect(checkpoint_load(ckpt, &ck, why) == 0, "%s: the last checkpoint: %s", prog, why);
        checkpoint_free(&ck);
    }
}

Test(failure_faults, kill_9_of_a_random_rank_ends_the_run_cleanly, .timeout = 600)
{
    const char *env = getenv("DPS_FAULT_TRIALS"), *seed = getenv("DPS_FAULT_SEED");
    int trials = env ? atoi(env) : 8; /* two of each program */
    Rng g;
    rng_seed(&g, seed ? strtoull(seed, NULL, 10) : 1, 77);
    char dir[] = "/tmp/dps-fault-XXXXXX", ckpt[64];
    cr_assert(mkdtemp(dir));
    snprintf(ckpt, sizeof ckpt, "%s/run.ckpt", dir);
    double slowest = 0, sum = 0;
    int leftovers = 0, with_ckpt = 0, writers = 0, tmps = 0;
    for (int i = 0; i < trials; i++) {
        Trial t;
        trial(i % N_PROGRAMS, ckpt, &g, &t);
        slowest = t.abort_s > slowest ? t.abort_s : slowest;
        sum += t.abort_s;
        leftovers += t.leftovers;
        with_ckpt += t.checkpoint;
        writers += programs[i % N_PROGRAMS].checkpoint;
        tmps += t.tmp;
    }
    char tmp[80];
    snprintf(tmp, sizeof tmp, "%s.tmp", ckpt);
    unlink(tmp);
    unlink(ckpt);
    rmdir(dir);
    cr_log_info("faults: %d trials (./ring, ./ps, ./train --strategy fsdp and direct, 4 ranks, "
                "kill -9 of a random rank 0-1.5 s in): slowest abort %.3f s, mean %.3f s; "
                "leftovers (processes, /dev/shm) %d; checkpoints intact %d of %d runs that "
                "write them (the others died before epoch 1 ended); FILE.tmp left by a "
                "killed writer %d", trials, slowest, sum / trials, leftovers,
                with_ckpt, writers, tmps);
}

/* A rank that stops without dying (SIGSTOP: swapped out, wedged) is named first, as the one
 * that made no progress, and the ranks that waited for it second: in a 4-rank ./ring, ./ps
 * and ./train --strategy fsdp whose peers give up after 2 s. The stopped rank is ended by the
 * launcher (SIGKILL ends a stopped process), and the run exits with status 1. */
static void stop_one_rank(char *const argv[], const char *name, int victim)
{
    int err[2], null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    cr_assert(pipe2(err, O_CLOEXEC) == 0 && null >= 0);
    pid_t parent = spawn_dying_with_test(argv, null, err[1]);
    pid_t pid[4] = {0};
    double t0 = now_seconds();
    while (ranks_of_launcher(parent, pid, 4) < 4) {
        cr_assert(now_seconds() - t0 < 20, "%s: the ranks did not start", name);
        usleep(2000);
    }
    usleep(500000);
    int st;
    cr_assert(waitpid(parent, &st, WNOHANG) == 0, "%s ended before the stop", name);
    cr_assert(kill(pid[victim], SIGSTOP) == 0, "stop rank %d: %s", victim, strerror(errno));
    double stopped = now_seconds();
    pid_t w;
    while ((w = waitpid(parent, &st, WNOHANG)) == 0 && now_seconds() - stopped < 20)
        usleep(1000);
    if (w == 0) {
        kill(parent, SIGKILL);
        for (int r = 0; r < 4; r++)
            kill(pid[r], SIGKILL);
        waitpid(parent, &st, 0);
    }
    char msg[4096], says[96];
    drain(err[0], msg, sizeof msg);
    close(err[0]);
    cr_assert(w == parent, "%s: still running 20 s after rank %d was stopped", name, victim);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1, "%s: status %d", name, st);
    const char *prog = strrchr(argv[0], '/') + 1;
    snprintf(says, sizeof says, "%s: rank %d made no progress for ", prog, victim);
    cr_expect(strncmp(msg, says, strlen(says)) == 0 && strstr(msg, "waiting for it: rank ") &&
                  strstr(msg, "timed out") && count_lines(msg) == 1,
              "%s, rank %d stopped: the message does not open with it: %s", name, victim, msg);
    kill(pid[victim], SIGKILL); /* in case the launcher did not (the test fails then) */
}

Test(failure_faults, a_stopped_rank_is_named_first, .timeout = 120)
{
    char *common[] = {"--n_gpus", "4", "--device", "cpu", "--train_size", "2048", "--batch_size",
                      "16", "--epochs", "100000", "--timeout", "2"};
    struct {
        const char *name;
        char *argv[20];
        int victim;
    } runs[] = {{"./ring", {"./ring"}, 2}, {"./ps", {"./ps"}, 2},
                {"./train --strategy fsdp", {"./train", "--strategy", "fsdp"}, 1}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        int k = 0;
        while (runs[i].argv[k])
            k++;
        for (size_t j = 0; j < sizeof common / sizeof common[0]; j++)
            runs[i].argv[k++] = common[j];
        runs[i].argv[k] = NULL;
        stop_one_rank(runs[i].argv, runs[i].name, runs[i].victim);
    }
}
