/**
 * @file mpi_backend.c
 * @brief The MPI transport itself, built with mpicc's flags into libdps_mpi.so (chapter 6).
 */
#line 366 "chapters/06-production.nw"
#include "mpi_backend.h"

#include <mpi.h>
#include <stdlib.h>

#include "mpi_window.h"
#include "util.h"

#line 412 "chapters/06-production.nw"
/** Largest piece of a message, in bytes: an MPI count is an int. */
#define MPI_PIECE ((size_t)1 << 30)
/** The tag of our messages. */
#define MPI_TAG_DPS 7

static int pieces(size_t bytes)
{
#line 417 "chapters/06-production.nw"
    return bytes ? (int)((bytes + MPI_PIECE - 1) / MPI_PIECE) : 1;
}

static size_t piece_len(size_t bytes, int k)
{
    size_t lo = (size_t)k * MPI_PIECE;
    return bytes - lo < MPI_PIECE ? bytes - lo : MPI_PIECE;
}

#line 440 "chapters/06-production.nw"
static int mpi_error(int rc, const char *what, int peer, char *err)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return error_set(err, "%s rank %d: %.*s", what, peer, len, msg);
}

/** Check that piece @p k of a @p bytes message from @p from arrived whole. */
static int check_count(const MPI_Status *st, size_t bytes, int k, int from, char *err)
{
    int got = 0;
    MPI_Get_count(st, MPI_BYTE, &got);
    if ((size_t)got != piece_len(bytes, k))
        return error_set(err, "recv from rank %d: %d bytes arrived, this rank expected %zu",
                         from, got, piece_len(bytes, k));
#line 457 "chapters/06-production.nw"
    return 0;
}

#line 471 "chapters/06-production.nw"
static int mpi_send(Comm *c, int to, const void *buf, size_t bytes, char *err)
{
    (void)c;
    for (int k = 0; k < pieces(bytes); k++) {
        int rc = MPI_Send((const char *)buf + (size_t)k * MPI_PIECE, (int)piece_len(bytes, k),
                          MPI_BYTE, to, MPI_TAG_DPS, MPI_COMM_WORLD);
#line 478 "chapters/06-production.nw"
        if (rc != MPI_SUCCESS)
            return mpi_error(rc, "send to", to, err);
    }
    return 0;
}

#line 496 "chapters/06-production.nw"
static int mpi_recv(Comm *c, int from, void *buf, size_t bytes, char *err)
{
    (void)c;
    for (int k = 0; k < pieces(bytes); k++) {
        MPI_Status st;
        int rc = MPI_Recv((char *)buf + (size_t)k * MPI_PIECE, (int)piece_len(bytes, k),
                          MPI_BYTE, from, MPI_TAG_DPS, MPI_COMM_WORLD, &st);
        if (rc != MPI_SUCCESS)
            return mpi_error(rc, "recv from", from, err);
        if (check_count(&st, bytes, k, from, err))
            return -1;
    }
    return 0;
}

#line 522 "chapters/06-production.nw"
/** The @p n exchanges of @p x at once: every piece of every one posted, then one wait. */
static int mpi_exchange(const Exchange *x, int n, char *err)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += pieces(x[i].sbytes) + pieces(x[i].rbytes);
    MPI_Request *req = xcalloc((size_t)total, sizeof *req);
    MPI_Status *st = xcalloc((size_t)total, sizeof *st);
    int rc = MPI_SUCCESS, k = 0;
#line 585 "chapters/06-production.nw"
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        for (int j = 0; j < pieces(x[i].rbytes) && rc == MPI_SUCCESS; j++, k++)
            rc = MPI_Irecv((char *)x[i].rbuf + (size_t)j * MPI_PIECE,
                           (int)piece_len(x[i].rbytes, j), MPI_BYTE, x[i].from, MPI_TAG_DPS,
                           MPI_COMM_WORLD, &req[k]);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        for (int j = 0; j < pieces(x[i].sbytes) && rc == MPI_SUCCESS; j++, k++)
            rc = MPI_Isend((const char *)x[i].sbuf + (size_t)j * MPI_PIECE,
                           (int)piece_len(x[i].sbytes, j), MPI_BYTE, x[i].to, MPI_TAG_DPS,
                           MPI_COMM_WORLD, &req[k]);
