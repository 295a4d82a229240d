/**
 * @file device_cuda.cu
 * @brief The CUDA device: the same table as the CPU's, on a GPU.
 */
#line 2316 "chapters/01-mlp.nw"
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "mlp_kernels.h"
#include "util.h"

#line 2354 "chapters/01-mlp.nw"
/** Stop with file, line and CUDA's message when @p call fails. */
#define CUDA_CHECK(call)                                                                       \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess)                                                                 \
            fatal("%s:%d: CUDA error: %s (%s)", __FILE__, __LINE__, cudaGetErrorString(e_),    \
                  #call);                                                                      \
    } while (0)
/** Stop with file, line and cuBLAS's message when @p call fails. */
#define CUBLAS_CHECK(call)                                                                     \
    do {                                                                                       \
        cublasStatus_t s_ = (call);                                                            \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                       \
            fatal("%s:%d: cuBLAS error: %s (%s)", __FILE__, __LINE__,                          \
                  cublasGetStatusString(s_), #call);                                           \
    } while (0)

static cublasHandle_t handle; /* one per process, made by device_cuda_backend_open() */
static int ordinal;           /* the rank's GPU, which each of the rank's threads must use */
#line 2399 "chapters/01-mlp.nw"
/** The rank's non-blocking stream, made when the GPU is opened. */
static cudaStream_t stream;

/** A thread's own stream, made by bind_thread(); destroyed when the thread ends. */
struct ThreadStream {
    cudaStream_t s = NULL; /**< the stream, or NULL until bind_thread() makes one */
    ~ThreadStream()
    {
        if (s)
            cudaStreamDestroy(s); /* CUDA frees it once its queued work is done */
    }
};
static thread_local ThreadStream own;

/** The calling thread's stream: its own when bind_thread() made one, else the rank's. */
static cudaStream_t my_stream(void)
{
    return own.s ? own.s : stream;
}

#line 2437 "chapters/01-mlp.nw"
static long gpu_live; /* buffers from alloc() not yet released, counted atomically */

static void *alloc(size_t bytes)
{
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    CUDA_CHECK(cudaMemsetAsync(p, 0, bytes ? bytes : 1, my_stream()));
    CUDA_CHECK(cudaStreamSynchronize(my_stream()));
    __atomic_add_fetch(&gpu_live, 1, __ATOMIC_RELAXED);
    return p;
}

static void release(void *p)
{
    if (p)
        __atomic_sub_fetch(&gpu_live, 1, __ATOMIC_RELAXED);
    CUDA_CHECK(cudaStreamSynchronize(my_stream())); /* its last user may still be queued */
    CUDA_CHECK(cudaFree(p));
}
#line 2466 "chapters/01-mlp.nw"
static void upload(void *dst, const void *src, size_t bytes)
{
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, my_stream()));
    CUDA_CHECK(cudaStreamSynchronize(my_stream())); /* src may be refilled on return */
}
static void download(void *dst, const void *src, size_t bytes)
{
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, my_stream()));
    CUDA_CHECK(cudaStreamSynchronize(my_stream()));
}
static void copy(void *dst, const void *src, size_t bytes)
{
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, my_stream()));
}
static void zero(void *p, size_t bytes)
{
    CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, my_stream()));
}
static void sync(void)
{
    CUDA_CHECK(cudaStreamSynchronize(my_stream()));
}
#line 1435 "chapters/01-mlp.nw"
static const void *resident(const void *host, size_t bytes)
{
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    __atomic_add_fetch(&gpu_live, 1, __ATOMIC_RELAXED);
    upload(p, host, bytes);
    return p;
}
static void release_resident(const void *p)
{
    release((void *)p);
}
#line 2519 "chapters/01-mlp.nw"
static long pinned; /* buffers from host_alloc() not yet freed */

