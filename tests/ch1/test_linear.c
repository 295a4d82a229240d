/* Chapter 1: the fused forward of a layer (linear_forward, cuBLASLt on the GPU). On the CPU:
 * the alignment cuBLASLt is told of (lt_alignment); the bias epilogue's layout, walked (the
 * bias added along the rows of the column-major D that colmajor_gemm describes is the bias
 * of each output); and the model's choice of the fused entry, through a CPU device that has
 * one (the same bits as the plain path, the ReLU left out where act_later says). On a device
 * that has the member (cuda): the fused forward against gemm and bias_act_forward on the same
 * device, within the chapter's bound, and to the bit where the bias is off its 16 bytes. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef HAVE_BLAS
#include <cblas.h>
#endif

#include "helpers.h"
#include "mlp_kernels.h"
#include "model.h"
#include "rng.h"

/* ------------------------------------------------------------------ the alignment */

Test(linear, alignment_is_the_largest_power_of_two_up_to_256)
{
    unsigned char *base = aligned_alloc(512, 1024);
    cr_assert(base != NULL);
    for (size_t k = 0; k < 700; k++) {
        uint32_t want = 256;
        while (want > 1 && k % want != 0)
            want /= 2;
        cr_assert(lt_alignment(base + k) == want, "offset %zu: %u, not %u", k,
                  lt_alignment(base + k), want);
    }
    const float *f = (const float *)base;
    cr_assert(lt_alignment(f + 1) == 4);
    cr_assert(lt_alignment(f + 4) == 16);
    cr_assert(lt_alignment(f + 100352) == 256); /* the default model's b_0 */
    cr_assert(lt_alignment(f + 64) == 256);
    free(base);
}

/* ------------------------------------------------------- the bias epilogue's layout */

#ifdef HAVE_BLAS
/* y = x W + bias (ReLU when relu), row-major, both ways: gemm_plain and the CPU's
 * bias_act_forward; and the column-major product colmajor_gemm describes, with the bias
 * added as cuBLASLt's epilogue adds it, bias[i] to every element of row i of D. Small
 * integers: every sum is exact, so the two agree to the bit. */
static void check_epilogue(Rng *r, int B, int in, int out, bool relu)
{
    size_t nx = (size_t)B * in, nw = (size_t)in * out, ny = (size_t)B * out;
    float *x = xcalloc(nx, sizeof(float)), *W = xcalloc(nw, sizeof(float));
    float *bias = xcalloc((size_t)out, sizeof(float));
    float *want = xcalloc(ny, sizeof(float)), *got = xcalloc(ny, sizeof(float));
    for (size_t i = 0; i < nx; i++)
        x[i] = (float)((int)rng_below(r, 9) - 4);
    for (size_t i = 0; i < nw; i++)
        W[i] = (float)((int)rng_below(r, 9) - 4);
    for (int j = 0; j < out; j++)
        bias[j] = (float)((int)rng_below(r, 41) - 20);
    gemm_plain(false, false, B, out, in, 1.0f, x, W, 0.0f, want);
    device_cpu()->bias_act_forward(want, bias, B, out, relu);

    ColMajorGemm g = colmajor_gemm(false, false, B, out, in, x, W);
    cr_assert(g.m == out, "D's rows are the outputs: the bias's length");
    cr_assert(g.n == B, "D's columns are the batch's rows");
    cblas_sgemm(CblasColMajor, g.transa ? CblasTrans : CblasNoTrans,
                g.transb ? CblasTrans : CblasNoTrans, g.m, g.n, g.k, 1.0f, g.a, g.lda, g.b,
                g.ldb, 0.0f, got, g.ldc);
    for (int col = 0; col < g.n; col++)
        for (int row = 0; row < g.m; row++) {
            float *d = &got[(size_t)col * g.ldc + row];
            *d += bias[row];
            if (relu && !(*d > 0.0f))
                *d = 0.0f;
        }
    for (size_t i = 0; i < ny; i++)
        cr_assert(got[i] == want[i], "B=%d in=%d out=%d relu=%d: y[%zu][%zu] is %g through "
                  "the epilogue's layout, %g plain", B, in, out, relu, i / out, i % out,
                  got[i], want[i]);
    free(x), free(W), free(bias), free(want), free(got);
}
#endif