#line 532 "chapters/06-production.nw"
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall(k, req, st);
    int bad = rc != MPI_SUCCESS ? mpi_error(rc, "sendrecv with", x[0].from, err) : 0;
    for (int i = 0, q = 0; i < n && !bad; q += pieces(x[i].rbytes), i++)
        for (int j = 0; j < pieces(x[i].rbytes) && !bad; j++)
            bad = check_count(&st[q + j], x[i].rbytes, j, x[i].from, err);
    free(req);
    free(st);
    return bad ? -1 : 0;
}

#line 557 "chapters/06-production.nw"
static int mpi_sendrecv(Comm *c, int to, const void *sbuf, size_t sbytes, int from, void *rbuf,
                        size_t rbytes, char *err)
{
#line 561 "chapters/06-production.nw"
    (void)c;
    Exchange x = {
#line 562 "chapters/06-production.nw"
        .to = to, .sbuf = sbuf, .sbytes = sbytes, .from = from, .rbuf = rbuf, .rbytes = rbytes};
#line 564 "chapters/06-production.nw"
    return mpi_exchange(&x, 1, err);
}

static int mpi_sendrecv2(Comm *c, const Exchange x[2], char *err)
{
    (void)c;
    return mpi_exchange(x, 2, err);
}

#line 607 "chapters/06-production.nw"
/** MPI's own all-reduce: the sum, in place, in pieces of at most 2^28 floats. */
static int mpi_allreduce(Comm *c, float *buf, size_t count, char *err)
{
    (void)c;
    const size_t most = (size_t)1 << 28;
    for (size_t lo = 0; lo < count || lo == 0; lo += most) {
        size_t n = count - lo < most ? count - lo : most;
        int rc =
            MPI_Allreduce(MPI_IN_PLACE, buf + lo, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            return mpi_error(rc, "MPI_Allreduce with", -1, err);
        if (count == 0)
            break;
    }
    return 0;
}

#line 637 "chapters/06-production.nw"
static int mpi_barrier(Comm *c, char *err)
{
    (void)c;
    int rc = MPI_Barrier(MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? 0 : mpi_error(rc, "barrier with", -1, err);
}

static void mpi_close(Comm *c)
{
#line 672 "chapters/09-hosts.nw"
    mpi_windows_close(c);
#line 647 "chapters/06-production.nw"
    free(c);
    MPI_Finalize();
}

#line 667 "chapters/06-production.nw"
static int mpi_start(int *rank, int *size, char *err)
{
    int ready = 0, level = 0;
    MPI_Initialized(&ready);
    if (!ready && MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &level) != MPI_SUCCESS)
        return error_set(err, "MPI_Init_thread failed");
    if (!ready && level < MPI_THREAD_SERIALIZED)
        return error_set(err,
                         "MPI offers threads at level %d, and the communication thread "
                         "needs MPI_THREAD_SERIALIZED",
                         level);
#line 676 "chapters/06-production.nw"
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return 0;
}

#line 695 "chapters/06-production.nw"
static Comm *mpi_world_open(const Device *dev, double wait, char *err)
{
    if (dev->kind != DEVICE_CPU) {
        error_set(err, "--transport mpi carries host memory (this Open MPI is not "
                       "CUDA-aware): use --device cpu");
        return NULL;
    }
    int rank, size;
    if (mpi_start(&rank, &size, err))
        return NULL;
    Comm *c = xcalloc(1, sizeof *c);
    *c = (Comm){.name = "mpi",
                .rank = rank,
                .size = size,
                .dev = dev,
                .send = mpi_send,
                .recv = mpi_recv,
                .sendrecv = mpi_sendrecv,
                .sendrecv2 = mpi_sendrecv2,
                .barrier = mpi_barrier,
                .close = mpi_close,
                .allreduce = mpi_allreduce};
#line 665 "chapters/09-hosts.nw"
    if (mpi_windows_open(c, wait, err)) {
        free(c);
        return NULL;
    }
#line 710 "chapters/06-production.nw"
    return c;
}

#line 725 "chapters/06-production.nw"
static void mpi_abort_job(int status)
{
    MPI_Abort(MPI_COMM_WORLD, status);
}

static void mpi_finalize_job(void)
{
    MPI_Finalize();
}

#line 746 "chapters/06-production.nw"
/** The four calls, as comm_mpi.c reaches them. */
static const MpiOps mpi_backend = {.init = mpi_start,
                                   .open = mpi_world_open,
                                   .abort = mpi_abort_job,
                                   .finalize = mpi_finalize_job};

#line 751 "chapters/06-production.nw"
/** The table, for dlsym(DPS_MPI_ENTRY). */
const MpiOps *mpi_backend_ops(void)
{
    return &mpi_backend;
}
