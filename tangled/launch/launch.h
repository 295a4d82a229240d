/**
 * @file launch.h
 * @brief Start N ranks as processes, supervise them, stop all when one fails.
 */
#ifndef DPS_LAUNCH_H
#define DPS_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/** Most ranks one launch starts. */
#define LAUNCH_MAX_RANKS 64

/**
 * The function each rank runs: returns 0, or -1 with a one-line reason in @p err
 * (ERR_LEN bytes). It runs in its own process; whatever it allocates dies with it.
 */
typedef int (*RankMain)(int rank, int size, void *arg, char *err);

/**
 * Fork @p size ranks, each running @p rank_main(rank, size, arg, err), and wait for all.
 * Returns 0 when every rank returned 0. Otherwise stops the others (SIGTERM, then SIGKILL
 * a second later) and returns -1 with one line in @p err naming the first rank that
 * failed, its error, exit status or signal, and its phase. With @p limit_s > 0, ranks
 * still running after @p limit_s seconds are stopped the same way.
 */
int launch(int size, RankMain rank_main, void *arg, double limit_s, char *err);
/** In a rank: say what it is doing now ("recv from rank 1"), for messages about it. */
__attribute__((format(printf, 1, 2))) void launch_phase(const char *fmt, ...);
/** Copy the phase of rank @p rank into @p buf (len bytes); "?" outside a launch. */
void launch_phase_of(int rank, char *buf, size_t len);
/**
 * In a rank: it runs. A new phase counts, and the transports call it as they wait,
 * so that a rank that stops (SIGSTOP, swapped out, wedged) is the one whose count
 * stands still.
 */
void launch_alive(void);
/** In a rank: from now on it waits for rank @p peer (-1: for no one). */
void launch_waiting(int peer);
/** This process's rank, or -1 outside a launched rank. */
int launch_rank(void);
/** Whether process @p pid is stopped by a signal (the launcher names such a rank first). */
bool launch_stopped(pid_t pid);
/**
 * In a rank that another program started (mpirun; chapter 9): record this process's phases
 * and progress as a launched rank's, and end it, naming @p who and its phase, once it makes
 * no progress for @p timeout_s seconds.
 */
void launch_watch(int rank, double timeout_s, const char *who);

#endif