static void *host_alloc(size_t bytes)
{
    void *p = NULL;
    CUDA_CHECK(cudaMallocHost(&p, bytes ? bytes : 1));
    __atomic_add_fetch(&pinned, 1, __ATOMIC_RELAXED);
    return p;
}
static void host_release(void *p)
{
    if (!p)
        return;
    __atomic_sub_fetch(&pinned, 1, __ATOMIC_RELAXED);
    CUDA_CHECK(cudaFreeHost(p));
}
static void upload_async(void *dst, const void *src, size_t bytes)
{
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, my_stream()));
}
#line 2590 "chapters/01-mlp.nw"
static void gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                 const float *B, float beta, float *C)
{
    ColMajorGemm g = colmajor_gemm(ta, tb, m, n, k, A, B);
    CUBLAS_CHECK(cublasSetStream(handle, my_stream()));
    CUBLAS_CHECK(cublasSgemm(handle, g.transa ? CUBLAS_OP_T : CUBLAS_OP_N,
                             g.transb ? CUBLAS_OP_T : CUBLAS_OP_N, g.m, g.n, g.k, &alpha, g.a,
                             g.lda, g.b, g.ldb, &beta, C, g.ldc));
}
#line 2745 "chapters/01-mlp.nw"
/** One thread per element: add the column's bias, then ReLU. */
__global__ void bias_act_forward_kernel(float *y, const float *bias, int rows, int cols,
                                        bool relu)
{
    size_t i = thread_index(blockIdx.x, blockDim.x, threadIdx.x);
    if (i < (size_t)rows * cols)
        y[i] = bias_act(y[i], bias[element_column(i, cols)], relu);
}

static void bias_act_forward(float *y, const float *bias, int rows, int cols, bool relu)
{
    unsigned blocks = grid_blocks((size_t)rows * cols);
    bias_act_forward_kernel<<<blocks, KERNEL_THREADS, 0, my_stream()>>>(y, bias, rows, cols,
                                                                        relu);
    CUDA_CHECK(cudaGetLastError());
}
#line 2773 "chapters/01-mlp.nw"
/** One thread per element: zero dy where the ReLU's output was not positive. */
__global__ void relu_backward_kernel(float *dy, const float *y, size_t n)
{
    size_t i = thread_index(blockIdx.x, blockDim.x, threadIdx.x);
    if (i < n)
        dy[i] = relu_grad(dy[i], y[i]);
}

static void relu_backward(float *dy, const float *y, size_t n)
{
    relu_backward_kernel<<<grid_blocks(n), KERNEL_THREADS, 0, my_stream()>>>(dy, y, n);
    CUDA_CHECK(cudaGetLastError());
}
#line 2797 "chapters/01-mlp.nw"
/** One thread per column: sum dy down the column. */
__global__ void bias_backward_kernel(float *dbias, const float *dy, int rows, int cols)
{
    size_t j = thread_index(blockIdx.x, blockDim.x, threadIdx.x);
    if (j >= (size_t)cols)
        return;
    float s = 0.0f;
    for (int i = 0; i < rows; i++)
        s += dy[(size_t)i * cols + j];
    dbias[j] = s;
}
#line 2881 "chapters/01-mlp.nw"
/** Block (x, s): the sums of columns x * BIAS_TILE_COLS... over the rows of slice s,
 *  into row s of @p out (cols wide). */
__global__ void bias_tile_kernel(float *out, const float *dy, int rows, int cols)
{
    __shared__ float part[BIAS_TILE_LANES * BIAS_TILE_COLS];
    size_t j = thread_index(blockIdx.x, BIAS_TILE_COLS, threadIdx.x);
    bool mine = j < (size_t)cols;
    part[threadIdx.y * BIAS_TILE_COLS + threadIdx.x] =
        mine ? bias_lane_sum(dy, rows, cols, j, blockIdx.y, threadIdx.y) : 0.0f;
    __syncthreads();
    if (threadIdx.y == 0 && mine)
        out[(size_t)blockIdx.y * cols + j] =
            sum_in_order(part + threadIdx.x, BIAS_TILE_LANES, BIAS_TILE_COLS);
}

/** One thread per column: the slices' sums, in slice order. */
__global__ void bias_slices_kernel(float *dbias, const float *part, unsigned slices, int cols)
{
    size_t j = thread_index(blockIdx.x, blockDim.x, threadIdx.x);
    if (j < (size_t)cols)
        dbias[j] = sum_in_order(part + j, slices, (size_t)cols);
}
#line 2911 "chapters/01-mlp.nw"
static float *bias_part;        /* the slices' sums: bias_backward()'s own scratch */
static size_t bias_part_floats; /* its room */

/** bias_part, with room for @p floats at least. */
static float *bias_scratch(size_t floats)
{
    if (floats > bias_part_floats) {
        CUDA_CHECK(cudaStreamSynchronize(my_stream())); /* the old one's last reader */
        CUDA_CHECK(cudaFree(bias_part));
        CUDA_CHECK(cudaMalloc(&bias_part, floats * sizeof(float)));
        bias_part_floats = floats;
    }
    return bias_part;
}

