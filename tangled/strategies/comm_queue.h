/**
 * @file comm_queue.h
 * @brief A thread that runs a rank's collectives in the order they are posted (chapter 6).
 */
#ifndef DPS_COMM_QUEUE_H
#define DPS_COMM_QUEUE_H

#include <pthread.h>
#include <stdbool.h>

#include "device.h"
#include "util.h"

/** What a queue's thread runs: operation @p kind on @p item, for its owner's @p state. */
typedef int (*QueueWork)(void *state, int kind, int item, char *err);
/** Operations posted and not yet finished, at most. */
#define QUEUE_SLOTS 64

/** A queue of operations that one thread runs in order. */
typedef struct CommQueue {
    const Device *dev;        /**< the rank's device, which the thread binds to */
    QueueWork work;           /**< what runs each operation */
    const char *const *names; /**< what each kind is called on the timeline (appendix A) */
    void *state;              /**< handed to work */
    int kind[QUEUE_SLOTS];    /**< operation k's kind is in slot k % QUEUE_SLOTS */
    int item[QUEUE_SLOTS];    /**< and its item */
    long posted;              /**< operations posted */
    long done;                /**< operations finished */
    bool stop;                /**< the thread must end */
    bool failed;              /**< an operation failed: see err */
    char err[ERR_LEN];        /**< why */
    double busy;              /**< seconds the thread spent working */
    double exposed;           /**< seconds the training thread waited for it */
    pthread_t thread;         /**< the thread */
    pthread_mutex_t mu;       /**< guards the counters and the slots */
    pthread_cond_t cv;        /**< signals a post, a finish and stop */
} CommQueue;

/**
 * Start @p q's thread on @p dev to run @p work(state, kind, item); @p names[kind] names an
 * operation on the timeline. 0, or -1 with @p err.
 */
int queue_start(CommQueue *q, const Device *dev, QueueWork work, void *state,
                const char *const *names, char *err);
/** Post operation @p kind on @p item; returns its sequence number, for queue_wait(). */
long queue_post(CommQueue *q, int kind, int item);
/** Wait until operation @p seq (-1: none) has finished. 0, or -1 with the first failure. */
int queue_wait(CommQueue *q, long seq, char *err);
/** Wait until every operation posted has finished. 0, or -1 with the first failure. */
int queue_drain(CommQueue *q, char *err);
/** Stop the thread (after the operations it is running) and free the queue. */
void queue_stop(CommQueue *q);

#endif
