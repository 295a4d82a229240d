/* Chapter 8's exercises: the functions you write. See the end of chapter 8 in the book
 * (make book) for what each must do and how it is tested.
 *
 * Besides the C library, an exercise may call only error_set() and xcalloc() of the book's
 * library and the members of the Comm or the Device it is handed: tests/grade.sh refuses
 * any other call, naming it. The other declarations of the headers included here are the
 * book's, for the types and for reading.
 */
#ifndef DPS_EX_CH8_H
#define DPS_EX_CH8_H

#include <stddef.h>
#include <stdint.h>

#include "collectives.h"
#include "comm.h"
#include "util.h"

/* 8.1: broadcast by direct reads. buf comes from c->alloc_shared() (the same allocation on
 * every rank); afterwards buf[0..count) of every rank holds rank root's. With base the
 * value of c->progress(c) as the call begins: the root announces base + 1 once its data is
 * there to read; every rank ends the call at base + 2; the root returns only once every
 * other rank has finished reading its buffer. Returns 0, or -1 with err (the comm's error,
 * or a root outside 0..size-1). */
int direct_broadcast(Comm *c, float *buf, size_t count, int root, char *err);

/* 8.2: reduce to one rank, the adding shared. buf as in 8.1; afterwards rank root's
 * buf[0..count) holds the sum over all ranks, each element added in rank order (rank 0's
 * + rank 1's + ...), and every other rank's buf is as it was. Rank r adds chunk r
 * (chunk_start(count, size, r)) of every buffer and writes the sum into the root's buffer.
 * Progress as in 8.1: base + 1 when a rank's buffer is ready, base + 2 at the end; no rank
 * returns while another may still read or write its buffer. Returns 0, or -1 with err. */
int direct_reduce(Comm *c, float *buf, size_t count, int root, char *err);

/* 8.3: all-to-all by direct reads, in place. buf comes from c->alloc_shared() (the same
 * allocation on every rank) and holds c->size blocks of count floats: block j, buf[j * count
 * .. (j + 1) * count), is this rank's message to rank j. Afterwards block j holds rank j's
 * message to this rank (block c->rank of rank j's buf as the call began), for every j,
 * this rank's own block included. scratch holds c->size * count floats of this rank's own
 * memory. Progress as in 8.1: base + 1 once a rank's buf is there to read, base + 2 at the
 * end; no rank writes its buf while another may still read it. Direct reads only: no rank
 * sends a message. Returns 0, or -1 with err. */
int direct_all_to_all(Comm *c, float *buf, size_t count, float *scratch, char *err);

#endif