#line 2934 "chapters/01-mlp.nw"
static bool bias_plain; /* DPS_CUDA_BIAS_PLAIN=1: the one-thread-per-column reference */

static void bias_backward(float *dbias, const float *dy, int rows, int cols)
{
    if (bias_plain) {
        bias_backward_kernel<<<grid_blocks(cols), KERNEL_THREADS, 0, my_stream()>>>(dbias, dy,
                                                                                    rows, cols);
        CUDA_CHECK(cudaGetLastError());
        return;
    }
    unsigned slices = bias_slices(rows);
    float *out = slices == 1 ? dbias : bias_scratch((size_t)slices * (size_t)cols);
    dim3 grid(bias_tiles(cols), slices), block(BIAS_TILE_COLS, BIAS_TILE_LANES);
    bias_tile_kernel<<<grid, block, 0, my_stream()>>>(out, dy, rows, cols);
    CUDA_CHECK(cudaGetLastError());
    if (slices > 1) {
        bias_slices_kernel<<<grid_blocks(cols), KERNEL_THREADS, 0, my_stream()>>>(dbias, out,
                                                                                  slices, cols);
        CUDA_CHECK(cudaGetLastError());
    }
}
#line 3117 "chapters/01-mlp.nw"
/** cuBLASLt's workspace, as llm.c sizes it; made by the open, freed by the close. */
enum { LT_WORKSPACE_BYTES = 32 << 20 };
static cublasLtHandle_t lt;  /* cuBLASLt's handle, NULL when the fused path is off */
static void *lt_workspace;   /* LT_WORKSPACE_BYTES of GPU memory for its algorithms */
static bool lt_refusal_said; /* a product cuBLASLt found no algorithm for was reported */

#line 3137 "chapters/01-mlp.nw"
/** The descriptors of D = op(a) op(b) + bias, ReLU when @p relu; FP32 throughout. */
typedef struct {
    cublasLtMatmulDesc_t op;  /**< the product, its epilogue and the bias */
    cublasLtMatrixLayout_t a; /**< the first operand's layout */
    cublasLtMatrixLayout_t b; /**< the second operand's layout */
    cublasLtMatrixLayout_t d; /**< the result's layout (C is D: beta is 0) */
} LtProduct;
#line 3147 "chapters/01-mlp.nw"
static LtProduct lt_describe(const ColMajorGemm *g, const float *bias, bool relu)
{
    LtProduct p;
    cublasOperation_t ta = g->transa ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t tb = g->transb ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasLtEpilogue_t epilogue = relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                                sizeof epilogue));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                                sizeof bias));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.a, CUDA_R_32F, g->transa ? g->k : g->m,
                                            g->transa ? g->m : g->k, g->lda));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.b, CUDA_R_32F, g->transb ? g->n : g->k,
                                            g->transb ? g->k : g->n, g->ldb));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.d, CUDA_R_32F, g->m, g->n, g->ldc));
    return p;
}
#line 3176 "chapters/01-mlp.nw"
static void lt_forget(LtProduct *p)
{
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(p->d));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(p->b));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(p->a));
    CUBLAS_CHECK(cublasLtMatmulDescDestroy(p->op));
}
#line 3219 "chapters/01-mlp.nw"
/** cuBLASLt's best algorithm for @p p on these pointers into *@p best; false when none. */
static bool lt_choose(const LtProduct *p, const void *a, const void *b, const void *d,
                      cublasLtMatmulHeuristicResult_t *best)
{
    cublasLtMatmulPreference_t pref;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    uint64_t room = LT_WORKSPACE_BYTES;
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &room, sizeof room));
    const void *at[4] = {a, b, d, d};
    const cublasLtMatmulPreferenceAttributes_t which[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4; i++) {
        uint32_t align = lt_alignment(at[i]);
        CUBLAS_CHECK(
            cublasLtMatmulPreferenceSetAttribute(pref, which[i], &align, sizeof align));
    }
    int found = 0;
    cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(lt, p->op, p->a, p->b, p->d, p->d, pref,
                                                      1, best, &found);
    if (s != CUBLAS_STATUS_NOT_SUPPORTED)
        CUBLAS_CHECK(s);
    CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
    return s == CUBLAS_STATUS_SUCCESS && found > 0 && best->state == CUBLAS_STATUS_SUCCESS;
}
#line 3260 "chapters/01-mlp.nw"
static bool lt_linear(const ColMajorGemm *g, const float *bias, float *y, bool relu)
{
    LtProduct p = lt_describe(g, bias, relu);
    cublasLtMatmulHeuristicResult_t best;
    bool ok = lt_choose(&p, g->a, g->b, y, &best);
    const float one = 1.0f, zero = 0.0f;
    if (ok)
        CUBLAS_CHECK(cublasLtMatmul(lt, p.op, &one, g->a, p.a, g->b, p.b, &zero, y, p.d, y, p.d,
                                    &best.algo, lt_workspace, LT_WORKSPACE_BYTES, my_stream()));
    lt_forget(&p);
    return ok;
}
#line 3279 "chapters/01-mlp.nw"
static void linear_forward(const float *x, const float *W, const float *bias, float *y, int B,
                           int in, int out, bool relu)
{
    ColMajorGemm g = colmajor_gemm(false, false, B, out, in, x, W);
    bool fits = B > 0 && lt_alignment(bias) >= 16;
    if (fits && lt_linear(&g, bias, y, relu))
        return;
    if (fits && !lt_refusal_said) {
        lt_refusal_said = true;
        fprintf(stderr,
                "%s: cuBLASLt has no algorithm for a %dx%dx%d product with its bias "
                "epilogue: such layers take gemm and bias_act_forward\n",
                program_name(), B, in, out);
    }
    gemm(false, false, B, out, in, 1.0f, x, W, 0.0f, y);
    bias_act_forward(y, bias, B, out, relu);
}
#line 1700 "chapters/01-mlp.nw"
/** One thread per row: softmax_xent_row(), then add the counts atomically. */
__global__ void softmax_xent_kernel(const float *logits, const int *labels, int rows, int cols,
                                    float *dlogits, float *stats)
{
    size_t i = thread_index(blockIdx.x, blockDim.x, threadIdx.x);
    if (i >= (size_t)rows)
        return;
    int ok;
    float loss = softmax_xent_row(logits + (size_t)i * cols, labels[i], cols,
                                  dlogits ? dlogits + (size_t)i * cols : NULL, rows, &ok);
    atomicAdd(&stats[0], loss);
    atomicAdd(&stats[1], (float)ok);
}

