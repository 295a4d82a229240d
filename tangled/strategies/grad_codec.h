/**
 * @file grad_codec.h
 * @brief How a gradient travels: 16-bit numbers, PowerSGD, top-k (chapter 10).
 */
#ifndef DPS_GRAD_CODEC_H
#define DPS_GRAD_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "coded_ring.h"
#include "comm.h"
#include "cost_model.h"
#include "model.h"
#include "train.h"

/** What cuts a gradient down before it travels. */
typedef enum CompressKind {
    COMPRESS_NONE,     /**< every number */
    COMPRESS_POWERSGD, /**< a rank-r approximation of each weight's gradient */
    COMPRESS_TOPK,     /**< the entries largest in magnitude */
} CompressKind;
/** A gradient codec, as --grad_dtype and --compress give it. */
typedef struct GradCodec {
    Dtype dtype;       /**< the type of the numbers sent */
    CompressKind kind; /**< what cuts the gradient down */
    int rank;          /**< COMPRESS_POWERSGD: r */
    double fraction;   /**< COMPRESS_TOPK: k as a fraction of the gradient's entries */
} GradCodec;
/** Parse "none", "powersgd:R" or "topk:F" into @p g: 0, or -1 with why in @p why. */
int grad_codec_parse(const char *spec, GradCodec *g, char *why, size_t len);
/** Whether @p g changes anything: not floats with nothing cut. */
bool grad_codec_active(const GradCodec *g);
/** One line for the banner: what travels, and how many bytes a rank sends. */
void grad_codec_describe(const GradCodec *g, char *line, size_t len);
/**
 * Make @p s the ring strategy of chapter 5 with codec @p g on communicators @p c and
 * @p host for model @p m: 0, or -1 with @p err. Close with grad_codec_close().
 */
int grad_codec_open(Strategy *s, const GradCodec *g, Comm *c, Comm *host, Model *m, char *err);
/** Whether @p s was opened by grad_codec_open(). */
bool grad_codec_owns(const Strategy *s);
/** Free what grad_codec_open() allocated. */
void grad_codec_close(Strategy *s);
/** What rank's codec @p s holds back for the next step (error feedback), or NULL. */
const float *grad_codec_error(const Strategy *s);
/** Rank 0's report: the bytes a rank sent per step. */
void grad_codec_report(const Strategy *s, FILE *f);
/** The bytes rank @p rank sends per step with codec @p g over @p size ranks, for @p m. */
size_t grad_codec_bytes(const GradCodec *g, const Model *m, int size, int rank);
/** What codec @p g exchanges per step on @p size ranks for @p m (no work), for the model. */
void grad_codec_traffic(const GradCodec *g, const Model *m, int size, CodecTraffic *t);

#endif
