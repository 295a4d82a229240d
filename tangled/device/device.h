/**
 * @file device.h
 * @brief The device interface: one table of functions, a CPU and a CUDA implementation.
 */
#ifndef DPS_DEVICE_H
#define DPS_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Size of a handle from ipc_export() (CUDA's cudaIpcMemHandle_t; chapter 2). */
#define DEVICE_IPC_BYTES 64
/** The most sources of one reduce(): the most ranks of one machine (chapter 8). */
#define DEVICE_MAX_SOURCES 64

/** Which implementation a Device is. */
typedef enum DeviceKind { DEVICE_CPU, DEVICE_CUDA } DeviceKind;
/** The settings of one AdamW step (chapter 7, mlp_kernels.h). */
typedef struct AdamStep AdamStep;
/** How a gradient's numbers travel (chapter 10): floats, bfloat16 or IEEE half. */
typedef enum Dtype { DTYPE_FP32, DTYPE_BF16, DTYPE_FP16 } Dtype;
/** One entry of a sparse gradient (chapter 10): where it is, and its value. */
typedef struct IndexValue {
    uint32_t index; /**< the entry's place in the flat gradient */
    float value;    /**< its value */
} IndexValue;

/** A device: memory and the kernels of the MLP. All pointers are device pointers. */
typedef struct Device {
    DeviceKind kind;       /**< CPU or CUDA */
    const char *name;      /**< "cpu" or "cuda" */
    char description[160]; /**< e.g. "cpu, OpenBLAS sgemm" */
    int count;             /**< devices of this kind on the machine (GPUs; 1 for the CPU) */
    /** Allocate @p bytes of zeroed device memory (fatal on failure). */
    void *(*alloc)(size_t bytes);
    /** Free memory from alloc(). */
    void (*release)(void *p);
    /** Copy host @p src to device @p dst. */
    void (*upload)(void *dst, const void *src, size_t bytes);
    /** Copy device @p src to host @p dst (waits for it). */
    void (*download)(void *dst, const void *src, size_t bytes);
    /** Copy within the device. */
    void (*copy)(void *dst, const void *src, size_t bytes);
    /** Set @p bytes of device memory to zero. */
    void (*zero)(void *p, size_t bytes);
    /** Wait until all work the calling thread queued has finished. */
    void (*sync)(void);
    /** Optional (NULL on the CPU): @p bytes of page-locked host memory, which upload_async()
     *  copies from directly; fatal on failure. */
    void *(*host_alloc)(size_t bytes);
    /** Free memory from host_alloc(). */
    void (*host_release)(void *p);
    /** Optional (NULL on the CPU): queue a copy of host @p src, from host_alloc(), to device
     *  @p dst, and return at once: @p src must stay unchanged until this thread's next sync(). */
    void (*upload_async)(void *dst, const void *src, size_t bytes);
    /**
     * The device's own copy of @p bytes of host data that it will only read, made once: the
     * host's bytes themselves where the device reads host memory (the CPU). Give it back with
     * release_resident().
     */
    const void *(*resident)(const void *host, size_t bytes);
    /** Give back what resident() returned. */
    void (*release_resident)(const void *p);
    /**
     * Release what opening the device made (cuBLAS's handle): 0, or -1 with what was still
     * held in @p err (ERR_LEN bytes): buffers from alloc() never released, mappings from
     * ipc_open() never closed. Called by the last device_close(), never directly.
     */
    int (*close)(char *err);
    /** C[m x n] = alpha op(A)[m x k] op(B)[k x n] + beta C; op transposes when ta/tb. */
    void (*gemm)(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                 const float *B, float beta, float *C);
    /** y[rows x cols] += bias (per column), then ReLU when @p relu. */
    void (*bias_act_forward)(float *y, const float *bias, int rows, int cols, bool relu);
    /** dy[i] = 0 where y[i] <= 0: the ReLU's backward, given its output y. */
    void (*relu_backward)(float *dy, const float *y, size_t n);
    /** dbias[j] = sum over rows of dy[i][j]. */
    void (*bias_backward)(float *dbias, const float *dy, int rows, int cols);
    /**
     * Softmax cross-entropy of @p rows rows of @p cols logits against @p labels:
     * adds the summed loss to stats[0] and the number of right argmaxes to stats[1];
     * when @p dlogits is not NULL writes the gradient of the mean loss into it.
     */
    void (*softmax_xent)(const float *logits, const int *labels, int rows, int cols,
                         float *dlogits, float *stats);
    /** y += a x. */
    void (*axpy)(size_t n, float a, const float *x, float *y);
    /** x *= a. */
    void (*scale)(size_t n, float a, float *x);
    /** Row i of @p dst = row rows[i] of @p src, rows of @p words 4-byte words, for i < n. */
    void (*gather_rows)(void *dst, const void *src, const int *rows, int n, size_t words);
    /**
     * Optional (NULL on the CPU): y[B x out] = x[B x in] W[in x out] + bias, then ReLU when
     * @p relu; gemm() and bias_act_forward() in one call (CUDA: one cuBLASLt product).
     */
    void (*linear_forward)(const float *x, const float *W, const float *bias, float *y, int B,
                           int in, int out, bool relu);
    /** Copy between device buffers, one possibly another process's (IPC), and wait. */
    void (*peer_copy)(void *dst, const void *src, size_t bytes);
    /** Write a handle (DEVICE_IPC_BYTES) through which another process can map @p p. */
    int (*ipc_export)(void *p, void *handle, char *err);
    /** Map the memory behind a handle from another process; NULL with @p err on failure. */
    void *(*ipc_open)(const void *handle, char *err);
    /** Unmap memory from ipc_open(). */
    void (*ipc_close)(void *p);
    /** Optional (chapter 6): make the calling thread use this device, or NULL. */
    void (*bind_thread)(void);
    /**
     * dst[i] = scale (src[0][i] + src[1][i] + ... + src[k-1][i]), added in that order, for
     * i < n; dst may be one of the sources (chapter 8). At most DEVICE_MAX_SOURCES sources.
     */
    void (*reduce)(size_t n, const float *const *src, int k, float scale, float *dst);
    /** AdamW on n elements (chapter 7): see adamw_element(). */
    void (*adamw)(size_t n, const AdamStep *a, const float *g, float *m, float *u, float *p);
    /** out[i] = x[i] as a @p t, for i < n: rounded to nearest, ties to even (chapter 10). */
    void (*encode)(size_t n, Dtype t, const float *x, void *out);
    /** y[i] = the float of in[i], a @p t; with @p add, y[i] += it (chapter 10). */
    void (*decode)(size_t n, Dtype t, const void *in, float *y, bool add);
    /** How many of x[0..n) are infinite or NaN (chapter 10). */
    size_t (*count_nonfinite)(size_t n, const float *x);
    /** Make the @p cols columns of row-major a[rows x cols] orthonormal, in order (ch. 10). */
    void (*orthonormalize)(int rows, int cols, float *a);
    /** The @p k entries of x[0..n) largest in magnitude, into out[0..k) (chapter 10). */
    void (*top_k)(size_t n, const float *x, size_t k, IndexValue *out);
    /** y[v[i].index] += a v[i].value for i < k; the indices are distinct (chapter 10). */
    void (*scatter_add)(size_t k, const IndexValue *v, float a, float *y);
} Device;

