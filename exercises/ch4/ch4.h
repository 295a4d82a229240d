/* Chapter 4's exercises: the functions you write. See the end of chapter 4 in the book
 * (make book) for what each must do and how it is tested.
 *
 * Besides the C library, an exercise may call only error_set() and xcalloc() of the book's
 * library and the members of the Comm or the Device it is handed: tests/grade.sh refuses
 * any other call, naming it. The other declarations of the headers included here are the
 * book's, for the types and for reading.
 */
#ifndef DPS_EX_CH4_H
#define DPS_EX_CH4_H

#include <stddef.h>

#include "collectives.h"
#include "comm.h"
#include "util.h"

/* 4.1: share-reduce with chunks of given sizes: chunk k is counts[k] elements starting at
 * counts[0] + ... + counts[k-1]; afterwards rank r's chunk r of buf holds its sum over all
 * ranks. scratch holds the largest counts[k] floats. Both on c's device.
 * Returns 0, or -1 with the comm's error in err. */
int ring_reduce_scatter_v(Comm *c, float *buf, const size_t *counts, float *scratch,
                          char *err);

/* 4.2: share-reduce on a bidirectional ring: chunk k (chunk_start) is cut at
 * m_k = s_k + (s_{k+1} - s_k) / 2; the first halves travel as in the book (to rank r+1),
 * the second halves the other way (to rank r-1). Afterwards rank r's chunk r holds its sum.
 * scratch holds chunk_max(count, N) floats. Returns 0, or -1 with the comm's error. */
int ring_reduce_scatter_bidir(Comm *c, float *buf, size_t count, float *scratch, char *err);

/* 4.3: share-reduce without a ring: in step t = 1..N-1 rank r sends its chunk (r+t) mod N
 * straight to rank (r+t) mod N and adds the chunk r it receives from rank (r-t) mod N.
 * scratch holds chunk_max(count, N) floats. Returns 0, or -1 with the comm's error. */
int direct_reduce_scatter(Comm *c, float *buf, size_t count, float *scratch, char *err);

#endif