static void softmax_xent(const float *logits, const int *labels, int rows, int cols,
                         float *dlogits, float *stats)
{
    softmax_xent_kernel<<<grid_blocks(rows), KERNEL_THREADS, 0, my_stream()>>>(
        logits, labels, rows, cols, dlogits, stats);
    CUDA_CHECK(cudaGetLastError());
}
#line 3032 "chapters/01-mlp.nw"
/** Grid-stride y += a x. */
__global__ void axpy_kernel(size_t n, float a, const float *x, float *y)
{
    for (size_t i = thread_index(blockIdx.x, blockDim.x, threadIdx.x); i < n;
         i += grid_stride(gridDim.x, blockDim.x))
        y[i] += a * x[i];
}

/** Grid-stride x *= a. */
__global__ void scale_kernel(size_t n, float a, float *x)
{
    for (size_t i = thread_index(blockIdx.x, blockDim.x, threadIdx.x); i < n;
         i += grid_stride(gridDim.x, blockDim.x))
        x[i] *= a;
}

#line 3053 "chapters/01-mlp.nw"
static void axpy(size_t n, float a, const float *x, float *y)
{
    axpy_kernel<<<stride_blocks(n), KERNEL_THREADS, 0, my_stream()>>>(n, a, x, y);
    CUDA_CHECK(cudaGetLastError());
}

static void scale(size_t n, float a, float *x)
{
    scale_kernel<<<stride_blocks(n), KERNEL_THREADS, 0, my_stream()>>>(n, a, x);
    CUDA_CHECK(cudaGetLastError());
}

#line 3067 "chapters/01-mlp.nw"
/** Grid-stride: word k of the batch from its row of the data set. */
__global__ void gather_kernel(uint32_t *dst, const uint32_t *src, const int *rows, size_t n,
                              size_t words)
{
    for (size_t k = thread_index(blockIdx.x, blockDim.x, threadIdx.x); k < n;
         k += grid_stride(gridDim.x, blockDim.x))
        dst[k] = src[gather_source(k, words, rows)];
}

