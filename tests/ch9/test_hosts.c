/* Chapter 9 on real hosts: each test makes test hosts of its own (scripts/hosts.sh, under a
 * prefix of its own, on a subnet of its own), runs mpirun across them, and takes them down,
 * checking that nothing is left. Needs root and network namespaces; skipped, with the
 * reason, without them. */
#include <signal.h>
#include <unistd.h>

#include "comm_mpi.h"
#include "helpers.h"

/* This test's hosts: a prefix no other test process uses. */
static char prefix[16];

/* scripts/hosts.sh ARGS... for this test's hosts. */
static void hosts_sh(Run *r, const char *a, const char *b, const char *c)
{
    setenv("DPS_HOSTS", prefix, 1);
    run_program((char *[]){"scripts/hosts.sh", (char *)a, (char *)b, (char *)c, NULL}, r);
}

/* Make n hosts with unshaped links, or skip the test saying why there are none. */
static void hosts_up(int n)
{
    if (geteuid() != 0)
        cr_skip_test("test hosts need root (network namespaces, a bridge): run make test as root");
    if (!comm_mpi_available() || system("command -v mpirun >/dev/null 2>&1") != 0)
        cr_skip_test("no MPI in this build (NO_MPI=1 or mpicc/mpirun not found)");
    snprintf(prefix, sizeof prefix, "t%d", (int)(getpid() % 10000000));
    static Run r;
    char count[8];
    snprintf(count, sizeof count, "%d", n);
    hosts_sh(&r, "up", count, "none");
    if (r.status == 77)
        cr_skip_test("no test hosts here: %s", r.err);
    cr_assert(r.status == 0, "hosts.sh up %d: exit %d: %s", n, r.status, r.err);
}

/* After every test, pass or fail: whatever it made is taken down. */
static void hosts_cleanup(void)
{
    if (prefix[0]) {
        setenv("DPS_HOSTS", prefix, 1);
        if (system("scripts/hosts.sh down >/dev/null 2>&1") != 0)
            fprintf(stderr, "hosts.sh down failed for %s\n", prefix);
    }
}

/* Take the hosts down: nothing of them is left (namespaces, links, bridge). */
static void hosts_down(void)
{
    static Run r, left;
    hosts_sh(&r, "down", NULL, NULL);
    cr_assert(r.status == 0, "hosts.sh down: exit %d: %s", r.status, r.err);
    hosts_sh(&left, "left", NULL, NULL);
    cr_assert(left.status == 0 && left.out[0] == '\0', "after hosts.sh down, left: %s%s",
              left.out, left.err);
}

#define TRAIN_ARGS "--epochs", "2", "--train_size", "4096", "--device", "cpu"

/* 2 hosts x 2 ranks under mpirun: the hierarchy's ring crosses TCP between network
 * namespaces, its windows are MPI's within each; the weights are the forked ranks' bit for
 * bit (same algorithm, same order of additions), and the banner names the real hosts. */
