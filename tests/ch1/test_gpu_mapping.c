/* Chapter 1: what the CPU can check of the GPU path. The cuBLAS arguments of the CUDA gemm
 * (colmajor_gemm) go, unchanged, to OpenBLAS's column-major sgemm and must give what the
 * row-major gemm_plain gives; every kernel's launch geometry and index mapping
 * (grid_blocks, thread_index, element_column, stride_blocks, grid_stride, gather_source) is
 * walked on the CPU, thread by thread, or checked by arithmetic where the grid is too large
 * to walk; and the bias gradient's tiles (bias_tiles, bias_slices, bias_lane_sum,
 * sum_in_order) are walked through both passes and compared with the CPU's column sums. */
#include <criterion/criterion.h>
#include <stdint.h>

#ifdef HAVE_BLAS
#include <cblas.h>
#endif

#include "device.h"
#include "mlp_kernels.h"
#include "rng.h"
#include "util.h"

enum { T = KERNEL_THREADS }; /* threads in a block, as every kernel is launched */

/* ------------------------------------------------------------- the cuBLAS arguments */

#ifdef HAVE_BLAS
/* cuBLAS refuses (CUBLAS_STATUS_INVALID_VALUE) what BLAS refuses: a leading dimension
 * shorter than the stored operand's column. Say which one, before the numbers disagree. */
static void check_leading_dimensions(const ColMajorGemm *g, const char *what)
{
    int rows_a = g->transa ? g->k : g->m, rows_b = g->transb ? g->n : g->k;
    cr_assert(g->m >= 0 && g->n >= 0 && g->k >= 0, "%s: negative size", what);
    cr_assert(g->lda >= (rows_a > 1 ? rows_a : 1), "%s: lda %d < %d", what, g->lda, rows_a);
    cr_assert(g->ldb >= (rows_b > 1 ? rows_b : 1), "%s: ldb %d < %d", what, g->ldb, rows_b);
    cr_assert(g->ldc >= (g->m > 1 ? g->m : 1), "%s: ldc %d < %d", what, g->ldc, g->m);
}

/* One product both ways. Entries are small integers and alpha, beta are dyadic, so every
 * partial sum is exact in float and the two must agree bit for bit, whatever the order. */
static void check_one_gemm(Rng *r, bool ta, bool tb, int m, int n, int k, float alpha,
                           float beta)
{
    size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    float *A = xcalloc(na, sizeof(float)), *B = xcalloc(nb, sizeof(float));
    float *want = xcalloc(nc, sizeof(float)), *got = xcalloc(nc, sizeof(float));
    for (size_t i = 0; i < na; i++)
        A[i] = (float)((int)rng_below(r, 9) - 4);
    for (size_t i = 0; i < nb; i++)
        B[i] = (float)((int)rng_below(r, 9) - 4);
    for (size_t i = 0; i < nc; i++)
        want[i] = got[i] = (float)((int)rng_below(r, 9) - 4);
    char what[96];
    snprintf(what, sizeof what, "ta=%d tb=%d m=%d n=%d k=%d alpha=%g beta=%g", ta, tb, m, n,
             k, alpha, beta);

    gemm_plain(ta, tb, m, n, k, alpha, A, B, beta, want);
    ColMajorGemm g = colmajor_gemm(ta, tb, m, n, k, A, B);
    check_leading_dimensions(&g, what);
    cblas_sgemm(CblasColMajor, g.transa ? CblasTrans : CblasNoTrans,
                g.transb ? CblasTrans : CblasNoTrans, g.m, g.n, g.k, alpha, g.a, g.lda, g.b,
                g.ldb, beta, got, g.ldc);
    for (size_t i = 0; i < nc; i++)
        cr_assert(got[i] == want[i], "%s: C[%zu][%zu] is %g through the cuBLAS arguments, %g "
                  "row-major", what, i / n, i % n, got[i], want[i]);
    free(A);
    free(B);
    free(want);
    free(got);
}
#endif

