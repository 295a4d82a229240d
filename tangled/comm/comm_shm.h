/**
 * @file comm_shm.h
 * @brief The shared-memory transport: the world made before the fork, and a rank's
 *        communicators over it (chapters 2, 8).
 */
#ifndef DPS_COMM_SHM_H
#define DPS_COMM_SHM_H

#include <stddef.h>

#include "comm.h"

/** The shared-memory world of a run: made before the fork, shared by every rank. */
typedef struct ShmWorld ShmWorld;

/** Bytes of each channel's ring in shared memory, unless asked otherwise. */
#define SHM_CHANNEL_BYTES (1u << 20)
/** Bytes of each channel's ring in GPU memory (CUDA), unless asked otherwise. */
#define SHM_DEVICE_CHANNEL_BYTES (32u << 20)
/** Bytes of each rank's window of memory its peers can read (chapter 8). */
#define SHM_WINDOW_BYTES ((size_t)1 << 30)
/** The least bytes of a window on a GPU, whose request sizes it (chapter 8). */
#define SHM_DEVICE_WINDOW_MIN ((size_t)64 << 20)
/** The most windows a rank opens on a GPU, one more each time a request does not fit. */
#define SHM_DEVICE_WINDOWS 8
#ifndef DPS_YIELD_POLLS
/** Yields before a wait sleeps when ranks outnumber cores (chapter 8; make bench builds a
 * copy with 0, to measure what they buy). */
#define DPS_YIELD_POLLS 200
#endif

/**
 * Make the shared memory of a run of @p size ranks, before forking them. Each ordered
 * pair of ranks gets a channel of @p channel_bytes (a power of two, at least 64;
 * 0 for SHM_CHANNEL_BYTES). Ranks wait @p timeout_s seconds for a peer, then fail.
 * Returns NULL with the reason in @p err.
 */
ShmWorld *shm_world_create(int size, size_t channel_bytes, double timeout_s, char *err);
/** Unmap the world (in the parent, after the ranks have ended). */
void shm_world_destroy(ShmWorld *w);
/**
 * In rank @p rank, the communicator over @p w for buffers on @p dev. A collective call
 * on the CUDA device (the ranks exchange IPC handles). Returns NULL with @p err.
 */
Comm *comm_shm_open(ShmWorld *w, int rank, const Device *dev, char *err);
/**
 * The communicator for small host-memory messages beside @p c (figures, timings): @p c
 * itself when its buffers are on the CPU, else a second one over the same world. Close
 * it only when it is not @p c. NULL with @p err.
 */
Comm *comm_shm_host(Comm *c, char *err);

#endif
