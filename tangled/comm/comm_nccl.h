/**
 * @file comm_nccl.h
 * @brief NCCL as a transport: a communicator whose all-reduce is NCCL's (chapter 6).
 */
#ifndef DPS_COMM_NCCL_H
#define DPS_COMM_NCCL_H

#include "comm.h"

/**
 * NCCL's communicator beside @p c (a collective call over @p host, which carries NCCL's id):
 * its allreduce() is ncclAllReduce; send, recv, sendrecv and barrier go through @p c, which
 * must outlive it. NULL with @p err: no NCCL in this build, buffers not on a GPU, or more
 * ranks than GPUs. Its close() leaves @p c open.
 */
Comm *comm_nccl_open(Comm *c, Comm *host, char *err);

#endif