Test(linear, the_bias_epilogue_adds_each_output_its_bias)
{
#ifndef HAVE_BLAS
    cr_skip_test("built without OpenBLAS: no column-major sgemm to walk the layout with");
#else
    static const int shapes[][3] = {{1, 1, 1}, {4, 5, 3}, {7, 3, 5}, {64, 33, 17},
                                    {2, 13, 1}, {1, 9, 4}, {31, 29, 10}};
    Rng r;
    rng_seed(&r, 42, 3);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int relu = 0; relu < 2; relu++)
            check_epilogue(&r, shapes[s][0], shapes[s][1], shapes[s][2], relu);
#endif
}

/* ------------------------------------------------------------- the model's choice */

typedef struct {
    int B, in, out;
    bool relu;
    const float *x, *y;
} LinearCall;
static LinearCall calls[8];
static int n_calls;

/* A CPU device with a fused forward: it records the call and does the plain two calls. */
static void recording_linear(const float *x, const float *W, const float *bias, float *y, int B,
                             int in, int out, bool relu)
{
    if (n_calls < 8)
        calls[n_calls] = (LinearCall){B, in, out, relu, x, y};
    n_calls++;
    device_cpu()->gemm(false, false, B, out, in, 1.0f, x, W, 0.0f, y);
    device_cpu()->bias_act_forward(y, bias, B, out, relu);
}

static void check_choice(bool later)
{
    enum { F = 5, C = 3, B = 4 };
    static const int hidden[2] = {6, 4};
    Device fused = *device_cpu();
    fused.linear_forward = recording_linear;
    char err[ERR_LEN];
    Model plain, m;
    cr_assert(model_init(&plain, device_cpu(), F, hidden, 2, C, B, 11, err) == 0, "%s", err);
    cr_assert(model_init(&m, &fused, F, hidden, 2, C, B, 11, err) == 0, "%s", err);
    plain.act_later[1] = m.act_later[1] = later;
    float x[B * F];
    int32_t y[B] = {0, 2, 1, 2};
    Rng r;
    rng_seed(&r, 5, 9);
    for (int i = 0; i < B * F; i++)
        x[i] = 2 * rng_normal(&r);
    model_set_batch(&plain, x, y, B);
    model_set_batch(&m, x, y, B);
    n_calls = 0;
    model_forward(&plain, B);
    cr_assert(n_calls == 0, "the CPU device has no fused entry");
    model_forward(&m, B);
    cr_assert(n_calls == m.n_layers, "one fused call a layer");
    for (int l = 0; l < m.n_layers; l++) {
        bool relu = l < m.n_layers - 1 && !(later && l == 1);
        cr_assert(calls[l].B == B && calls[l].in == m.layer[l].in &&
                  calls[l].out == m.layer[l].out, "layer %d: the shape", l);
        cr_assert(calls[l].x == m.act[l] && calls[l].y == m.act[l + 1], "layer %d: buffers", l);
        cr_assert(calls[l].relu == relu, "layer %d: relu (act_later %d)", l, later);
        size_t n = (size_t)B * (size_t)m.width[l + 1];
        cr_assert(memcmp(m.act[l + 1], plain.act[l + 1], n * sizeof(float)) == 0,
                  "layer %d: the fused entry's output is not the plain path's", l);
    }
    model_free(&plain);
    model_free(&m);
}

Test(linear, the_model_takes_the_fused_entry_and_keeps_act_later)
{
    check_choice(false);
    check_choice(true);
}