static void gather_rows(void *dst, const void *src, const int *rows, int n, size_t words)
{
    size_t total = (size_t)n * words;
    gather_kernel<<<stride_blocks(total), KERNEL_THREADS, 0, my_stream()>>>(
        (uint32_t *)dst, (const uint32_t *)src, rows, total, words);
#line 3082 "chapters/01-mlp.nw"
    CUDA_CHECK(cudaGetLastError());
}
#line 828 "chapters/08-direct.nw"
/** The sources of one reduce(), by value. */
typedef struct ReduceSources {
    const float *p[DEVICE_MAX_SOURCES]; /**< the sources, in order */
} ReduceSources;

#line 799 "chapters/08-direct.nw"
/**
 * Grid-stride reduce_element() on every element: the first @p groups groups of four with
 * 16-byte loads, each lane in reduce_element()'s order, then the rest one at a time.
 */
__global__ void reduce_kernel(size_t n, size_t groups, ReduceSources s, int k, float scale,
                              float *dst)
{
    size_t first = thread_index(blockIdx.x, blockDim.x, threadIdx.x);
    size_t step = grid_stride(gridDim.x, blockDim.x);
    for (size_t g = first; g < groups; g += step) {
        float4 a = reinterpret_cast<const float4 *>(s.p[0])[g];
        for (int j = 1; j < k; j++) {
            float4 b = reinterpret_cast<const float4 *>(s.p[j])[g];
            a.x += b.x, a.y += b.y, a.z += b.z, a.w += b.w;
        }
        reinterpret_cast<float4 *>(dst)[g] =
            make_float4(a.x * scale, a.y * scale, a.z * scale, a.w * scale);
    }
    for (size_t i = REDUCE_LANES * groups + first; i < n; i += step)
        dst[i] = reduce_element(s.p, k, i, scale);
}

#line 835 "chapters/08-direct.nw"
static void reduce(size_t n, const float *const *src, int k, float scale, float *dst)
{
    if (n == 0)
        return;
    ReduceSources s;
    for (int j = 0; j < k; j++)
        s.p[j] = src[j];
    size_t groups = reduce_groups(n, src, k, dst), items = groups + (n - REDUCE_LANES * groups);
    reduce_kernel<<<stride_blocks(items), KERNEL_THREADS, 0, my_stream()>>>(n, groups, s, k,
                                                                            scale, dst);
    CUDA_CHECK(cudaGetLastError());
}
#line 415 "chapters/07-zero.nw"
/** Grid-stride AdamW: adamw_element() on every element. */
__global__ void adamw_kernel(size_t n, AdamStep a, const float *g, float *m, float *u, float *p)
{
#line 419 "chapters/07-zero.nw"
    for (size_t i = thread_index(blockIdx.x, blockDim.x, threadIdx.x); i < n;
         i += grid_stride(gridDim.x, blockDim.x))
        adamw_element(&a, g[i], &m[i], &u[i], &p[i]);
}

static void adamw(size_t n, const AdamStep *a, const float *g, float *m, float *u, float *p)
{
    if (n == 0)
        return;
    adamw_kernel<<<stride_blocks(n), KERNEL_THREADS, 0, my_stream()>>>(n, *a, g, m, u, p);
    CUDA_CHECK(cudaGetLastError());
}
#line 292 "chapters/10-compress.nw"
/** Grid-stride encode_element(). */
__global__ void encode_kernel(size_t n, Dtype t, const float *x, void *out)
{
    for (size_t i = thread_index(blockIdx.x, blockDim.x, threadIdx.x); i < n;
         i += grid_stride(gridDim.x, blockDim.x))
        encode_element(t, x, out, i);
}

/** Grid-stride decode_element(), added to y or written over it. */
__global__ void decode_kernel(size_t n, Dtype t, const void *in, float *y, bool add)
{
    for (size_t i = thread_index(blockIdx.x, blockDim.x, threadIdx.x); i < n;
         i += grid_stride(gridDim.x, blockDim.x))
        y[i] = add ? y[i] + decode_element(t, in, i) : decode_element(t, in, i);
}
#line 338 "chapters/10-compress.nw"
static void encode(size_t n, Dtype t, const float *x, void *out)
{
    if (n == 0)
        return;
    encode_kernel<<<stride_blocks(n), KERNEL_THREADS, 0, my_stream()>>>(n, t, x, out);
    CUDA_CHECK(cudaGetLastError());
}

