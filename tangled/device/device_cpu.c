/**
 * @file device_cpu.c
 * @brief The CPU device: the readable reference of every kernel.
 */
#line 1894 "chapters/01-mlp.nw"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_BLAS
#include <cblas.h>
#endif

#include "device.h"
#include "mlp_kernels.h"
#include "util.h"

#line 1932 "chapters/01-mlp.nw"
static long cpu_live; /* buffers from alloc() not yet released, counted atomically */

static void *alloc(size_t bytes)
{
    size_t rounded = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, rounded ? rounded : 64);
    if (!p)
        fatal("cpu: out of memory allocating %zu bytes", bytes);
    memset(p, 0, rounded ? rounded : 64);
    __atomic_add_fetch(&cpu_live, 1, __ATOMIC_RELAXED);
    return p;
}

static void release(void *p)
{
    if (p)
        __atomic_sub_fetch(&cpu_live, 1, __ATOMIC_RELAXED);
    free(p);
}
#line 1957 "chapters/01-mlp.nw"
static void upload(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
}
static void download(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
}
static void copy(void *dst, const void *src, size_t bytes)
{
    memmove(dst, src, bytes);
}
static void zero(void *p, size_t bytes)
{
    memset(p, 0, bytes);
}
static void sync(void)
{
#line 1973 "chapters/01-mlp.nw"
}
#line 1420 "chapters/01-mlp.nw"
static const void *resident(const void *host, size_t bytes)
{
    (void)bytes;
    return host; /* the CPU reads host memory where it lies */
}
static void release_resident(const void *p)
{
    (void)p;
}
#line 1991 "chapters/01-mlp.nw"
static int cpu_close(char *err)
{
    long held = __atomic_load_n(&cpu_live, __ATOMIC_RELAXED);
    if (held != 0)
        return error_set(err, "cpu: %ld buffer(s) from alloc() never released", held);
    return 0;
}
#line 2194 "chapters/02-shm.nw"
static void peer_copy(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
}
#line 2017 "chapters/01-mlp.nw"
/** op(A)[i][p] of the stored A, inside gemm_plain(). */
#define A_AT(i, p) (ta ? A[(size_t)(p)*m + (i)] : A[(size_t)(i)*k + (p)])

void gemm_plain(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                const float *B, float beta, float *C)
{
    for (int i = 0; i < m; i++) {
        float *c = C + (size_t)i * n;
        for (int j = 0; j < n; j++)
            c[j] = beta == 0.0f ? 0.0f : beta * c[j];
        if (!tb) {
#line 2042 "chapters/01-mlp.nw"
            for (int p = 0; p < k; p++) {
                const float a = alpha * A_AT(i, p), *b = B + (size_t)p * n;
                for (int j = 0; j < n; j++)
                    c[j] += a * b[j];
            }
#line 2029 "chapters/01-mlp.nw"
        } else {
#line 2062 "chapters/01-mlp.nw"
            for (int j = 0; j < n; j++) {
                const float *b = B + (size_t)j * k;
                float s = 0;
                for (int p = 0; p < k; p++)
                    s += A_AT(i, p) * b[p];
                c[j] += alpha * s;
            }
#line 2031 "chapters/01-mlp.nw"
        }
    }
#undef A_AT
}
#line 2081 "chapters/01-mlp.nw"
static void gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                 const float *B, float beta, float *C)
{
#ifdef HAVE_BLAS
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                m, n, k, alpha, A, ta ? m : k, B, tb ? k : n, beta, C, n);
#line 2088 "chapters/01-mlp.nw"
#else
    gemm_plain(ta, tb, m, n, k, alpha, A, B, beta, C);
