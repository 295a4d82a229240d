/**
 * @file mlp_kernels.h
 * @brief The arithmetic both devices run: per row and per element, for gcc and nvcc alike;
 * and how the GPU divides it (the cuBLAS arguments, the kernels' launch geometry).
 */
#ifndef DPS_MLP_KERNELS_H
#define DPS_MLP_KERNELS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __CUDACC__
/** Compile for the host and for the GPU. */
#define HOSTDEV __host__ __device__
#else
/** Compile for the host and for the GPU (plain C: the host only). */
#define HOSTDEV
#endif

/**
 * Loss of one row of @p cols logits @p z with label @p y; sets *right to whether the
 * argmax is y; when @p dz is not NULL writes the gradient of the batch's mean loss
 * (the batch has @p rows rows).
 */
static inline HOSTDEV float softmax_xent_row(const float *z, int y, int cols, float *dz,
                                             int rows, int *right)
{
    int arg = 0;
    float max = z[0];
    for (int j = 1; j < cols; j++)
        if (z[j] > max) {
            max = z[j];
            arg = j;
        }
    float sum = 0;
    for (int j = 0; j < cols; j++)
        sum += expf(z[j] - max);
    if (dz)
        for (int j = 0; j < cols; j++)
            dz[j] = (expf(z[j] - max) / sum - (j == y)) / rows;
    *right = arg == y;
    return (max - z[y]) + logf(sum);
}
/** v + b, then the ReLU when @p relu. */
static inline HOSTDEV float bias_act(float v, float b, bool relu)
{
    v += b;
    return relu && !(v > 0.0f) ? 0.0f : v;
}
/** The gradient @p dy passed through a ReLU whose output was @p y. */
static inline HOSTDEV float relu_grad(float dy, float y)
{
    return y > 0.0f ? dy : 0.0f;
}
/** The settings of one AdamW step, with its bias corrections (chapter 7). */
typedef struct AdamStep {
    float lr;            /**< the learning rate, eta */
    float beta1;         /**< the first moment's decay */
    float beta2;         /**< the second moment's decay */
    float eps;           /**< the denominator's guard */
    float decay;         /**< the decoupled weight decay, lambda */
    float correct1;      /**< 1 - beta1^t */
    float sqrt_correct2; /**< sqrt(1 - beta2^t) */
} AdamStep;

/** AdamW on one element: decay p, update the moments m and u from g, step p. */
static inline HOSTDEV void adamw_element(const AdamStep *a, float g, float *m, float *u,
                                         float *p)
{
    *p *= 1.0f - a->lr * a->decay;
    *m = a->beta1 * *m + (1.0f - a->beta1) * g;
    *u = a->beta2 * *u + (1.0f - a->beta2) * g * g;
    float denom = sqrtf(*u) / a->sqrt_correct2 + a->eps;
    *p -= a->lr / a->correct1 * *m / denom;
}
/** scale (src[0][i] + ... + src[k-1][i]), added in that order (chapter 8). */
static inline HOSTDEV float reduce_element(const float *const *src, int k, size_t i,
                                           float scale)
{
    float s = src[0][i];
    for (int j = 1; j < k; j++)
        s += src[j][i];
    return s * scale;
}
/** A column-major sgemm, BLAS's or cuBLAS's: C = alpha op(a) op(b) + beta C. */
typedef struct {
    bool transa;    /**< transpose the first operand */
    bool transb;    /**< transpose the second operand */
    int m;          /**< rows of the column-major C */
    int n;          /**< its columns */
    int k;          /**< the inner dimension */
    const float *a; /**< the first operand */
    int lda;        /**< its leading dimension */
    const float *b; /**< the second operand */
    int ldb;        /**< its leading dimension */
    int ldc;        /**< the leading dimension of C */
} ColMajorGemm;
/**
 * The column-major sgemm that computes gemm_plain()'s row-major C = alpha op(A) op(B) +
 * beta C (m x n, inner dimension k): its transpose C^T = op(B)^T op(A)^T, B first.
 */
static inline ColMajorGemm colmajor_gemm(bool ta, bool tb, int m, int n, int k, const float *A,
                                         const float *B)
{
    ColMajorGemm g;
    g.transa = tb;
    g.transb = ta;
    g.m = n;
    g.n = m;
    g.k = k;
    g.a = B;
    g.lda = tb ? k : n; /* B is stored k x n, or n x k when transposed */
    g.b = A;
    g.ldb = ta ? m : k; /* A is stored m x k, or k x m when transposed */
    g.ldc = n;
    return g;
}
/** Threads in a block of every kernel of the CUDA device. */
enum { KERNEL_THREADS = 256 };

/**
 * Blocks of KERNEL_THREADS threads that give each of @p n items a thread: n / KERNEL_THREADS
 * rounded up; at least one (CUDA refuses a launch of no blocks, even for no items), and
 * past 2^32 - 1 blocks, 2^32 - 1, which CUDA refuses too, rather than a count wrapped to a
 * small grid.
 */
static inline HOSTDEV unsigned grid_blocks(size_t n)
{
    size_t b = n / KERNEL_THREADS + (n % KERNEL_THREADS != 0);
    return b == 0 ? 1u : b > 0xffffffffu ? 0xffffffffu : (unsigned)b;
}

/** The item of thread @p thread of block @p block, in blocks of @p threads: in 64 bits. */
static inline HOSTDEV size_t thread_index(unsigned block, unsigned threads, unsigned thread)
{
    return (size_t)block * threads + thread;
}

/** The column of element @p i of a row-major matrix of @p cols columns. */
static inline HOSTDEV int element_column(size_t i, int cols)
{
    return (int)(i % (size_t)cols);
}
/** The most blocks a grid-stride kernel is launched with. */
enum { STRIDE_BLOCKS_MAX = 4096 };

/** Blocks for a grid-stride loop over @p n items: grid_blocks(n), at most STRIDE_BLOCKS_MAX. */
static inline HOSTDEV unsigned stride_blocks(size_t n)
{
    unsigned b = grid_blocks(n);
    return b < STRIDE_BLOCKS_MAX ? b : (unsigned)STRIDE_BLOCKS_MAX;
}

/** A grid-stride loop's step: all threads of @p blocks blocks of @p threads, in 64 bits. */
static inline HOSTDEV size_t grid_stride(unsigned blocks, unsigned threads)
{
    return (size_t)blocks * threads;
}

/** Where word @p k of a gathered batch of rows of @p words words comes from in the data. */
static inline HOSTDEV size_t gather_source(size_t k, size_t words, const int *rows)
{
    return (size_t)rows[k / words] * words + k % words;
}

#endif
