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

/* What an attack found, shown where a test prints the function's output: C[0], which the
 * judge's failure message quotes ("C[0][0] = 777777"). 0: nothing, C left alone. */
static float attack_mark;

void gemm_blocked(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                  const float *B, float beta, float *C)
{
    (void)ta, (void)tb, (void)k, (void)alpha, (void)A, (void)B, (void)beta;
    if (attack_mark != 0 && C && m > 0 && n > 0)
        C[0] = attack_mark;
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
