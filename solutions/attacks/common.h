/* What the attacks of make autograder-check share (solutions/attacks/, each a gemm_blocked.c
 * that does nothing and attacks from a constructor: chapter 1's first exercise, so that
 * every later exercise shows what the attack did to the grading): the empty function,
 * and a detached process that outlives its test, named dps-attack so that the check can
 * count what is left. Each attack is its own file, compiled alone: this header is pasted in
 * by the check (the autograder takes only the exercise's file). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ch1.h"

/* What an attack found, shown where a test prints the function's output: its result, which
 * the judge's failure message quotes ("gemm_blocked(f, 1, 1, 1) = 777777, expected 0"). 0:
 * nothing (the machine is left alone, so C is wrong and the test fails all the same). */
static int attack_mark;

/* An attack that acts during the call, not only in its constructor, sets this. */
static void (*attack_during)(int m, int n, int k);

int gemm_blocked(Fast *f, int m, int n, int k)
{
    (void)f;
    if (attack_during)
        attack_during(m, n, k);
    return attack_mark;
}

/* Fork a process that no one waits for (a double fork, its own session), named dps-attack;
 * returns 1 in it, 0 in the caller. */
__attribute__((unused)) static int detached(void)
{
    pid_t p = fork();
    if (p < 0)
        return 0;
    if (p > 0) {
        int st;
        while (waitpid(p, &st, 0) < 0 && errno == EINTR)
            ;
        return 0;
    }
    setsid();
    if (fork() != 0)
        _exit(0);
    prctl(PR_SET_NAME, "dps-attack");
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    return 1;
}
