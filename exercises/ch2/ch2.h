/* Chapter 2's exercises: the functions you write. See the end of chapter 2 in the book
 * (make book) for what each must do and how it is tested. The tests run them on the CPU.
 *
 * Besides the C library, an exercise may call only error_set() and xcalloc() of the book's
 * library and the members of the Comm or the Device it is handed: tests/grade.sh refuses
 * any other call, naming it. The other declarations of the headers included here are the
 * book's, for the types and for reading.
 */
#ifndef DPS_EX_CH2_H
#define DPS_EX_CH2_H

#include <stdatomic.h>
#include <stddef.h>

#include "comm.h"
#include "util.h"

/* 2.1: a barrier on C11 atomics that any number of processes sharing *b may call,
 * again and again. *b starts as {count = n, sense = 0, n = n}; each rank keeps its own
 * *local_sense, which starts at 0. Returns when all n ranks have called it. */
typedef struct SenseBarrier {
    _Atomic int count; /* ranks still to arrive in this round */
    _Atomic int sense; /* flips when a round completes */
    int n;             /* ranks */
} SenseBarrier;
void sense_barrier_wait(SenseBarrier *b, int *local_sense);

/* 2.2: a barrier made of messages only (c's sendrecv, send, recv), in ceil(log2 N) rounds:
 * in round k rank r signals rank r + 2^k and waits for rank r - 2^k (mod N).
 * Returns 0, or -1 with the comm's error in err. */
int barrier_dissemination(Comm *c, char *err);

/* 2.3: copy `bytes` of buf on rank `root` into buf on every rank, along a binomial tree:
 * no rank sends more than ceil(log2 N) messages and the last rank has the data after
 * ceil(log2 N) rounds. Returns 0, or -1 with the comm's error in err. */
int broadcast_tree(Comm *c, int root, void *buf, size_t bytes, char *err);

#endif