#endif
}
#line 2141 "chapters/01-mlp.nw"
static void bias_act_forward(float *y, const float *bias, int rows, int cols, bool relu)
{
    for (int i = 0; i < rows; i++) {
        float *row = y + (size_t)i * cols;
        for (int j = 0; j < cols; j++)
            row[j] = bias_act(row[j], bias[j], relu);
    }
}
#line 2156 "chapters/01-mlp.nw"
static void relu_backward(float *dy, const float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dy[i] = relu_grad(dy[i], y[i]);
}
#line 2168 "chapters/01-mlp.nw"
static void bias_backward(float *dbias, const float *dy, int rows, int cols)
{
    for (int j = 0; j < cols; j++)
        dbias[j] = 0.0f;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            dbias[j] += dy[(size_t)i * cols + j];
}
#line 1653 "chapters/01-mlp.nw"
static void softmax_xent(const float *logits, const int *labels, int rows, int cols,
                         float *dlogits, float *stats)
{
    double loss = 0;
    int right = 0;
    for (int i = 0; i < rows; i++) {
        int ok;
        loss += softmax_xent_row(logits + (size_t)i * cols, labels[i], cols,
                                 dlogits ? dlogits + (size_t)i * cols : NULL, rows, &ok);
        right += ok;
    }
    stats[0] += (float)loss;
    stats[1] += (float)right;
}
#line 2187 "chapters/01-mlp.nw"
static void axpy(size_t n, float a, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++)
        y[i] += a * x[i];
}

static void scale(size_t n, float a, float *x)
{
    for (size_t i = 0; i < n; i++)
        x[i] *= a;
}

static void gather_rows(void *dst, const void *src, const int *rows, int n, size_t words)
{
    uint32_t *d = dst;
    const uint32_t *s = src;
    for (int i = 0; i < n; i++) /* a row at a time: the GPU's word k is this row's k % words */
        memcpy(d + (size_t)i * words, s + gather_source((size_t)i * words, words, rows),
               words * sizeof *d);
}

#line 725 "chapters/08-direct.nw"
static void reduce(size_t n, const float *const *src, int k, float scale, float *dst)
{
    enum { BLOCK = 1024 };
    if (k == 2) { /* the common case in one pass; dst may be src[0] or src[1] exactly */
        const float *a = src[0], *b = src[1];
        for (size_t i = 0; i < n; i++)
            dst[i] = (a[i] + b[i]) * scale;
        return;
    }
    float acc[BLOCK];
    for (size_t lo = 0; lo < n; lo += BLOCK) {
        size_t m = n - lo < BLOCK ? n - lo : BLOCK;
        for (size_t i = 0; i < m; i++)
            acc[i] = src[0][lo + i];
        for (int j = 1; j < k; j++)
            for (size_t i = 0; i < m; i++)
                acc[i] += src[j][lo + i];
        for (size_t i = 0; i < m; i++)
            dst[lo + i] = acc[i] * scale;
    }
}
#line 403 "chapters/07-zero.nw"
static void adamw(size_t n, const AdamStep *a, const float *g, float *m, float *u, float *p)
{
    for (size_t i = 0; i < n; i++)
        adamw_element(a, g[i], &m[i], &u[i], &p[i]);
}
#line 249 "chapters/10-compress.nw"
static void encode(size_t n, Dtype t, const float *x, void *out)
{
    for (size_t i = 0; i < n; i++)
        encode_element(t, x, out, i);
}

static void decode(size_t n, Dtype t, const void *in, float *y, bool add)
{
    for (size_t i = 0; i < n; i++)
        y[i] = add ? y[i] + decode_element(t, in, i) : decode_element(t, in, i);
}

static size_t count_nonfinite(size_t n, const float *x)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += !isfinite(x[i]);
    return bad;
}

#line 852 "chapters/10-compress.nw"
static void orthonormalize(int rows, int cols, float *a)
{
    for (int j = 0; j < cols; j++) {
        double len = 0;
        for (int i = 0; i < rows; i++)
            len += (double)a[i * cols + j] * a[i * cols + j];
        float inv = 1.0f / (float)(sqrt(len) + ORTHO_EPS);
        for (int i = 0; i < rows; i++)
            a[i * cols + j] *= inv;
        for (int k = j + 1; k < cols; k++) {
            double dot = 0;
            for (int i = 0; i < rows; i++)
                dot += (double)a[i * cols + j] * a[i * cols + k];
            for (int i = 0; i < rows; i++)
                a[i * cols + k] -= (float)dot * a[i * cols + j];
        }
    }
}
#line 1079 "chapters/10-compress.nw"
/** What the CPU's counting pass reads: the vector. */
typedef struct Magnitudes {
    size_t n;       /**< entries */
    const float *x; /**< the vector */
} Magnitudes;