Test(hosts, two_hosts_train_as_forked_ranks_do_bit_for_bit, .timeout = 180,
     .fini = hosts_cleanup)
{
    hosts_up(2);
    static Run a, b, d, col;
    char ha[20], hb[20], names[64];
    size_t last = 0;
    run_program((char *[]){"scripts/hosts.sh", "run", "2", "./train", "--transport", "mpi",
                           "--strategy", "hierarchical", TRAIN_ARGS, NULL}, &a);
    run_program((char *[]){"scripts/hosts.sh", "run", "2", "./train", "--transport", "mpi",
                           "--strategy", "direct", TRAIN_ARGS, NULL}, &d);
    run_program((char *[]){"scripts/hosts.sh", "run", "2", "./collectives", "--transport", "mpi",
                           "--op", "all_reduce_hierarchical", "-b", "4", "-e", "1M", "-f", "8",
                           "-n", "2", "-w", "1", NULL}, &col);
    run_program((char *[]){"./train", "--strategy", "hierarchical", "--n_gpus", "4",
                           "--ranks_per_host", "2", TRAIN_ARGS, NULL}, &b);
    hosts_down();
    cr_assert(col.status == 0, "./collectives --op all_reduce_hierarchical: exit %d: %s",
              col.status, col.err);
    cr_assert(table_rows(col.out, &last) == 7 && last == 1 << 20, "the table: %s", col.out);
    cr_assert(a.status == 0 && b.status == 0 && d.status == 0, "exit %d, %d, %d: %s %s %s",
              a.status, b.status, d.status, a.err, b.err, d.err);
    snprintf(names, sizeof names, "(%s-host1 .. %s-host2) x 2 rank(s)", prefix, prefix);
    cr_assert(strstr(a.out, names), "the banner does not say %s: %.300s", names, a.out);
    replicas_hash(&a, ha, sizeof ha);
    replicas_hash(&b, hb, sizeof hb);
    cr_assert_str_eq(ha, hb, "2 hosts: hash %s; forked ranks in hosts of 2: %s", ha, hb);
    cr_assert(strstr(d.out, "channel ring all-reduce, as some peers are on other hosts"),
              "--strategy direct on 2 hosts: %.300s", d.out);
}

/* A host with 3 ranks beside one with 1: the hierarchy refuses, naming both. */
Test(hosts, hosts_of_unequal_ranks_are_refused_by_name, .timeout = 120,
     .fini = hosts_cleanup)
{
    hosts_up(2);
    static Run a;
    char says[128];
    run_program((char *[]){"scripts/hosts.sh", "run", "3,1", "./train", "--transport", "mpi",
                           "--strategy", "hierarchical", TRAIN_ARGS, NULL}, &a);
    hosts_down();
    snprintf(says, sizeof says, "as many ranks on every host: %s-host1 has 3, %s-host2 has 1",
             prefix, prefix);
    cr_assert(a.status != 0, "3 + 1 ranks ran: %.300s", a.out);
    cr_assert(strstr(a.err, says), "stderr does not say '%s': %.600s", says, a.err);
}

/* Tear-down leaves nothing, even with a process still running on a host. */
Test(hosts, down_kills_what_runs_on_the_hosts_and_leaves_nothing, .timeout = 60,
     .fini = hosts_cleanup)
{
    hosts_up(2);
    char host[32];
    snprintf(host, sizeof host, "%s-host2", prefix);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        execlp("ip", "ip", "netns", "exec", host, "sleep", "300", (char *)NULL);
        _exit(127);
    }
    usleep(300 * 1000);
    cr_assert(kill(pid, 0) == 0, "the sleeper on %s did not start", host);
    hosts_down();
    int st;
    cr_assert(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
              "the process on %s was not killed by hosts.sh down", host);
}

/* ---------------------------------------------------------------- failure across hosts */

/* Processes running in any of this test's namespaces. */
static int processes_on_hosts(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "for n in $(ip netns list | awk '$1 ~ /^%s-/ {print $1}'); do ip netns pids $n; done "
             "| wc -l",
             prefix);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p && fscanf(p, "%d", &n) != 1)
        n = -1;
    if (p)
        pclose(p);
    return n;
}

/* The pid of a ./train running on host @p host, waiting for one (a bounded wait). */
static pid_t train_on(const char *host)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "for p in $(ip netns pids %s); do [ \"$(cat /proc/$p/comm 2>/dev/null)\" = train ] "
             "&& echo $p; done | head -1",
             host);
    for (int tries = 0; tries < 300; tries++) {
        FILE *p = popen(cmd, "r");
        int pid = 0;
        if (p && fscanf(p, "%d", &pid) != 1)
            pid = 0;
        if (p)
            pclose(p);
        if (pid > 0)
            return pid;
        usleep(100 * 1000);
    }
    cr_assert_fail("no ./train started on %s", host);
    return -1;
}

