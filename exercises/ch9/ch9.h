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

/* 9.1: the all-reduce of a binomial tree, for the small buffers where a ring's 2(N-1)
 * latency-bound steps lose. First a reduce to rank 0: in round k = 0, 1, ... (while
 * 2^k < N), a rank r whose bits below k are all zero either has bit k set, and then sends
 * its buf (its partial sum) to rank r - 2^k and leaves the reduce, or receives from rank
 * r + 2^k, if that is a rank, into scratch and adds it to its buf. Then a broadcast back
 * down the same tree: every rank but 0 receives the sum into buf from the rank it sent to,
 * and every rank sends buf to each rank it received from. Every message is count floats;
 * a rank sends only to those ranks, once each. Afterwards every rank holds the bits of
 * rank 0's sum. buf and scratch hold count floats on c's device. Returns 0, or -1 with the
 * comm's error in err. */
int tree_all_reduce(Comm *c, float *buf, size_t count, float *scratch, char *err);

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