static void count_bytes(const void *ctx, uint32_t prefix, uint32_t mask, int shift,
                        size_t count[256])
{
    const Magnitudes *v = ctx;
    memset(count, 0, 256 * sizeof *count);
    for (size_t i = 0; i < v->n; i++) {
        uint32_t u = magnitude_bits(v->x[i]);
        if ((u & mask) == prefix)
            count[u >> shift & 255u]++;
    }
}
#line 1099 "chapters/10-compress.nw"
static void top_k(size_t n, const float *x, size_t k, IndexValue *out)
{
    Magnitudes v = {n, x};
    uint32_t t;
    size_t need;
    radix_select(n, k, count_bytes, &v, &t, &need);
    for (size_t i = 0, j = 0; i < n && j < (k < n ? k : n); i++) {
        uint32_t u = magnitude_bits(x[i]);
        if (u > t || (u == t && need > 0 && need--))
            out[j++] = (IndexValue){(uint32_t)i, x[i]};
    }
}
#line 873 "chapters/10-compress.nw"
static void scatter_add(size_t k, const IndexValue *v, float a, float *y)
{
    for (size_t i = 0; i < k; i++)
        y[v[i].index] += a * v[i].value;
}
#line 2216 "chapters/01-mlp.nw"
static Device cpu = {
    .kind = DEVICE_CPU,
    .name = "cpu",
    .alloc = alloc,
    .release = release,
    .upload = upload,
    .download = download,
    .copy = copy,
    .zero = zero,
    .sync = sync,
    .resident = resident,
    .release_resident = release_resident,
    .close = cpu_close,
    .gemm = gemm,
    .bias_act_forward = bias_act_forward,
    .relu_backward = relu_backward,
    .bias_backward = bias_backward,
    .softmax_xent = softmax_xent,
    .axpy = axpy,
    .scale = scale,
    .gather_rows = gather_rows,
    .count = 1,
    .peer_copy = peer_copy,
    .reduce = reduce,
    .adamw = adamw,
    .encode = encode,
    .decode = decode,
    .count_nonfinite = count_nonfinite,
    .orthonormalize = orthonormalize,
    .top_k = top_k,
    .scatter_add = scatter_add,
};

#line 2266 "chapters/01-mlp.nw"
#ifdef HAVE_BLAS
/** Whether the person running the program set OPENBLAS_NUM_THREADS. */
static bool threads_asked(void)
{
    const char *asked = getenv("OPENBLAS_NUM_THREADS");
    return asked && *asked;
}
#endif

/** Write the CPU device's description: its GEMM, and OpenBLAS's threads. */
static void describe_cpu(void)
{
#ifdef HAVE_BLAS
    int t = openblas_get_num_threads();
    snprintf(cpu.description, sizeof cpu.description, "cpu, OpenBLAS sgemm, %d thread%s%s", t,
             t == 1 ? "" : "s", threads_asked() ? " (OPENBLAS_NUM_THREADS)" : "");
#else
    snprintf(cpu.description, sizeof cpu.description, "cpu, plain-C GEMM (no OpenBLAS)");
#endif
}

const Device *device_cpu(void)
{
    describe_cpu();
    return &cpu;
}

#line 2246 "chapters/01-mlp.nw"
void device_cpu_threads(int threads)
{
#ifdef HAVE_BLAS
    if (!threads_asked())
        openblas_set_num_threads(threads < 1 ? 1 : threads);
#else
    (void)threads;
#endif
    describe_cpu();
}
