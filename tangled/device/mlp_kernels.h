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
#include <stdint.h>
#include <string.h>

#include "device.h"

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

/** Floats per vector load of a GPU's reduce() (chapter 8): 16 bytes. */
#define REDUCE_LANES 4

/**
 * The groups of REDUCE_LANES floats that a GPU's reduce() loads whole: n / REDUCE_LANES
 * when @p dst and the @p k sources are all 16-byte aligned, else 0. Elements from
 * REDUCE_LANES times that on are added one at a time.
 */
static inline HOSTDEV size_t reduce_groups(size_t n, const float *const *src, int k,
                                           const float *dst)
{
    uintptr_t bits = (uintptr_t)dst;
    for (int j = 0; j < k; j++)
        bits |= (uintptr_t)src[j];
    return bits % (REDUCE_LANES * sizeof(float)) ? 0 : n / REDUCE_LANES;
}
/** The bfloat16 nearest to @p f, ties to even; a NaN stays a NaN (chapter 10). */
static inline HOSTDEV uint16_t bf16_from_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)(u >> 16 | 0x0040u);
    u += 0x7fffu + (u >> 16 & 1u);
    return (uint16_t)(u >> 16);
}

/** The float that bfloat16 @p h stands for: exact. */
static inline HOSTDEV float float_from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/** The IEEE half nearest to @p f, ties to even; 65520 and up: infinity (chapter 10). */
static inline HOSTDEV uint16_t half_from_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint16_t sign = (uint16_t)(u >> 16 & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
        return sign | 0x7e00u;
    if (a >= 0x477ff000u) /* 65520 */
        return sign | 0x7c00u;
    if (a >= 0x38800000u) { /* 2^-14: a normal half */
        uint32_t r = a - 0x38000000u;
        r += 0x0fffu + (r >> 13 & 1u);
        return sign | (uint16_t)(r >> 13);
    }
    if (a <= 0x33000000u) /* 2^-25 */
        return sign;
    uint32_t m = (a & 0x007fffffu) | 0x00800000u, s = 126u - (a >> 23);
    m += (1u << (s - 1)) - 1u + (m >> s & 1u);
    return sign | (uint16_t)(m >> s);
}

/** The float that half @p h stands for: exact. */
static inline HOSTDEV float float_from_half(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = h >> 10 & 0x1fu, m = h & 0x3ffu, u;
    if (e == 0) { /* zero or subnormal: m units of 2^-24 */
        float f = (float)m * 0x1p-24f;
        return sign ? -f : f;
    }
    u = sign | (e == 31 ? 0x7f800000u | m << 13 : (e + 112u) << 23 | m << 13);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/** Write x[i] as a @p t into out[i]. */
static inline HOSTDEV void encode_element(Dtype t, const float *x, void *out, size_t i)
{
    if (t == DTYPE_BF16)
        ((uint16_t *)out)[i] = bf16_from_float(x[i]);
    else if (t == DTYPE_FP16)
        ((uint16_t *)out)[i] = half_from_float(x[i]);
    else
        ((float *)out)[i] = x[i];
}

/** The float that in[i], a @p t, stands for. */
static inline HOSTDEV float decode_element(Dtype t, const void *in, size_t i)
{
    return t == DTYPE_BF16   ? float_from_bf16(((const uint16_t *)in)[i])
           : t == DTYPE_FP16 ? float_from_half(((const uint16_t *)in)[i])
                             : ((const float *)in)[i];
}
/** |x|'s bits as an unsigned integer: ordered as the magnitudes are (NaN above inf). */
static inline HOSTDEV uint32_t magnitude_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u & 0x7fffffffu;
}

/** After a pass: the byte whose bucket holds the @p need th largest, from the top; @p need
 *  becomes how many are still to be found in it. */
static inline HOSTDEV unsigned radix_pick(const size_t *count, size_t *need)
{
    unsigned b = 255;
    while (b > 0 && count[b] < *need)
        *need -= count[b--];
    return b;
}
/** Counts 256 buckets: of the magnitudes whose bits under @p mask are @p prefix, how many
 *  have each value of the byte at @p shift. */
typedef void (*RadixCount)(const void *ctx, uint32_t prefix, uint32_t mask, int shift,
                           size_t count[256]);

/** The bits of the k-th largest of @p n magnitudes, a byte at a time from the top, into
 *  *t; *need becomes how many equal to it belong to the k largest. */
static inline void radix_select(size_t n, size_t k, RadixCount count_bytes, const void *ctx,
                                uint32_t *t, size_t *need)
{
    uint32_t prefix = 0, mask = 0;
    size_t count[256];
    *need = k < n ? k : n;
    for (int shift = 24; shift >= 0 && *need > 0; shift -= 8) {
        count_bytes(ctx, prefix, mask, shift, count);
        prefix |= (uint32_t)radix_pick(count, need) << shift;
        mask |= 255u << shift;
    }
    *t = prefix;
}
/** Added to a column's length before dividing by it (chapter 10). */
#define ORTHO_EPS 1e-8
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
/** The alignment cuBLASLt is told that @p p has: the largest power of two that divides its
 *  address, at most 256 (what cuBLASLt assumes when told nothing). */
static inline uint32_t lt_alignment(const void *p)
{
    uint32_t align = 256;
    while (align > 1 && (uintptr_t)p % align != 0)
        align /= 2;
    return align;
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
/** A block of the bias gradient: BIAS_TILE_COLS x BIAS_TILE_LANES threads, one tile of
 *  BIAS_TILE_COLS columns by BIAS_SLICE_ROWS rows (one slice). */
enum { BIAS_TILE_COLS = 32, BIAS_TILE_LANES = 8, BIAS_SLICE_ROWS = 64 };

/** Blocks across @p cols columns (the grid's width): one a tile, at least one. */
static inline HOSTDEV unsigned bias_tiles(int cols)
{
    return cols <= BIAS_TILE_COLS ? 1u : (unsigned)((cols - 1) / BIAS_TILE_COLS + 1);
}

/** Slices of BIAS_SLICE_ROWS that cover @p rows rows (the grid's height): at least one. */
static inline HOSTDEV unsigned bias_slices(int rows)
{
    return rows <= BIAS_SLICE_ROWS ? 1u : (unsigned)((rows - 1) / BIAS_SLICE_ROWS + 1);
}
/** Lane @p lane's part of column @p j in slice @p s: rows s * BIAS_SLICE_ROWS + lane,
 *  + BIAS_TILE_LANES, ..., below the slice's end and @p rows, added in that order. */
static inline HOSTDEV float bias_lane_sum(const float *dy, int rows, int cols, size_t j,
                                          unsigned s, unsigned lane)
{
    long end = ((long)s + 1) * BIAS_SLICE_ROWS < rows ? ((long)s + 1) * BIAS_SLICE_ROWS : rows;
    float sum = 0.0f;
    for (long i = (long)s * BIAS_SLICE_ROWS + lane; i < end; i += BIAS_TILE_LANES)
        sum += dy[(size_t)i * (size_t)cols + j];
    return sum;
}

/** v[0] + v[stride] + ... + v[(n - 1) stride], in that order: lanes, then slices. */
static inline HOSTDEV float sum_in_order(const float *v, unsigned n, size_t stride)
{
    float sum = 0.0f;
    for (unsigned k = 0; k < n; k++)
        sum += v[(size_t)k * stride];
    return sum;
}

#endif