Test(gpu_mapping, cublas_arguments_give_the_row_major_product)
{
#ifndef HAVE_BLAS
    cr_skip_test("built without OpenBLAS (NO_BLAS=1 or no cblas.h): no column-major sgemm "
                 "to hand the cuBLAS arguments to");
#else
    static const int shapes[][3] = {{1, 1, 1},  {7, 3, 5}, {33, 17, 65}, {5, 11, 2},
                                    {1, 9, 4},  {13, 1, 7}, {2, 6, 1},   {31, 29, 3}};
    static const float scalars[][2] = {{0.75f, -1.5f}, {-2.0f, 0.5f}};
    Rng r;
    rng_seed(&r, 7, 1);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 4; t++)
            for (size_t ab = 0; ab < sizeof scalars / sizeof scalars[0]; ab++)
                check_one_gemm(&r, t & 1, t & 2, shapes[s][0], shapes[s][1], shapes[s][2],
                               scalars[ab][0], scalars[ab][1]);
#endif
}

/* ------------------------------------------------------- one thread per item, walked */

/* Launch grid_blocks(n) blocks of T threads, as the per-element, per-row and per-column
 * kernels do, and run every thread's mapping: each thread not masked out (index >= n, the
 * kernels' test) must own a distinct item, and every item must be owned. */
static void walk_one_thread_per_item(size_t n)
{
    unsigned blocks = grid_blocks(n);
    cr_assert(blocks >= 1, "n=%zu: a launch of 0 blocks is refused by CUDA", n);
    cr_assert((uint64_t)blocks * T >= n, "n=%zu: %u blocks of %d leave items out", n, blocks,
              T);
    cr_assert(n == 0 || (uint64_t)(blocks - 1) * T < n, "n=%zu: %u blocks, the last idle", n,
              blocks);
    unsigned char *owners = xcalloc(n ? n : 1, 1);
    for (unsigned b = 0; b < blocks; b++)
        for (unsigned t = 0; t < T; t++) {
            size_t i = thread_index(b, T, t);
            if (i >= n)
                continue;
            cr_assert(owners[i] == 0, "n=%zu: item %zu owned twice (block %u, thread %u)", n,
                      i, b, t);
            owners[i] = 1;
        }
    for (size_t i = 0; i < n; i++)
        cr_assert(owners[i] == 1, "n=%zu: no thread owns item %zu", n, i);
    free(owners);
}

/* Sizes around the block size, and some a layer of the book's MLP gives. */
static const size_t around_a_block[] = {0,   1,   2,   255, 256,  257,  511,
                                        512, 513, 767, 768, 1000, 4097, 65535};

Test(gpu_mapping, per_element_grid_owns_each_element_once)
{
    /* relu_backward: n elements; bias_act_forward: rows * cols. */
    for (size_t s = 0; s < sizeof around_a_block / sizeof around_a_block[0]; s++)
        walk_one_thread_per_item(around_a_block[s]);
    static const int shapes[][2] = {{1, 1}, {3, 257}, {257, 3}, {64, 10}, {64, 128}, {100, 784}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        walk_one_thread_per_item((size_t)shapes[s][0] * shapes[s][1]);
}

Test(gpu_mapping, per_row_and_per_column_grids_own_each_once)
{
    /* softmax_xent: one thread per row; bias_backward: one per column. Both are ints. */
    static const int counts[] = {1, 10, 64, 128, 255, 256, 257, 784, 10000};
    for (size_t s = 0; s < sizeof counts / sizeof counts[0]; s++)
        walk_one_thread_per_item((size_t)counts[s]);
}

Test(gpu_mapping, bias_column_of_every_element)
{
    static const int shapes[][2] = {{1, 1}, {3, 257}, {257, 3}, {64, 10}, {7, 13}, {100, 784}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int rows = shapes[s][0], cols = shapes[s][1];
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++) {
                int got = element_column((size_t)r * cols + c, cols);
                cr_assert(got == c, "%dx%d: element (%d, %d) reads bias[%d]", rows, cols, r, c,
                          got);
            }
        /* Walking the grid instead: each column is read by exactly `rows` threads. */
        size_t n = (size_t)rows * cols;
        int *readers = xcalloc((size_t)cols, sizeof(int));
        for (unsigned b = 0; b < grid_blocks(n); b++)
            for (unsigned t = 0; t < T; t++) {
                size_t i = thread_index(b, T, t);
                if (i < n)
                    readers[element_column(i, cols)]++;
            }
        for (int c = 0; c < cols; c++)
            cr_assert(readers[c] == rows, "%dx%d: bias[%d] read by %d threads", rows, cols, c,
                      readers[c]);
        free(readers);
    }
}