static void decode(size_t n, Dtype t, const void *in, float *y, bool add)
{
    if (n == 0)
        return;
    decode_kernel<<<stride_blocks(n), KERNEL_THREADS, 0, my_stream()>>>(n, t, in, y, add);
    CUDA_CHECK(cudaGetLastError());
}
#line 314 "chapters/10-compress.nw"
/** Grid-stride count of the entries that are not finite, into *bad. */
__global__ void nonfinite_kernel(size_t n, const float *x, unsigned long long *bad)
{
    unsigned long long mine = 0;
    for (size_t i = thread_index(blockIdx.x, blockDim.x, threadIdx.x); i < n;
         i += grid_stride(gridDim.x, blockDim.x))
        mine += !isfinite(x[i]);
    if (mine)
        atomicAdd(bad, mine);
}

static size_t count_nonfinite(size_t n, const float *x)
{
    unsigned long long *bad = (unsigned long long *)alloc(sizeof *bad), host = 0;
    if (n)
        nonfinite_kernel<<<stride_blocks(n), KERNEL_THREADS, 0, my_stream()>>>(n, x, bad);
    CUDA_CHECK(cudaGetLastError());
    download(&host, bad, sizeof host);
    release(bad);
    return (size_t)host;
}
#line 897 "chapters/10-compress.nw"
/** The sum over the block of @p v, in every thread (blockDim.x a power of two). */
__device__ float block_sum(float v, float *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    float sum = sh[0];
    __syncthreads();
    return sum;
}
#line 917 "chapters/10-compress.nw"
/** Modified Gram-Schmidt on the columns of a[rows x cols], by one block. */
__global__ void orthonormalize_kernel(int rows, int cols, float *a)
{
    __shared__ float sh[KERNEL_THREADS];
    for (int j = 0; j < cols; j++) {
        float part = 0;
        for (int i = threadIdx.x; i < rows; i += blockDim.x)
            part += a[i * cols + j] * a[i * cols + j];
        float inv = 1.0f / (sqrtf(block_sum(part, sh)) + (float)ORTHO_EPS);
        for (int i = threadIdx.x; i < rows; i += blockDim.x)
            a[i * cols + j] *= inv;
        __syncthreads();
        for (int k = j + 1; k < cols; k++) {
            part = 0;
            for (int i = threadIdx.x; i < rows; i += blockDim.x)
                part += a[i * cols + j] * a[i * cols + k];
            float dot = block_sum(part, sh);
            for (int i = threadIdx.x; i < rows; i += blockDim.x)
                a[i * cols + k] -= dot * a[i * cols + j];
            __syncthreads();
        }
    }
}

#line 945 "chapters/10-compress.nw"
static void orthonormalize(int rows, int cols, float *a)
{
    orthonormalize_kernel<<<1, KERNEL_THREADS, 0, my_stream()>>>(rows, cols, a);
    CUDA_CHECK(cudaGetLastError());
}
#line 1129 "chapters/10-compress.nw"
/** Count the magnitudes whose bits under @p mask are @p prefix, by their byte at @p shift. */
__global__ void radix_count_kernel(size_t n, const float *x, uint32_t prefix, uint32_t mask,
                                   int shift, unsigned long long *count)
{
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (size_t i = thread_index(blockIdx.x, blockDim.x, threadIdx.x); i < n;
         i += grid_stride(gridDim.x, blockDim.x)) {
        uint32_t u = magnitude_bits(x[i]);
        if ((u & mask) == prefix)
            atomicAdd(&local[u >> shift & 255u], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b])
            atomicAdd(&count[b], (unsigned long long)local[b]);
}
#line 1155 "chapters/10-compress.nw"
/** Append every entry above @p t, and up to @p ties entries equal to it. */
__global__ void radix_take_kernel(size_t n, const float *x, uint32_t t, unsigned long long ties,
                                  unsigned long long *taken, IndexValue *out)
{
    for (size_t i = thread_index(blockIdx.x, blockDim.x, threadIdx.x); i < n;
         i += grid_stride(gridDim.x, blockDim.x)) {
        uint32_t u = magnitude_bits(x[i]);
        if (u == t && atomicAdd(&taken[1], 1ull) >= ties)
            continue;
        if (u >= t)
            out[atomicAdd(&taken[0], 1ull)] = IndexValue{(uint32_t)i, x[i]};
    }
}
#line 1171 "chapters/10-compress.nw"
/** What the GPU's counting pass reads: the vector, and 256 counters in device memory. */
typedef struct DeviceMagnitudes {
    size_t n;                     /**< entries */
    const float *x;               /**< the vector, on the GPU */
    unsigned long long *counters; /**< 256 counters, on the GPU */
} DeviceMagnitudes;