/** The CPU device (always available). */
const Device *device_cpu(void);
/** Threads the CPU's BLAS may use in this process (ranks sharing a machine split it);
 *  OPENBLAS_NUM_THREADS, when set, wins. */
void device_cpu_threads(int threads);
/**
 * The CUDA device for rank @p rank (GPU rank % count), or NULL with the reason
 * in @p why (ERR_LEN bytes) when no GPU answers. The first call loads the CUDA
 * backend (DEVICE_CUDA_BACKEND) with dlopen(). Call it after fork(), never before.
 */
const Device *device_cuda_open(int rank, char *why);
/** The shared library that holds the CUDA device, loaded on first use. */
#define DEVICE_CUDA_BACKEND "libdps_cuda.so"
/** The library of the CUDA driver: without it no GPU can answer. */
#define DEVICE_CUDA_DRIVER "libcuda.so.1"
/** The backend's one entry point: device_cuda_open() in the backend, by this name. */
#define DEVICE_CUDA_ENTRY "device_cuda_backend_open"
/** The type of DEVICE_CUDA_ENTRY. */
typedef const Device *(*DeviceOpenFn)(int rank, char *why);
/**
 * Load backend library @p name (e.g. DEVICE_CUDA_BACKEND) from the build's backend
 * directory (DPS_BACKEND_DIR), or else wherever the dynamic loader finds it, and return
 * its entry point @p entry; NULL with the reason in @p why (ERR_LEN bytes).
 */
void *backend_entry(const char *name, const char *entry, char *why);
/**
 * Open the device a user asked for: "cpu", "cuda" or "auto" (CUDA when a GPU
 * answers, else CPU). @p note receives one line saying what was chosen and why.
 * Returns NULL with the reason in @p err when "cuda" was asked for and is unavailable.
 */
const Device *device_open(const char *request, int rank, char *note, char *err);
/** The requests device_open() understands, as --device lists them. */
#define DEVICE_REQUESTS "auto|cpu|cuda"
/** Plain-C row-major C = alpha op(A) op(B) + beta C: the reference GEMM. */
void gemm_plain(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                const float *B, float beta, float *C);
/**
 * Close a device from device_open(), device_cuda_open() or device_backend_open().
 * The last close of a device calls its close(): 0, or -1 with what was still held
 * in @p err.
 */
int device_close(const Device *dev, char *err);
/** How many device opens of this process are not closed yet. */
int device_open_count(void);
/**
 * Open backend library @p name at its entry point @p entry (a DeviceOpenFn) for
 * @p rank, once per process: later calls return the same table, to be closed as
 * often. From the first call on, the process holds @p what ("CUDA"), which fork()
 * does not carry.
 */
const Device *device_backend_open(const char *name, const char *entry, const char *what,
                                  int rank, char *why);
/** What this process holds that a forked child cannot use ("CUDA"), or NULL. */
const char *device_fork_hazard(void);
/**
 * The GPUs on this machine, counted in a child process so that this one never opens
 * CUDA (or, in a process that holds a GPU already, read from its table); 0 when none
 * answers or the build has no CUDA.
 */
int gpu_count(void);
/**
 * Whether @p ranks ranks of one machine share the GPUs of @p dev (more ranks than
 * GPUs): if so, "4 ranks share 1 GPU" in @p line (len bytes); false and "" on the
 * CPU or otherwise.
 */
bool device_sharing(const Device *dev, int ranks, char *line, size_t len);
/**
 * Whether CUDA MPS is running: its control pipe, "control" in
 * CUDA_MPS_PIPE_DIRECTORY (or in /tmp/nvidia-mps, its default), exists. @p pipe
 * receives the path looked at.
 */
bool device_mps_running(char *pipe, size_t len);

#ifdef __cplusplus
}
#endif
#endif
