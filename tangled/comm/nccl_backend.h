/**
 * @file nccl_backend.h
 * @brief The NCCL calls the book makes, in a table that libdps_nccl.so fills (chapter 6).
 */
#ifndef DPS_NCCL_BACKEND_H
#define DPS_NCCL_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

/** The shared library that holds NCCL's calls, loaded on first use. */
#define NCCL_BACKEND "libdps_nccl.so"
/** Its entry point: a function returning the table. */
#define NCCL_ENTRY "nccl_backend_ops"
/** Size of NCCL's unique id (NCCL_UNIQUE_ID_BYTES). */
#define NCCL_ID_BYTES 128

/** NCCL's calls; each returns 0, or -1 with the library's own message in @p err. */
typedef struct NcclOps {
    /** Make the id (on one rank) that names a new communicator. */
    int (*unique_id)(unsigned char id[NCCL_ID_BYTES], char *err);
    /** Join communicator @p id as @p rank of @p size; make *comm and a stream *stream. */
    int (*init)(void **comm, void **stream, int size, const unsigned char *id, int rank,
                char *err);
    /** buf[0..count) = its sum (or mean) over the ranks, in place, waited for. */
    int (*all_reduce)(void *comm, void *stream, float *buf, size_t count, bool mean, char *err);
    /** Free what init() made. */
    void (*close)(void *comm, void *stream);
} NcclOps;

/** The type of NCCL_ENTRY. */
typedef const NcclOps *(*NcclOpsFn)(void);

#endif