/* ------------------------------------------------- on a device with the fused entry */

/* One layer both ways on @p dev: the fused entry against gemm and bias_act_forward, W at
 * float offset @p w_off and the bias @p b_gap floats past the weights' end. */
static void check_fused(const Device *dev, Rng *r, int B, int in, int out, bool relu,
                        size_t w_off, size_t b_gap)
{
    size_t nx = (size_t)B * in, nw = (size_t)in * out, ny = (size_t)B * out;
    size_t np = w_off + nw + b_gap + (size_t)out;
    float *x = xcalloc(nx, sizeof(float)), *p = xcalloc(np, sizeof(float));
    float *plain = xcalloc(ny, sizeof(float)), *fused = xcalloc(ny, sizeof(float));
    for (size_t i = 0; i < nx; i++)
        x[i] = rng_normal(r);
    for (size_t i = 0; i < np; i++)
        p[i] = rng_normal(r) / sqrtf((float)in);
    float *dx = dev->alloc(nx * sizeof(float)), *dp = dev->alloc(np * sizeof(float));
    float *dplain = dev->alloc(ny * sizeof(float)), *dfused = dev->alloc(ny * sizeof(float));
    dev->upload(dx, x, nx * sizeof(float));
    dev->upload(dp, p, np * sizeof(float));
    const float *W = dp + w_off, *bias = W + nw + b_gap;
    dev->gemm(false, false, B, out, in, 1.0f, dx, W, 0.0f, dplain);
    dev->bias_act_forward(dplain, bias, B, out, relu);
    dev->linear_forward(dx, W, bias, dfused, B, in, out, relu);
    dev->download(plain, dplain, ny * sizeof(float));
    dev->download(fused, dfused, ny * sizeof(float));
    const float *hw = p + w_off, *hb = hw + nw + b_gap;
    bool exact = lt_alignment(bias) < 16; /* the plain path, by the same calls */
    for (int i = 0; i < B; i++)
        for (int j = 0; j < out; j++) {
            double S = 0;
            for (int k = 0; k < in; k++)
                S += fabs((double)x[(size_t)i * in + k] * hw[(size_t)k * out + j]);
            double bound = ldexp((in + 1) * S + fabs(hb[j]), -23);
            double d = fabs((double)fused[(size_t)i * out + j] - plain[(size_t)i * out + j]);
            cr_assert(exact ? d == 0 : d <= bound, "B=%d in=%d out=%d relu=%d W+%zu gap %zu: "
                      "y[%d][%d] fused %.9g, plain %.9g (bound %.3g)", B, in, out, relu, w_off,
                      b_gap, i, j, fused[(size_t)i * out + j], plain[(size_t)i * out + j],
                      exact ? 0.0 : bound);
        }
    dev->release(dx), dev->release(dp), dev->release(dplain), dev->release(dfused);
    free(x), free(p), free(plain), free(fused);
}

Test(linear, fused_forward_is_the_plain_path_within_its_bound)
{
    const Device *dev = test_device();
    if (!dev->linear_forward)
        cr_skip_test("%s has no fused forward (only cuda has one): nothing to compare",
                     dev->name);
    static const int shapes[][3] = {{1, 1, 1},   {4, 5, 3},     {64, 784, 128},
                                    {64, 128, 10}, {33, 17, 65}, {1000, 64, 32},
                                    {7, 3, 5},   {256, 1024, 1024}};
    Rng r;
    rng_seed(&r, 17, 4);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int relu = 0; relu < 2; relu++) {
            const int *sh = shapes[s];
            check_fused(dev, &r, sh[0], sh[1], sh[2], relu, 0, 0);
            check_fused(dev, &r, sh[0], sh[1], sh[2], relu, 1, 3); /* W off 16 B, bias on */
            check_fused(dev, &r, sh[0], sh[1], sh[2], relu, 4, 1); /* bias off: plain */
        }
}