/* ------------------------------------------- one thread per item, past 2^31: by arithmetic */

Test(gpu_mapping, per_element_grid_past_two_to_the_31)
{
    const uint64_t two31 = (uint64_t)1 << 31;
    const uint64_t sizes[] = {two31 - 1, two31, two31 + 5, 2 * two31, 3 * two31,
                              6 * two31 + 7, (two31 - 1) * T};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = (size_t)sizes[s];
        unsigned blocks = grid_blocks(n);
        cr_assert(blocks <= two31 - 1, "n=%zu: %u blocks, past CUDA's 2^31 - 1", n, blocks);
        cr_assert((uint64_t)blocks * T >= n && (uint64_t)(blocks - 1) * T < n,
                  "n=%zu: %u blocks of %d do not just cover it", n, blocks, T);
        /* The last thread of the grid: computed without wrapping. */
        uint64_t last = (uint64_t)(blocks - 1) * T + (T - 1);
        cr_assert(thread_index(blocks - 1, T, T - 1) == last,
                  "n=%zu: the last thread's index is %zu, not %llu", n,
                  thread_index(blocks - 1, T, T - 1), (unsigned long long)last);
        /* The thread that owns the last item finds it. */
        size_t owner_block = (n - 1) / T, owner_thread = (n - 1) % T;
        cr_assert(thread_index((unsigned)owner_block, T, (unsigned)owner_thread) == n - 1,
                  "n=%zu: the last item's thread maps to %zu", n,
                  thread_index((unsigned)owner_block, T, (unsigned)owner_thread));
        /* The first and the last block own distinct, consecutive items; the last block's
         * in-bounds threads are exactly those up to item n - 1. */
        size_t inside = 0;
        for (unsigned t = 0; t < T; t++) {
            cr_assert(thread_index(0, T, t) == t, "n=%zu: block 0, thread %u", n, t);
            size_t i = thread_index(blocks - 1, T, t);
            cr_assert(i == (size_t)(blocks - 1) * T + t, "n=%zu: last block, thread %u maps to "
                      "%zu", n, t, i);
            inside += i < n;
        }
        cr_assert(inside == n - (size_t)(blocks - 1) * T, "n=%zu: %zu threads of the last "
                  "block in bounds", n, inside);
    }
    /* Too many items for one grid: a count CUDA refuses, not one wrapped to a small grid. */
    const size_t too_many[] = {(size_t)two31 * T, ((size_t)1 << 40) + 3, SIZE_MAX};
    for (size_t s = 0; s < sizeof too_many / sizeof too_many[0]; s++)
        cr_assert(grid_blocks(too_many[s]) > two31 - 1, "n=%zu: %u blocks", too_many[s],
                  grid_blocks(too_many[s]));
}

Test(gpu_mapping, bias_column_past_two_to_the_31)
{
    /* rows * cols past 2^32: the column must come from the 64-bit index. */
    const int shapes[][2] = {{(1 << 22) + 3, 1021}, {(1 << 21) + 1, 2048}, {3, 1 << 30}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int rows = shapes[s][0], cols = shapes[s][1];
        const int rs[] = {0, 1, rows / 2, rows - 1}, cs[] = {0, 1, cols / 3, cols - 1};
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                size_t i = (size_t)rs[a] * cols + cs[b];
                int got = element_column(i, cols);
                cr_assert(got == cs[b], "%dx%d: element (%d, %d), index %zu, reads bias[%d]",
                          rows, cols, rs[a], cs[b], i, got);
            }
    }
}

/* --------------------------------------------------------------------- grid-stride */

/* Launch stride_blocks(n) blocks, as axpy and scale do, and run every thread's loop: every
 * item must be visited exactly once. */
