/* Chapter 5's exercises: the functions you write. See the end of chapter 5 in the book
 * (make book) for what each must do and how it is tested.
 *
 * Besides the C library, an exercise may call only error_set() and xcalloc() of the book's
 * library and the members of the Comm or the Device it is handed: tests/grade.sh refuses
 * any other call, naming it. The other declarations of the headers included here are the
 * book's, for the types and for reading.
 */
#ifndef DPS_EX_CH5_H
#define DPS_EX_CH5_H

#include <stddef.h>

#include "collectives.h"
#include "comm.h"
#include "util.h"

/* 5.1: share-only with chunks of given sizes: chunk k is counts[k] elements starting at
 * counts[0] + ... + counts[k-1]; rank r's chunk r of buf is copied into the same place on
 * every rank. Returns 0, or -1 with the comm's error in err. */
int ring_all_gather_v(Comm *c, float *buf, const size_t *counts, char *err);

/* 5.2: Rabenseifner's all-reduce (the sum) for N a power of two: recursive halving (in
 * step j = 0..log2 N - 1, exchange half of your current range with rank r XOR (N >> (j+1))
 * and add), then recursive doubling back. scratch holds chunk_max(count, 2) floats.
 * Returns 0, or -1 with a message when N is not a power of two or the comm fails. */
int rabenseifner_all_reduce(Comm *c, float *buf, size_t count, float *scratch, char *err);

/* 5.3: the all-reduce everyone writes first: every rank sends its whole buffer to every
 * other rank, and each adds the N buffers in rank order, x_0 + x_1 + ... + x_{N-1}, so all
 * ranks hold the same bits. scratch holds N * count floats. Returns 0, or -1 with err. */
int naive_all_reduce(Comm *c, float *buf, size_t count, float *scratch, char *err);

#endif