static void count_bytes(const void *ctx, uint32_t prefix, uint32_t mask, int shift,
                        size_t count[256])
{
    const DeviceMagnitudes *v = (const DeviceMagnitudes *)ctx;
    unsigned long long host[256];
    zero(v->counters, sizeof host);
    radix_count_kernel<<<stride_blocks(v->n), KERNEL_THREADS, 0, my_stream()>>>(
        v->n, v->x, prefix, mask, shift, v->counters);
    CUDA_CHECK(cudaGetLastError());
    download(host, v->counters, sizeof host);
    for (int b = 0; b < 256; b++)
        count[b] = (size_t)host[b];
}
#line 1194 "chapters/10-compress.nw"
static void top_k(size_t n, const float *x, size_t k, IndexValue *out)
{
    if (n == 0 || k == 0)
        return;
    DeviceMagnitudes v = {n, x, (unsigned long long *)alloc(256 * sizeof(unsigned long long))};
    uint32_t t;
    size_t need;
    radix_select(n, k, count_bytes, &v, &t, &need);
    zero(v.counters, 2 * sizeof *v.counters);
    radix_take_kernel<<<stride_blocks(n), KERNEL_THREADS, 0, my_stream()>>>(n, x, t, need,
                                                                            v.counters, out);
    CUDA_CHECK(cudaGetLastError());
    sync();
    release(v.counters);
}
#line 956 "chapters/10-compress.nw"
/** One thread per entry: distinct indices, so no two threads add to one place. */
__global__ void scatter_add_kernel(size_t k, const IndexValue *v, float a, float *y)
{
    for (size_t i = thread_index(blockIdx.x, blockDim.x, threadIdx.x); i < k;
         i += grid_stride(gridDim.x, blockDim.x))
        y[v[i].index] += a * v[i].value;
}

static void scatter_add(size_t k, const IndexValue *v, float a, float *y)
{
    if (k == 0)
        return;
    scatter_add_kernel<<<stride_blocks(k), KERNEL_THREADS, 0, my_stream()>>>(k, v, a, y);
    CUDA_CHECK(cudaGetLastError());
}
#line 2209 "chapters/02-shm.nw"
static void peer_copy(void *dst, const void *src, size_t bytes)
{
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, my_stream()));
    CUDA_CHECK(cudaStreamSynchronize(my_stream()));
}

#line 2236 "chapters/02-shm.nw"
static int ipc_export(void *p, void *handle, char *err)
{
    static_assert(sizeof(cudaIpcMemHandle_t) == DEVICE_IPC_BYTES, "IPC handle size");
    cudaIpcMemHandle_t h;
    cudaError_t e = cudaIpcGetMemHandle(&h, p);
    if (e != cudaSuccess)
        return error_set(err, "cudaIpcGetMemHandle: %s", cudaGetErrorString(e));
    memcpy(handle, &h, sizeof h);
    return 0;
}

#line 2254 "chapters/02-shm.nw"
static long mapped; /* mappings from ipc_open() not yet closed; closing counts them */

static void *ipc_open(const void *handle, char *err)
{
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    void *p = NULL;
    cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
        error_set(err, "cudaIpcOpenMemHandle: %s", cudaGetErrorString(e));
        return NULL;
    }
    __atomic_add_fetch(&mapped, 1, __ATOMIC_RELAXED);
    return p;
}

#line 2219 "chapters/02-shm.nw"
static void ipc_close(void *p)
{
    __atomic_sub_fetch(&mapped, 1, __ATOMIC_RELAXED);
    CUDA_CHECK(cudaIpcCloseMemHandle(p));
}
#line 1429 "chapters/06-production.nw"
static void bind_thread(void)
{
    CUDA_CHECK(cudaSetDevice(ordinal));
    if (!own.s)
        CUDA_CHECK(cudaStreamCreateWithFlags(&own.s, cudaStreamNonBlocking));
}
#line 3590 "chapters/01-mlp.nw"
static int gpu_close(char *err)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    CUBLAS_CHECK(cublasDestroy(handle));
    handle = NULL;
    CUDA_CHECK(cudaStreamDestroy(stream));
    stream = NULL;
    CUDA_CHECK(cudaFree(bias_part)); /* the bias gradient's scratch, if it was made */
    bias_part = NULL, bias_part_floats = 0;
    if (lt)
        CUBLAS_CHECK(cublasLtDestroy(lt));
    CUDA_CHECK(cudaFree(lt_workspace)); /* cuBLASLt's, if the fused path was on */
    lt = NULL, lt_workspace = NULL, lt_refusal_said = false;
    long held = __atomic_load_n(&gpu_live, __ATOMIC_RELAXED);
    long maps = __atomic_load_n(&mapped, __ATOMIC_RELAXED);
    long pins = __atomic_load_n(&pinned, __ATOMIC_RELAXED);
    if (held != 0 || maps != 0 || pins != 0)
        return error_set(err,
                         "cuda:%d: %ld buffer(s) from alloc() never released, "
                         "%ld IPC mapping(s) never closed, %ld pinned buffer(s) never freed",
                         ordinal, held, maps, pins);