static void walk_grid_stride(size_t n)
{
    unsigned blocks = stride_blocks(n);
    cr_assert(blocks >= 1 && blocks <= STRIDE_BLOCKS_MAX, "n=%zu: %u blocks", n, blocks);
    size_t step = grid_stride(blocks, T);
    cr_assert(step == (size_t)blocks * T, "n=%zu: step %zu for %u blocks", n, step, blocks);
    unsigned char *visits = xcalloc(n ? n : 1, 1);
    for (unsigned b = 0; b < blocks; b++)
        for (unsigned t = 0; t < T; t++)
            for (size_t i = thread_index(b, T, t); i < n; i += step) {
                cr_assert(visits[i] == 0, "n=%zu: item %zu visited twice", n, i);
                visits[i] = 1;
            }
    for (size_t i = 0; i < n; i++)
        cr_assert(visits[i] == 1, "n=%zu: item %zu never visited", n, i);
    free(visits);
}

Test(gpu_mapping, grid_stride_visits_each_element_once)
{
    for (size_t s = 0; s < sizeof around_a_block / sizeof around_a_block[0]; s++)
        walk_grid_stride(around_a_block[s]);
    const size_t full = (size_t)STRIDE_BLOCKS_MAX * T; /* the capped grid, one item each */
    const size_t past[] = {full - 1, full, full + 1, 3 * full + 17};
    for (size_t s = 0; s < sizeof past / sizeof past[0]; s++)
        walk_grid_stride(past[s]);
}

/* Past 2^31 the loops are too long to run, but their shape is simple: if the threads'
 * starts are exactly 0 .. step-1, then {start + j * step} partitions [0, n) (item i is
 * visited once, by the thread that starts at i mod step). Check the starts by walking the
 * capped grid, and each thread's visit count and last item by arithmetic. */
Test(gpu_mapping, grid_stride_past_two_to_the_31)
{
    const uint64_t two31 = (uint64_t)1 << 31;
    const uint64_t sizes[] = {two31 + 5, 3 * two31, ((uint64_t)1 << 40) + 3};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = (size_t)sizes[s];
        unsigned blocks = stride_blocks(n);
        cr_assert(blocks == STRIDE_BLOCKS_MAX, "n=%zu: %u blocks, not the cap", n, blocks);
        size_t step = grid_stride(blocks, T);
        cr_assert(step == (size_t)STRIDE_BLOCKS_MAX * T, "n=%zu: step %zu", n, step);
        unsigned char *starts = xcalloc(step, 1);
        uint64_t visits = 0;
        for (unsigned b = 0; b < blocks; b++)
            for (unsigned t = 0; t < T; t++) {
                size_t first = thread_index(b, T, t);
                cr_assert(first < step && starts[first] == 0,
                          "n=%zu: block %u, thread %u starts at %zu", n, b, t, first);
                starts[first] = 1;
                uint64_t count = (n - first + step - 1) / step; /* items first + j * step < n */
                size_t final = first + (size_t)(count - 1) * step;
                cr_assert(final < n && final + step >= n && final + step > final,
                          "n=%zu: thread from %zu ends at %zu", n, first, final);
                visits += count;
            }
        cr_assert(visits == n, "n=%zu: %llu visits", n, (unsigned long long)visits);
        free(starts);
    }
}

/* The batch gather: the GPU's kernel, walked as its grid-stride loop runs it (each thread's
 * words, each word from gather_source), gives the bytes of the CPU's gather_rows, which
 * copies whole rows; and both give, row by row, what indexing the data set by hand gives.
 * Rows repeat and come in any order, as a shuffled epoch's do; widths of one word (the
 * labels), an odd few, and a sample's 784. */
