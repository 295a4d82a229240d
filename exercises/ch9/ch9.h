/* Chapter 9's exercises: the functions you write. See the end of chapter 9 in the book
 * (make book) for what each must do and how it is tested.
 *
 * Besides the C library, an exercise may call only error_set() and xcalloc() of the book's
 * library, the members of the Comm or the Device it is handed, and, for the exercise a
 * "may call: NAME:" line below names, the functions that line lists (no other exercise may
 * call them): tests/grade.sh refuses any other call, naming it. The other declarations of
 * the headers included here are the book's, for the types and for reading.
 * may call: torus_all_reduce: comm_view ring_reduce_scatter ring_all_gather ring_all_reduce
 */
#ifndef DPS_EX_CH9_H
#define DPS_EX_CH9_H

#include <stddef.h>

#include "collectives.h"
#include "comm.h"
#include "comm_view.h"
#include "util.h"

/* 9.1: the all-reduce of small buffers across hosts, where a message's latency is all it
 * costs and a message between hosts costs far more than one within a host. c's N ranks are
 * on H = N / L hosts of L consecutive ranks (the host of rank r is r / L). Afterwards every
 * rank's buf holds the sum over all ranks of buf[0..count), the same bits on every rank, and
 *   - at most 2 (H - 1) messages in all have crossed between hosts, each of at most count
 *     floats;
 *   - no rank is more than 2 (ceil(log2 L) + ceil(log2 H)) steps deep, where a rank's steps
 *     start at 0, each message it sends adds one and carries the new count, and each it
 *     receives raises its count to the one it carries, if that is higher (so a rank that
 *     sends k messages one after another spends k steps; a sendrecv's send is one).
 * (A buffer of no floats needs no message.) buf and scratch hold count floats on c's device.
 * Returns 0, or -1 with err: L below 1 or not dividing c->size, refused before anything is
 * sent with "host" in err; or the comm's error. */
int tree_all_reduce(Comm *c, int L, float *buf, size_t count, float *scratch, char *err);

/* 9.2: the 2-D all-reduce of a grid of ranks, over messages only: `rows` rows of
 * C = c->size / rows ranks, rank = row * C + col. 1. Each row reduce-scatters buf by a ring
 * of its C ranks in column order: the rank in column col ends with the row's sum of chunk
 * col, [chunk_start(count, C, col), chunk_start(count, C, col + 1)). 2. Each column
 * all-reduces that chunk by a ring of its rows' ranks in row order. 3. Each row all-gathers
 * the chunks. A rank sends only to the ranks next to it in its row (columns col +- 1 mod C)
 * and in its column (rows row +- 1 mod rows), and at most 2 (C - 1) chunk_max(count, C)
 * floats along its row and 2 (rows - 1) chunk_max(chunk_max(count, C), rows) floats down
 * its column. Afterwards every rank's buf holds the sum over all ranks. comm_view() and the
 * book's ring collectives (collectives.h) may serve. buf and scratch hold count floats.
 * Returns 0, or -1 with err: the comm's error, or rows below 1 or not dividing c->size,
 * refused before anything is sent, with "rows" in err. */
int torus_all_reduce(Comm *c, int rows, float *buf, size_t count, float *scratch, char *err);

/* 9.3: the all-reduce of ranks in hosts of unequal sizes (nodes, here). The ranks are grouped
 * into n_nodes nodes of consecutive ranks: node 0 holds the first node_sizes[0] ranks, node 1
 * the next node_sizes[1], and so on; the sizes sum to c->size. Within a node, ranks read each
 * other's buffers (c->peer_buffer of ranks of the same node only; c->progress, c->advance and
 * c->wait_for tell when a buffer or a chunk is ready to read, as in chapter 8); between nodes
 * they send messages (c->sendrecv, c->send, c->recv), and only to ranks that own a chunk they
 * own. The chunks: G = the largest node's size, chunk k (0 <= k < G) is [chunk_start(count, G,
 * k), chunk_start(count, G, k + 1)); in a node of size s, local rank l (rank - the node's
 * first rank) owns the chunks k with k % s == l. Afterwards every rank's buf holds the sum
 * over all ranks; no rank returns while a peer may still read its buffer. buf comes from
 * c->alloc_shared() (the same allocation on every rank); scratch holds count floats of this
 * rank's own memory. Returns 0, or -1 with err: the comm's error, or node sizes that are not a
 * layout of the ranks (no node, a size below 1 or above DEVICE_MAX_SOURCES, sizes that do not
 * sum to c->size), refused before anything is read or sent, with "node" in err. */
int unequal_hosts_all_reduce(Comm *c, const int *node_sizes, int n_nodes, float *buf,
                             size_t count, float *scratch, char *err);

#endif
