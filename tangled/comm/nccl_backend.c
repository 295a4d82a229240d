/**
 * @file nccl_backend.c
 * @brief NCCL's calls behind a table: built into libdps_nccl.so, loaded by dlopen().
 */
#line 2472 "chapters/06-production.nw"
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <string.h>

#include "nccl_backend.h"
#include "util.h"

#line 2495 "chapters/06-production.nw"
/** @cond */
_Static_assert(sizeof(ncclUniqueId) == NCCL_ID_BYTES, "NCCL's unique id size");
/** @endcond */

#line 2510 "chapters/06-production.nw"
static int unique_id(unsigned char id[NCCL_ID_BYTES], char *err)
{
    ncclResult_t r = ncclGetUniqueId((ncclUniqueId *)id);
    return r == ncclSuccess ? 0 : error_set(err, "ncclGetUniqueId: %s", ncclGetErrorString(r));
#line 2515 "chapters/06-production.nw"
}

static int init(void **comm, void **stream, int size, const unsigned char *id, int rank,
                char *err)
{
    ncclUniqueId uid;
    memcpy(&uid, id, sizeof uid);
    ncclResult_t r = ncclCommInitRank((ncclComm_t *)comm, size, uid, rank);
    if (r != ncclSuccess)
        return error_set(err, "ncclCommInitRank: %s", ncclGetErrorString(r));
    cudaError_t e = cudaStreamCreate((cudaStream_t *)stream);
    return e == cudaSuccess ? 0 : error_set(err, "cudaStreamCreate: %s", cudaGetErrorString(e));
#line 2528 "chapters/06-production.nw"
}

#line 2537 "chapters/06-production.nw"
static void close_comm(void *comm, void *stream)
{
    if (comm)
        ncclCommDestroy((ncclComm_t)comm);
    if (stream)
        cudaStreamDestroy((cudaStream_t)stream);
}
#line 2558 "chapters/06-production.nw"
static int backend_all_reduce(void *comm, void *stream, float *buf, size_t count, bool mean,
                              char *err)
{
    ncclResult_t r = ncclAllReduce(buf, buf, count, ncclFloat, mean ? ncclAvg : ncclSum,
                                   (ncclComm_t)comm, (cudaStream_t)stream);
    if (r != ncclSuccess)
        return error_set(err, "ncclAllReduce: %s", ncclGetErrorString(r));
    cudaError_t e = cudaStreamSynchronize((cudaStream_t)stream);
    return e == cudaSuccess ? 0 : error_set(err, "ncclAllReduce: %s", cudaGetErrorString(e));
#line 2568 "chapters/06-production.nw"
}

#line 2575 "chapters/06-production.nw"
/** The table, for dlsym(NCCL_ENTRY). */
const NcclOps *nccl_backend_ops(void)
{
    static const NcclOps ops = {.unique_id = unique_id,
                                .init = init,
                                .all_reduce = backend_all_reduce,
                                .close = close_comm};
#line 2580 "chapters/06-production.nw"
    return &ops;
}
