/**
 * @file checkpoint.h
 * @brief Checkpoints: a run's weights and position, written atomically, checked when read.
 */
#ifndef DPS_CHECKPOINT_H
#define DPS_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "rng.h"

/** The first 8 bytes of every checkpoint. */
#define CKPT_MAGIC "DPSCKPT\n"
/** The format version this code writes and reads. */
#define CKPT_VERSION 1
/** Bytes before the parameters. */
#define CKPT_HEADER 136

/** A checkpoint in memory: the header's fields and the parameters. */
typedef struct Checkpoint {
    int n_layers;              /**< L: linear layers */
    int width[MAX_LAYERS + 1]; /**< width[0] inputs ... width[L] classes; zeros after */
    int epoch;                 /**< epochs finished */
    int epochs;                /**< epochs the run that wrote it was asked for */
    uint64_t seed;             /**< --seed: data, initial weights, shuffles */
    uint64_t global_batch;     /**< samples per step over all ranks */
    uint64_t n_train;          /**< training samples per epoch */
    float lr;                  /**< the learning rate */
    Rng rng;                   /**< the generator that shuffles epoch epoch+1 */
    size_t n_params;           /**< floats in params */
    float *params;             /**< the weights in host memory; NULL: no checkpoint */
} Checkpoint;

/** Bytes of a checkpoint file of @p n_params parameters. */
size_t checkpoint_bytes(size_t n_params);
/** Write @p ck into @p buf of checkpoint_bytes(ck->n_params) bytes, checksum included. */
void checkpoint_encode(const Checkpoint *ck, unsigned char *buf);
/**
 * Save @p ck to @p path atomically: a temporary file beside it, written, flushed to the
 * disk, then renamed over @p path. Returns 0, or -1 with the reason in @p err, leaving
 * what was at @p path untouched.
 */
int checkpoint_write(const char *path, const Checkpoint *ck, char *err);
/** Whether @p path can take a checkpoint (its directory exists and is writable). */
int checkpoint_writable(const char *path, char *err);
/**
 * Read the checkpoint in @p buf[0..len) (@p name names it in messages) into @p ck, whose
 * params it allocates. Returns 0, or -1 with the reason in @p err and @p ck zeroed.
 */
int checkpoint_parse(const unsigned char *buf, size_t len, const char *name, Checkpoint *ck,
                     char *err);
/** checkpoint_parse() of the file at @p path. */
int checkpoint_load(const char *path, Checkpoint *ck, char *err);
/**
 * Whether the run described by @p want (its header fields; params unused) may go on from
 * @p ck: the same model, seed, global batch, training set and learning rate, and epochs
 * left to train. Returns 0, or -1 with the difference in @p err.
 */
int checkpoint_match(const Checkpoint *ck, const Checkpoint *want, const char *name, char *err);
/** Load @p ck's weights into @p m, whose shape must be ck's. Returns 0, or -1 with @p err. */
int checkpoint_restore(const Checkpoint *ck, Model *m, char *err);
/** One line describing @p ck: model, epoch, seed, batch, data, lr. */
void checkpoint_describe(const Checkpoint *ck, char *buf, size_t len);
/** Free @p ck's parameters and zero it. */
void checkpoint_free(Checkpoint *ck);
/** The CRC-32 (IEEE 802.3, as zip and PNG) of @p n bytes, going on from @p crc (0 to start). */
uint32_t crc32_update(uint32_t crc, const void *data, size_t n);

#endif