Test(gpu_mapping, the_gather_kernel_copies_the_rows_the_cpu_copies)
{
    const size_t widths[] = {1, 3, 784};
    enum { ROWS = 50, B = 37 };
    Rng g;
    rng_seed(&g, 7, 0);
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        size_t words = widths[w];
        uint32_t *set = xcalloc(ROWS * words, sizeof *set);
        uint32_t *cpu = xcalloc(B * words, sizeof *cpu), *gpu = xcalloc(B * words, sizeof *gpu);
        int rows[B];
        for (size_t i = 0; i < ROWS * words; i++)
            set[i] = (uint32_t)rng_below(&g, 1u << 30);
        for (int i = 0; i < B; i++)
            rows[i] = (int)rng_below(&g, ROWS);
        rows[B - 1] = rows[0]; /* a repeated row */
        device_cpu()->gather_rows(cpu, set, rows, B, words);
        size_t n = (size_t)B * words, step = grid_stride(stride_blocks(n), T);
        for (unsigned b = 0; b < stride_blocks(n); b++)
            for (unsigned t = 0; t < T; t++)
                for (size_t k = thread_index(b, T, t); k < n; k += step)
                    gpu[k] = set[gather_source(k, words, rows)];
        for (int i = 0; i < B; i++)
            for (size_t j = 0; j < words; j++) {
                uint32_t want = set[(size_t)rows[i] * words + j];
                cr_assert(cpu[(size_t)i * words + j] == want && gpu[(size_t)i * words + j] == want,
                          "width %zu: row %d, word %zu: cpu %u, kernel %u, data %u", words, i,
                          j, cpu[(size_t)i * words + j], gpu[(size_t)i * words + j], want);
            }
        free(set), free(cpu), free(gpu);
    }
}

/* ------------------------------------------------ the bias gradient in tiles, walked */

/* The CUDA bias_backward's two passes, run on the CPU block by block and thread by thread
 * with the functions its kernels call: bias_tile_kernel on a grid of bias_tiles(cols) x
 * bias_slices(rows) blocks of BIAS_TILE_COLS x BIAS_TILE_LANES threads, then, for more than
 * one slice, bias_slices_kernel on grid_blocks(cols) blocks of T. */
static void bias_tiles_on_the_cpu(float *dbias, const float *dy, int rows, int cols)
{
    unsigned tiles = bias_tiles(cols), slices = bias_slices(rows);
    float *out = slices == 1 ? dbias : xcalloc((size_t)slices * (size_t)cols + 1, sizeof *out);
    float part[BIAS_TILE_LANES * BIAS_TILE_COLS];
    for (unsigned s = 0; s < slices; s++)
        for (unsigned x = 0; x < tiles; x++) {
            for (unsigned ty = 0; ty < BIAS_TILE_LANES; ty++)
                for (unsigned tx = 0; tx < BIAS_TILE_COLS; tx++) {
                    size_t j = thread_index(x, BIAS_TILE_COLS, tx);
                    part[ty * BIAS_TILE_COLS + tx] =
                        j < (size_t)cols ? bias_lane_sum(dy, rows, cols, j, s, ty) : 0.0f;
                }
            for (unsigned tx = 0; tx < BIAS_TILE_COLS; tx++) { /* __syncthreads, lane 0 */
                size_t j = thread_index(x, BIAS_TILE_COLS, tx);
                if (j < (size_t)cols)
                    out[(size_t)s * cols + j] =
                        sum_in_order(part + tx, BIAS_TILE_LANES, BIAS_TILE_COLS);
            }
        }
    if (slices == 1)
        return;
    for (unsigned b = 0; b < grid_blocks((size_t)cols); b++)
        for (unsigned t = 0; t < T; t++) {
            size_t j = thread_index(b, T, t);
            if (j < (size_t)cols)
                dbias[j] = sum_in_order(out + j, slices, (size_t)cols);
        }
    free(out);
}

/* Batches around a slice (64 rows) and a lane (8), the default batch, a large one; widths
 * around a tile (32 columns), the book's layers. */
static const int bias_rows[] = {0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 200, 1024};
static const int bias_cols[] = {1, 10, 31, 32, 33, 65, 128};

/* Every element of dy is added exactly once into its own column, and nothing past the
 * matrix is read (it holds NaN) or written (dbias[cols] keeps its mark): with row r0 all
 * ones and every other row zero, each column's sum is exactly 1, for every r0. */
