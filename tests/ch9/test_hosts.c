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
Test(hosts, two_hosts_train_as_forked_ranks_do_bit_for_bit, .timeout = 180)
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
Test(hosts, hosts_of_unequal_ranks_are_refused_by_name, .timeout = 120)
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
Test(hosts, down_kills_what_runs_on_the_hosts_and_leaves_nothing, .timeout = 60)
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