#line 3610 "chapters/01-mlp.nw"
    return 0;
}

#line 3481 "chapters/01-mlp.nw"
/* every member, in Device's order, as C++ requires */
static Device cuda = {
    .kind = DEVICE_CUDA,
    .name = "cuda",
    .description = "",
    .count = 0,
    .alloc = alloc,
    .release = release,
    .upload = upload,
    .download = download,
    .copy = copy,
    .zero = zero,
    .sync = sync,
    .host_alloc = host_alloc,
    .host_release = host_release,
    .upload_async = upload_async,
    .resident = resident,
    .release_resident = release_resident,
    .close = gpu_close,
    .gemm = gemm,
    .bias_act_forward = bias_act_forward,
    .relu_backward = relu_backward,
    .bias_backward = bias_backward,
    .softmax_xent = softmax_xent,
    .axpy = axpy,
    .scale = scale,
    .gather_rows = gather_rows,
    .linear_forward = NULL, /* set by the open */
#line 2274 "chapters/02-shm.nw"
    .peer_copy = peer_copy,
    .ipc_export = ipc_export,
    .ipc_open = ipc_open,
    .ipc_close = ipc_close,
    .bind_thread = bind_thread,
    .reduce = reduce,
    .adamw = adamw,
    .encode = encode,
    .decode = decode,
    .count_nonfinite = count_nonfinite,
    .orthonormalize = orthonormalize,
    .top_k = top_k,
    .scatter_add = scatter_add,
};

#line 3508 "chapters/01-mlp.nw"
/**
 * The backend's entry point (DEVICE_CUDA_ENTRY), found by device_cuda_open() with dlsym():
 * the CUDA device for GPU @p rank % count, or NULL with the reason in @p why.
 */
extern "C" const Device *device_cuda_backend_open(int rank, char *why)
{
#line 3533 "chapters/01-mlp.nw"
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(why, ERR_LEN, "no CUDA device answered (cudaGetDeviceCount: %s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        cudaGetLastError(); /* clear the error so later calls do not report it */
        return NULL;
    }
#line 3515 "chapters/01-mlp.nw"
    ordinal = rank % count;
    cuda.count = count;
    CUDA_CHECK(cudaSetDevice(ordinal));
#line 3551 "chapters/01-mlp.nw"
    cublasStatus_t s = cublasCreate(&handle);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, ERR_LEN, "cublasCreate failed: %s", cublasGetStatusString(s));
        return NULL;
    }
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    const char *plain = getenv("DPS_CUDA_BIAS_PLAIN");
    bias_plain = plain && strcmp(plain, "1") == 0;
#line 3307 "chapters/01-mlp.nw"
    const char *plain_linear = getenv("DPS_CUDA_PLAIN_LINEAR");
    cuda.linear_forward = NULL;
    if (!(plain_linear && strcmp(plain_linear, "1") == 0)) {
        if (cublasLtCreate(&lt) == CUBLAS_STATUS_SUCCESS) {
            CUDA_CHECK(cudaMalloc(&lt_workspace, LT_WORKSPACE_BYTES));
            cuda.linear_forward = linear_forward;
        } else {
            lt = NULL;
        }
    }
#line 3561 "chapters/01-mlp.nw"
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
    snprintf(cuda.description, sizeof cuda.description, "cuda:%d %.100s (sm_%d%d, %.1f GiB)",
             ordinal, prop.name, prop.major, prop.minor,
             (double)prop.totalGlobalMem / (1u << 30));
#line 3519 "chapters/01-mlp.nw"
    return &cuda;
}