/* Start a long training on 2 hosts x 2 ranks with --timeout 2, its output in files. */
static pid_t start_long_run(char *out_path, char *err_path)
{
    int out = mkstemp(out_path), err = mkstemp(err_path);
    cr_assert(out >= 0 && err >= 0, "mkstemp failed");
    char *argv[] = {"scripts/hosts.sh", "run", "2", "./train", "--transport", "mpi", "--strategy",
                    "hierarchical", "--epochs", "100000", "--train_size", "4096", "--timeout",
                    "2", "--device", "cpu", NULL};
    setenv("DPS_HOSTS", prefix, 1);
    return spawn_dying_with_test(argv, out, err);
}

/* Wait for the run, read what it said on stderr into @p said, remove its files; then wait
 * (bounded) for every process on the hosts to end. Returns the run's status. */
static int end_of_run(pid_t pid, char *out_path, char *err_path, char *said, size_t cap)
{
    int st;
    cr_assert(waitpid(pid, &st, 0) == pid);
    FILE *f = fopen(err_path, "r");
    size_t n = f ? fread(said, 1, cap - 1, f) : 0;
    said[n] = '\0';
    if (f)
        fclose(f);
    unlink(out_path), unlink(err_path);
    int left = processes_on_hosts();
    for (int tries = 0; left != 0 && tries < 100; tries++) { /* a lost daemon's own give-up */
        usleep(100 * 1000);
        left = processes_on_hosts();
    }
    cr_assert(left == 0, "%d process(es) still run on the hosts after the run ended", left);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A rank killed on one host: mpirun ends the job, naming the rank and its host. */
Test(hosts, a_rank_killed_on_one_host_ends_the_run_naming_it, .timeout = 120,
     .fini = hosts_cleanup)
{
    hosts_up(2);
    char out_path[] = "/tmp/dps-hosts-out-XXXXXX", err_path[] = "/tmp/dps-hosts-err-XXXXXX";
    char host[32], said[8192];
    snprintf(host, sizeof host, "%s-host2", prefix);
    pid_t run = start_long_run(out_path, err_path);
    pid_t victim = train_on(host);
    usleep(500 * 1000); /* training, not starting */
    kill(victim, SIGKILL);
    int status = end_of_run(run, out_path, err_path, said, sizeof said);
    hosts_down();
    cr_assert(status != 0, "the run ended with status 0 after a rank was killed");
    cr_assert(strstr(said, "rank 2") || strstr(said, "rank 3"), "no rank named: %s", said);
    cr_assert(strstr(said, host), "%s not named: %s", host, said);
}

/* A host's link taken down: the ranks' watchdogs (--timeout) or the daemons' keepalives end
 * the job, naming the ranks and their hosts, or the lost host. */
Test(hosts, a_host_whose_link_goes_down_ends_the_run_naming_it, .timeout = 120,
     .fini = hosts_cleanup)
{
    hosts_up(2);
    char out_path[] = "/tmp/dps-hosts-out-XXXXXX", err_path[] = "/tmp/dps-hosts-err-XXXXXX";
    char host[32], said[8192];
    snprintf(host, sizeof host, "%s-host2", prefix);
    pid_t run = start_long_run(out_path, err_path);
    train_on(host);
    usleep(500 * 1000);
    static Run r;
    hosts_sh(&r, "link", host, "down");
    cr_assert(r.status == 0, "hosts.sh link %s down: %s", host, r.err);
    int status = end_of_run(run, out_path, err_path, said, sizeof said);
    hosts_down();
    cr_assert(status != 0, "the run ended with status 0 after a link went down");
    cr_assert(strstr(said, "made no progress") || strstr(said, "lost communication"),
              "no reason given: %s", said);
    cr_assert(strstr(said, " on ") && strstr(said, prefix), "no rank or host named: %s", said);
}
