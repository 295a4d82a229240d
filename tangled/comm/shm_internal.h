/**
 * @file shm_internal.h
 * @brief The shared-memory transport's own header (chapters 2, 8): what its files share.
 *        Programs see comm_shm.h.
 */
#ifndef DPS_SHM_INTERNAL_H
#define DPS_SHM_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include "comm_shm.h"
#include "launch.h"

/** Align to a cache line, so that counters written by different ranks do not share one. */
#define LINE 64
/** Copy @p n bytes; memcpy on the CPU, the device's peer_copy on a GPU. */
typedef void (*CopyFn)(void *dst, const void *src, size_t n);

/** The two counters of a ring; the bytes live elsewhere. */
typedef struct RingCtl {
    _Alignas(LINE) _Atomic uint32_t tail; /**< bytes ever written; moved by the sender */
    _Alignas(LINE) _Atomic uint32_t head; /**< bytes ever read; moved by the receiver */
} RingCtl;

/** A channel src -> dst: a ring in shared memory, and one in GPU memory for CUDA payloads. */
typedef struct ChannelCtl {
    RingCtl host; /**< headers, and on the CPU the payloads */
    RingCtl dev;  /**< payloads of device messages (CUDA) */
} ChannelCtl;

/** A rank's doorbell: rung by whoever changes a channel the rank waits on. */
typedef struct Bell {
    _Alignas(LINE) _Atomic uint32_t seq; /**< bumped at every ring */
    _Atomic uint32_t sleeping;           /**< nonzero while the owner sleeps on seq */
} Bell;

/** Everything the ranks share. Followed in the mapping by channels, handles and rings. */
struct ShmWorld {
    int size;          /**< ranks */
    size_t host_bytes; /**< capacity of each shared-memory ring */
    size_t dev_bytes;  /**< capacity of each GPU ring */
    double timeout;    /**< seconds before a wait gives up */
    size_t map_bytes;  /**< size of the whole mapping */
    size_t ctl_at;     /**< offset of the ChannelCtl array [src][dst] */
    size_t ipc_at;     /**< offset of the IPC handles [src][dst] */
    size_t ring_at;    /**< offset of the rings [src][dst] */
    _Alignas(LINE) _Atomic uint32_t bar_arrived;  /**< ranks in the current barrier */
    _Alignas(LINE) _Atomic uint32_t bar_gen;      /**< barriers completed */
    _Atomic uint32_t bar_sleepers;                /**< ranks asleep on bar_gen */
    _Atomic uint32_t bar_count[LAUNCH_MAX_RANKS]; /**< barriers each rank has entered */
    Bell bell[LAUNCH_MAX_RANKS];                  /**< one doorbell per rank */
    unsigned char *window; /**< the windows, one per rank, made before the fork (chapter 8) */
    size_t window_bytes;   /**< bytes of each */
    int window_fd;         /**< the memory file behind them, or -1 */
    struct {
        _Alignas(LINE) _Atomic uint32_t value; /**< steps the rank has announced */
    } progress[LAUNCH_MAX_RANKS];              /**< each rank's progress counter (chapter 8) */
};

/** What one rank keeps: the Comm it hands out, and where its rings are. */
typedef struct ShmComm {
    Comm comm;                      /**< the interface; first, so a Comm * is a ShmComm * */
    ShmWorld *w;                    /**< the shared world */
    int spin;                       /**< polls before sleeping (0 when ranks outnumber cores) */
    void *dev_in[LAUNCH_MAX_RANKS]; /**< GPU ring of channel src -> me, by src (mine) */
    void *dev_out[LAUNCH_MAX_RANKS]; /**< GPU ring of channel me -> dst, by dst (opened) */
    uint64_t mapped_out;             /**< channels to peers whose ring pages are mapped in */
    uint64_t mapped_in;              /**< channels from peers whose ring pages are mapped in */
    /** Bytes handed out of each of the rank's windows (the CPU has one; chapter 8). */
    size_t window_used[SHM_DEVICE_WINDOWS];
    /** On a GPU, the windows opened so far; none until the first request. */
    int dev_windows;
    /** On a GPU, every rank's window @c k as this process maps it, at [k][rank]. */
    unsigned char *dev_window[SHM_DEVICE_WINDOWS][LAUNCH_MAX_RANKS];
    /** On a GPU, the bytes of window @c k (sized by the request that opened it). */
    size_t dev_window_bytes[SHM_DEVICE_WINDOWS];
} ShmComm;
#ifndef MADV_POPULATE_WRITE
/** madvise(): fault the pages in as a write would (Linux 5.14; older headers lack it). */
#define MADV_POPULATE_WRITE 23
#endif

