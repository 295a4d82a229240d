/**
 * @file coded_ring.h
 * @brief The ring all-reduce whose messages are bfloat16 or half (chapter 10).
 */
#ifndef DPS_CODED_RING_H
#define DPS_CODED_RING_H

#include <stdbool.h>
#include <stddef.h>

#include "comm.h"

/** Bytes of one number of type @p t: 4 or 2. */
size_t dtype_bytes(Dtype t);
/** "fp32", "bf16" or "fp16". */
const char *dtype_name(Dtype t);
/** The type named @p name ("fp32", "bf16", "fp16"): true, or false if there is none. */
bool dtype_parse(const char *name, Dtype *t);
/**
 * Replace buf[0..count) by @p scale times its sum over the ranks of @p c, every message in
 * type @p t and every addition in floats; every rank ends with the same bits. @p wire is
 * count * dtype_bytes(t) bytes of the device's memory. With DTYPE_FP32 the result is
 * ring_all_reduce()'s, bit for bit. Returns 0, or -1 with @p err.
 */
int ring_all_reduce_coded(Comm *c, float *buf, size_t count, Dtype t, void *wire, float scale,
                          char *err);
/** The bytes rank @p rank sends in ring_all_reduce_coded() over @p size ranks. */
size_t ring_coded_bytes(size_t count, int size, int rank, Dtype t);

#endif
