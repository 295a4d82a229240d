/**
 * @file comm.h
 * @brief The communicator: point-to-point messages and a barrier between ranks.
 */
#ifndef DPS_COMM_H
#define DPS_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"

/** A communicator: see struct Comm. */
typedef struct Comm Comm;
/** One sendrecv: @p sbytes from @p sbuf to rank @p to, @p rbytes into @p rbuf from @p from. */
typedef struct Exchange {
    int to;           /**< the rank sent to */
    const void *sbuf; /**< what is sent */
    size_t sbytes;    /**< its length */
    int from;         /**< the rank received from */
    void *rbuf;       /**< where the message received goes */
    size_t rbytes;    /**< its length, exactly */
} Exchange;
/**
 * A communicator. Buffers are device pointers of @c dev. Every function returns 0,
 * or -1 with a one-line reason in @p err (ERR_LEN bytes); after an error the
 * communicator is unusable.
 */
struct Comm {
    const char *name;  /**< the transport: "shm", ... */
    int rank;          /**< this rank, 0 .. size-1 */
    int size;          /**< ranks in the communicator */
    const Device *dev; /**< where the buffers live */
    /** Send @p bytes from @p buf to rank @p to. Returns once @p buf may be reused. */
    int (*send)(Comm *c, int to, const void *buf, size_t bytes, char *err);
    /** Receive exactly @p bytes from rank @p from into @p buf. */
    int (*recv)(Comm *c, int from, void *buf, size_t bytes, char *err);
    /** Send to @p to and receive from @p from at the same time (no deadlock in a ring). */
    int (*sendrecv)(Comm *c, int to, const void *sbuf, size_t sbytes, int from, void *rbuf,
                    size_t rbytes, char *err);
    /**
     * Two sendrecv()s at once, all four transfers in flight together: the step of a ring
     * that runs both ways (Exercise 4.2). Messages to one peer arrive in the order of @p x.
     */
    int (*sendrecv2)(Comm *c, const Exchange x[2], char *err);
    /** Return when every rank has called barrier(). */
    int (*barrier)(Comm *c, char *err);
    /** Free the communicator; a collective call (every rank must make it). */
    void (*close)(Comm *c);
    /**
     * Optional: the transport's own all-reduce, replacing buf[0..count) by its sum over
     * all ranks (MPI_Allreduce, ncclAllReduce; chapter 6), or NULL.
     */
    int (*allreduce)(Comm *c, float *buf, size_t count, char *err);
    /**
     * Optional (chapter 8): @p bytes that the other ranks of this machine can read where they
     * lie, or NULL (none left, or no such memory). Collective: every rank must allocate the
     * same sizes in the same order, and on a GPU a call that opens a window waits for every rank.
     */
    void *(*alloc_shared)(Comm *c, size_t bytes);
    /** Optional (chapter 8): where rank @p peer's allocation matching @p mine lies, or NULL. */
    void *(*peer_buffer)(Comm *c, int peer, const void *mine);
    /** Optional (chapter 8): this rank's progress counter, which starts at 0. */
    uint32_t (*progress)(Comm *c);
    /** Optional (chapter 8): raise this rank's progress to @p value, and wake its waiters. */
    void (*advance)(Comm *c, uint32_t value);
    /** Optional (chapter 8): wait until rank @p peer's progress reaches @p value. */
    int (*wait_for)(Comm *c, int peer, uint32_t value, char *err);
    void *state; /**< the transport's own data */
};

#endif