/** The counters of the channel @p src -> @p dst. */
ChannelCtl *shm_channel(ShmWorld *w, int src, int dst);
/** The shared-memory ring of the channel @p src -> @p dst. */
unsigned char *shm_host_ring(ShmWorld *w, int src, int dst);
/** The IPC handle's slot of the channel @p src -> @p dst (of a rank's window when equal). */
unsigned char *shm_ipc_slot(ShmWorld *w, int src, int dst);
/** @p n rounded up to a multiple of @p to. */
size_t shm_round_up(size_t n, size_t to);

/** Copy up to @p n bytes from @p src into the ring; returns how many went in. */
size_t shm_ring_push(RingCtl *r, unsigned char *base, size_t cap, const unsigned char *src,
                     size_t n, CopyFn copy);
/** Copy up to @p n bytes out of the ring into @p dst; returns how many came out. */
size_t shm_ring_pop(RingCtl *r, const unsigned char *base, size_t cap, unsigned char *dst,
                    size_t n, CopyFn copy);
/** Ring rank @p rank's doorbell: wake it if it sleeps. */
void shm_ring_bell(ShmWorld *w, int rank);
/**
 * Wait until @p word moves from @p seen: spin @p spin polls, then sleep, counted in
 * @p sleepers so that whoever moves the word knows to wake us. Returns 0, or -1 at the
 * deadline. The doorbells and the barrier both wait with it.
 */
int shm_wait_change(_Atomic uint32_t *word, uint32_t seen, _Atomic uint32_t *sleepers, int spin,
                    double deadline);
/** Wait until my doorbell moves from @p seen; returns 0, or -1 at the deadline. */
int shm_wait_bell(ShmComm *c, uint32_t seen, double deadline);
/** The communicator's barrier (comm.h). */
int shm_barrier(Comm *comm, char *err);

/** Whether the communicator's buffers are on a device other than the CPU. */
bool shm_on_device(const ShmComm *c);
/** The communicator's send (comm.h). */
int shm_send(Comm *comm, int to, const void *buf, size_t bytes, char *err);
/** The communicator's recv (comm.h). */
int shm_recv(Comm *comm, int from, void *buf, size_t bytes, char *err);
/** The communicator's sendrecv (comm.h). */
int shm_sendrecv(Comm *comm, int to, const void *sbuf, size_t sbytes, int from, void *rbuf,
                 size_t rbytes, char *err);
/** The communicator's sendrecv2 (comm.h). */
int shm_sendrecv2(Comm *comm, const Exchange x[2], char *err);

/** On a GPU, allocate the rings this rank reads, export them, and open those it writes. */
int shm_open_device_rings(ShmComm *c, char *err);
/** Allocate this rank's next window on its device, export it, and open every peer's. */
int shm_open_device_windows(ShmComm *c, char *err);

/** The communicator's alloc_shared (comm.h, chapter 8). */
void *shm_alloc_shared(Comm *comm, size_t bytes);
/** The communicator's peer_buffer (comm.h, chapter 8). */
void *shm_peer_buffer(Comm *comm, int peer, const void *mine);
/** The communicator's progress (comm.h, chapter 8). */
uint32_t shm_progress(Comm *comm);
/** The communicator's advance (comm.h, chapter 8). */
void shm_advance(Comm *comm, uint32_t value);
/** The communicator's wait_for (comm.h, chapter 8). */
int shm_wait_for(Comm *comm, int peer, uint32_t value, char *err);

#endif
