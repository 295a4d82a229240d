/**
 * @file buckets.h
 * @brief DDP-style gradient buckets, all-reduced while backward goes on (chapter 6).
 */
#ifndef DPS_BUCKETS_H
#define DPS_BUCKETS_H

#include <stdbool.h>
#include <stddef.h>

#include "comm.h"
#include "comm_queue.h"
#include "model.h"
#include "train.h"
#include "util.h"

/** The first bucket closes at this many bytes (PyTorch DDP's first_bucket_bytes). */
#define FIRST_BUCKET_BYTES ((size_t)1 << 20)

/**
 * Assign @p n_layers layers of layer_floats[l] parameters to buckets as DDP does: layers
 * from the last to the first; a bucket closes as soon as it holds at least its cap in bytes
 * (@p first_cap for the first bucket, @p cap for the others); a layer is never split.
 * Writes bucket_of[l] (bucket 0 holds the last layer) and returns the number of buckets.
 */
int bucket_assign(const size_t *layer_floats, int n_layers, size_t cap, size_t first_cap,
                  int *bucket_of);

/** One bucket: a slice of the flat gradient buffer. */
typedef struct Bucket {
    size_t lo;    /**< first float of the slice */
    size_t hi;    /**< one past its last */
    int ready_at; /**< the layer whose gradients complete it (its lowest) */
} Bucket;

/** The bucketed strategy's data: the buckets, and the queue that all-reduces them. */
typedef struct BucketState {
    Comm *c;                   /**< the communicator of the gradients */
    Comm *host;                /**< host memory beside it, for the epoch's figures */
    Model *m;                  /**< whose gradients */
    float *scratch;            /**< the ring's scratch, for the largest bucket */
    int n;                     /**< buckets */
    Bucket bucket[MAX_LAYERS]; /**< in the order they are sent */
    int posted;                /**< buckets of this step posted to the queue */
    CommQueue q;               /**< the communication thread */
} BucketState;

/**
 * Make @p s the bucketed ring strategy over @p c and @p host for @p m, with buckets of at
 * most @p cap_bytes (the first at most FIRST_BUCKET_BYTES), and start its thread.
 * Returns 0, or -1 with @p err.
 */
int bucket_strategy(Strategy *s, BucketState *st, Comm *c, Comm *host, Model *m,
                    size_t cap_bytes, char *err);
/** Stop the thread and free what bucket_strategy() allocated. */
void bucket_strategy_free(BucketState *st);

#endif
