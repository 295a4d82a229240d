/**
 * @file comm_nccl.c
 * @brief NCCL as a transport: a communicator whose all-reduce is NCCL's (chapter 6).
 */
#line 2131 "chapters/06-production.nw"
#include "comm_nccl.h"

#include <stdlib.h>
#include <string.h>

#include "nccl_backend.h"
#include "util.h"

#line 2438 "chapters/06-production.nw"
/** NCCL's table, once it is loaded: the one piece of state the loader keeps. */
static const NcclOps *nccl_loaded;

/** NCCL's table, loaded the first time; NULL with the reason in @p err when it cannot be. */
static const NcclOps *nccl_ops(char *err)
{
    if (nccl_loaded)
        return nccl_loaded;
    char why[ERR_LEN];
    NcclOpsFn ops;
    *(void **)&ops = backend_entry(NCCL_BACKEND, NCCL_ENTRY, why);
    if (!ops) {
        error_set(err, "NCCL could not be loaded (%.400s)", why);
        return NULL;
    }
    return nccl_loaded = ops();
}
#line 2161 "chapters/06-production.nw"
/** NCCL's communicator: the Comm callers see comes first. */
typedef struct NcclComm {
    Comm comm;    /**< what the callers see */
    Comm *inner;  /**< the rank's communicator: messages and the barrier */
    void *nccl;   /**< ncclComm_t */
    void *stream; /**< cudaStream_t: NCCL's stream */
} NcclComm;

static int nccl_allreduce(Comm *c, float *buf, size_t count, char *err)
{
    NcclComm *n = (NcclComm *)c;
    const NcclOps *nccl = nccl_ops(err);
    return nccl ? nccl->all_reduce(n->nccl, n->stream, buf, count, false, err) : -1;
}

#line 2188 "chapters/06-production.nw"
static int nccl_send(Comm *c, int to, const void *buf, size_t bytes, char *err)
{
    Comm *in = ((NcclComm *)c)->inner;
    return in->send(in, to, buf, bytes, err);
}

static int nccl_recv(Comm *c, int from, void *buf, size_t bytes, char *err)
{
    Comm *in = ((NcclComm *)c)->inner;
    return in->recv(in, from, buf, bytes, err);
}

#line 2206 "chapters/06-production.nw"
static int nccl_sendrecv(Comm *c, int to, const void *sbuf, size_t sbytes, int from, void *rbuf,
                         size_t rbytes, char *err)
{
    Comm *in = ((NcclComm *)c)->inner;
    return in->sendrecv(in, to, sbuf, sbytes, from, rbuf, rbytes, err);
}

static int nccl_barrier(Comm *c, char *err)
{
    Comm *in = ((NcclComm *)c)->inner;
    return in->barrier(in, err);
}
#line 2228 "chapters/06-production.nw"
static int nccl_sendrecv2(Comm *c, const Exchange x[2], char *err)
{
    Comm *in = ((NcclComm *)c)->inner;
    return in->sendrecv2(in, x, err);
}

#line 2243 "chapters/06-production.nw"
static void nccl_close(Comm *c)
{
    NcclComm *n = (NcclComm *)c;
    char err[ERR_LEN];
    const NcclOps *nccl = nccl_ops(err);
    if (nccl)
        nccl->close(n->nccl, n->stream);
    free(n);
}
#line 2262 "chapters/06-production.nw"
Comm *comm_nccl_open(Comm *c, Comm *host, char *err)
{
    const Device *dev = c->dev;
#line 2294 "chapters/06-production.nw"
#ifndef HAVE_NCCL
    if (dev->kind == DEVICE_CUDA && host->size <= dev->count)
        return error_set(err, "NCCL: this build has no NCCL (it needs the CUDA toolkit with "
                              "nccl.h)"),
               NULL;
#line 2298 "chapters/06-production.nw"
#endif
    if (dev->kind != DEVICE_CUDA)
        return error_set(err, "NCCL moves GPU memory, and the buffers are on the CPU: use "
                              "--device cuda"),
               NULL;
#line 2302 "chapters/06-production.nw"
    if (host->size > dev->count)
        return error_set(err, "NCCL: %d ranks on %d GPU%s: NCCL needs one GPU per rank",
                         host->size, dev->count, dev->count == 1 ? "" : "s"),
               NULL;
#line 2266 "chapters/06-production.nw"
    const NcclOps *nccl = nccl_ops(err); /* loaded only now that it can be used */
    if (!nccl)
        return NULL;
    NcclComm *n = xcalloc(1, sizeof *n);
#line 2340 "chapters/06-production.nw"
    unsigned char id[NCCL_ID_BYTES] = {0};
    int sent = 0;
    if (host->rank == 0) {
        sent = nccl->unique_id(id, err);
        for (int q = 1; sent == 0 && q < host->size; q++)
            sent = host->send(host, q, id, sizeof id, err);
    } else {
        sent = host->recv(host, 0, id, sizeof id, err);
    }
    if (sent) {
        free(n);
        return NULL;
    }
#line 2271 "chapters/06-production.nw"
    if (nccl->init(&n->nccl, &n->stream, host->size, id, host->rank, err)) {
        free(n);
        return NULL;
    }
    n->inner = c;
    n->comm = (Comm){.name = "nccl",
                     .rank = c->rank,
                     .size = c->size,
                     .dev = dev,
                     .send = nccl_send,
                     .recv = nccl_recv,
                     .sendrecv = nccl_sendrecv,
                     .sendrecv2 = nccl_sendrecv2,
                     .barrier = nccl_barrier,
                     .close = nccl_close,
                     .allreduce = nccl_allreduce,
                     .state = n};
#line 2281 "chapters/06-production.nw"
    return &n->comm;
}