Test(gpu_mapping, bias_tiles_add_each_element_once)
{
    for (size_t a = 0; a < sizeof bias_rows / sizeof bias_rows[0]; a++)
        for (size_t c = 0; c < sizeof bias_cols / sizeof bias_cols[0]; c++) {
            int rows = bias_rows[a], cols = bias_cols[c];
            size_t n = (size_t)rows * cols, pad = (size_t)BIAS_SLICE_ROWS * cols;
            float *dy = xcalloc(n + pad, sizeof *dy), *dbias = xcalloc(cols + 1, sizeof *dbias);
            for (size_t i = n; i < n + pad; i++)
                dy[i] = NAN;
            for (int r0 = 0; r0 < (rows ? rows : 1); r0++) {
                for (int j = 0; j < cols && rows; j++)
                    dy[(size_t)r0 * cols + j] = 1.0f;
                dbias[cols] = 42.0f;
                bias_tiles_on_the_cpu(dbias, dy, rows, cols);
                for (int j = 0; j < cols; j++)
                    cr_assert(dbias[j] == (rows ? 1.0f : 0.0f),
                              "rows=%d cols=%d: row %d counted %g times in column %d", rows,
                              cols, r0, dbias[j], j);
                cr_assert(dbias[cols] == 42.0f, "rows=%d cols=%d: wrote past the gradient",
                          rows, cols);
                for (int j = 0; j < cols && rows; j++)
                    dy[(size_t)r0 * cols + j] = 0.0f;
            }
            free(dy), free(dbias);
        }
}

/* Against the CPU device's column sums (row after row, the plain kernel's order): to the bit
 * for small integers, where every order is exact; within the chapter's bound, 2 (rows - 1)
 * 2^-24 sum_i |dy_ij|, for uniform floats, where the order shows in the last bits. */
Test(gpu_mapping, bias_tiles_sum_the_columns_the_cpu_sums)
{
    Rng g;
    rng_seed(&g, 7, 2);
    for (size_t a = 0; a < sizeof bias_rows / sizeof bias_rows[0]; a++)
        for (size_t c = 0; c < sizeof bias_cols / sizeof bias_cols[0]; c++)
            for (int exact = 0; exact < 2; exact++) {
                int rows = bias_rows[a], cols = bias_cols[c];
                size_t n = (size_t)rows * cols;
                float *dy = xcalloc(n + 1, sizeof *dy), *want = xcalloc(cols, sizeof *want);
                float *got = xcalloc(cols, sizeof *got);
                for (size_t i = 0; i < n; i++)
                    dy[i] = exact ? (float)((int)rng_below(&g, 9) - 4)
                                  : 2.0f * rng_uniform(&g) - 1.0f;
                device_cpu()->bias_backward(want, dy, rows, cols);
                bias_tiles_on_the_cpu(got, dy, rows, cols);
                for (int j = 0; j < cols; j++) {
                    double mass = 0;
                    for (int i = 0; i < rows; i++)
                        mass += fabs(dy[(size_t)i * cols + j]);
                    double bound = exact ? 0 : 2.0 * (rows > 1 ? rows - 1 : 0) * 0x1p-24 * mass;
                    cr_assert(fabs((double)got[j] - want[j]) <= bound,
                              "rows=%d cols=%d %s: column %d is %.9g in tiles, %.9g summed "
                              "down (bound %.3g)",
                              rows, cols, exact ? "integers" : "floats", j, got[j], want[j],
                              bound);
                }
                free(dy), free(want), free(got);
            }
}

/* The grid's arithmetic: tiles and slices round up, never give 0, and do not overflow. */
Test(gpu_mapping, bias_tiles_and_slices_cover_the_matrix)
{
    static const int ns[] = {0, 1, 31, 32, 33, 63, 64, 65, 4096, 2147483647};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        long n = ns[k];
        unsigned t = bias_tiles((int)n), s = bias_slices((int)n);
        cr_assert(t >= 1 && s >= 1, "n=%ld: a grid of no blocks", n);
        cr_assert((long)t * BIAS_TILE_COLS >= n &&
                      (n <= BIAS_TILE_COLS || (long)(t - 1) * BIAS_TILE_COLS < n),
                  "n=%ld: %u tiles", n, t);
        cr_assert((long)s * BIAS_SLICE_ROWS >= n &&
                      (n <= BIAS_SLICE_ROWS || (long)(s - 1) * BIAS_SLICE_ROWS < n),
                  "n=%ld: %u slices", n, s);
    }
}
