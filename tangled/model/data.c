/**
 * @file data.c
 * @brief The synthetic data set and the MNIST IDX loader.
 */
#line 594 "chapters/01-mlp.nw"
#include "data.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rng.h"
#include "util.h"

#line 183 "chapters/01-mlp.nw"
#define SYN_LATENT 6    /**< d: dimension of the latent space */
#define SYN_MODES  10   /**< blobs per class */
#define SYN_SPREAD 0.25 /**< s: spread of a sample around its blob */
#define SYN_GAIN   2.0  /**< g: gain before the sigmoid */
#define SYN_NOISE  0.05 /**< standard deviation of the pixel noise */

/** The fixed part of the synthetic generator. */
typedef struct Generator {
    float centre[N_CLASSES][SYN_MODES][SYN_LATENT]; /**< blob centres, mu_{c,k} */
    float *proj;                                    /**< P: features x SYN_LATENT */
    int features;                                   /**< pixels per sample */
} Generator;

enum { STREAM_GENERATOR = 1, STREAM_TRAIN = 2, STREAM_TEST = 3 };

#line 210 "chapters/01-mlp.nw"
static void generator_init(Generator *g, uint64_t seed, int features)
{
    Rng r;
    rng_seed(&r, seed, STREAM_GENERATOR);
    for (int c = 0; c < N_CLASSES; c++)
        for (int k = 0; k < SYN_MODES; k++)
            for (int j = 0; j < SYN_LATENT; j++)
                g->centre[c][k][j] = rng_normal(&r);
    g->features = features;
    g->proj = xcalloc((size_t)features * SYN_LATENT, sizeof(float));
    for (size_t i = 0; i < (size_t)features * SYN_LATENT; i++)
        g->proj[i] = rng_normal(&r);
}
#line 258 "chapters/01-mlp.nw"
static void generate(const Generator *g, uint64_t seed, int split, long i, float *x, int32_t *y)
{
#line 261 "chapters/01-mlp.nw"
    Rng r;
    rng_seed(&r, seed, ((uint64_t)split << 40) + (uint64_t)i);
    int c = (int)rng_below(&r, N_CLASSES), k = (int)rng_below(&r, SYN_MODES);
    float z[SYN_LATENT];
    for (int j = 0; j < SYN_LATENT; j++)
        z[j] = g->centre[c][k][j] + (float)SYN_SPREAD * rng_normal(&r);
    const float scale = (float)(SYN_GAIN / sqrt((double)SYN_LATENT));
    for (int p = 0; p < g->features; p++) {
        const float *row = g->proj + (size_t)p * SYN_LATENT;
        float a = 0;
        for (int j = 0; j < SYN_LATENT; j++)
            a += row[j] * z[j];
        float v = 1.0f / (1.0f + expf(-scale * a)) + (float)SYN_NOISE * rng_normal(&r);
        x[p] = v < 0 ? 0 : v > 1 ? 1 : v;
    }
    *y = c;
}

#line 291 "chapters/01-mlp.nw"
static void synthetic(Dataset *d, const Generator *g, uint64_t seed, int split, long n)
{
    d->n = n;
    d->rows = d->cols = 28;
    d->features = 28 * 28;
    d->classes = N_CLASSES;
    d->x = xcalloc((size_t)n * (size_t)d->features, sizeof(float));
    d->y = xcalloc((size_t)n, sizeof(int32_t));
    for (long i = 0; i < n; i++)
        generate(g, seed, split, i, d->x + (size_t)i * (size_t)d->features, &d->y[i]);
}
#line 318 "chapters/01-mlp.nw"
static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Read a whole IDX file (read_file, Appendix A), pointing at a compressed copy if any. */
static int read_idx(const char *path, unsigned char **buf, size_t *len, char *err)
{
    if (read_file(path, buf, len, err) == 0)
        return 0;
    char gz[PATH_MAX + 4];
    snprintf(gz, sizeof gz, "%s.gz", path);
    if (access(path, F_OK) != 0 && access(gz, R_OK) == 0)
        return error_set(err, "%s: not found, but %s is: decompress it first (gunzip)", path,
                         gz);
#line 334 "chapters/01-mlp.nw"
    return -1;
}
#line 370 "chapters/01-mlp.nw"
int idx_parse_images(const unsigned char *b, size_t len, const char *path, Dataset *d,
                     char *err)
{
#line 390 "chapters/01-mlp.nw"
    if (len < 16)
        return error_set(err,
                         "%s: truncated header: %zu bytes, an IDX image file starts with "
                         "16",
                         path, len);
#line 394 "chapters/01-mlp.nw"
    uint32_t magic = be32(b), n = be32(b + 4), rows = be32(b + 8), cols = be32(b + 12);
    if (magic != 0x00000803)
        return error_set(err,
                         "%s: bad magic number 0x%08x, expected 0x00000803 (images: "
                         "unsigned bytes, 3 dimensions)%s",
                         path, magic,
                         magic == 0x00000801 ? "; this looks like a label file" : "");
#line 399 "chapters/01-mlp.nw"
    if (n == 0 || rows == 0 || cols == 0 || rows > 4096 || cols > 4096)
        return error_set(err, "%s: bad dimensions %u x %u x %u", path, n, rows, cols);
    size_t need = 16 + (size_t)n * rows * cols;
    if (len != need)
        return error_set(err,
                         "%s: %s: the header promises %u images of %ux%u (%zu bytes), "
                         "the file has %zu bytes",
                         path, len < need ? "truncated" : "trailing data", n, rows, cols, need,
                         len);
#line 374 "chapters/01-mlp.nw"
    d->n = n;
    d->rows = (int)rows;
    d->cols = (int)cols;
    d->features = (int)(rows * cols);
    d->x = xcalloc((size_t)n * rows * cols, sizeof(float));
    for (size_t i = 0; i < (size_t)n * rows * cols; i++)
        d->x[i] = b[16 + i] / 255.0f;
    return 0;
}

#line 424 "chapters/01-mlp.nw"
int idx_parse_labels(const unsigned char *b, size_t len, const char *path, Dataset *d,
                     char *err)
{
#line 449 "chapters/01-mlp.nw"
    if (len < 8)
        return error_set(err,
                         "%s: truncated header: %zu bytes, an IDX label file starts with "
                         "8",
                         path, len);
#line 453 "chapters/01-mlp.nw"
    uint32_t magic = be32(b), n = be32(b + 4);
    if (magic != 0x00000801)
        return error_set(err,
                         "%s: bad magic number 0x%08x, expected 0x00000801 (labels: "
                         "unsigned bytes, 1 dimension)%s",
                         path, magic,
                         magic == 0x00000803 ? "; this looks like an image file" : "");
#line 458 "chapters/01-mlp.nw"
    if (len != 8 + (size_t)n)
        return error_set(err,
                         "%s: %s: the header promises %u labels (%zu bytes), the file "
                         "has %zu bytes",
                         path, len < 8 + (size_t)n ? "truncated" : "trailing data", n,
                         8 + (size_t)n, len);
#line 469 "chapters/01-mlp.nw"
    if ((long)n != d->n)
        return error_set(err, "%s: %u labels, but the image file has %ld images", path, n,
                         d->n);
    for (uint32_t i = 0; i < n; i++)
        if (b[8 + i] >= N_CLASSES)
            return error_set(err, "%s: label %u at index %u is not in 0..%d", path, b[8 + i], i,
                             N_CLASSES - 1);
#line 429 "chapters/01-mlp.nw"
    d->classes = N_CLASSES;
    d->y = xcalloc(n ? n : 1, sizeof(int32_t));
    for (uint32_t i = 0; i < n; i++)
        d->y[i] = b[8 + i];
    return 0;
}
#line 490 "chapters/01-mlp.nw"
/** Read the file at @p path and hand its bytes to @p parse. */
static int idx_file(int (*parse)(const unsigned char *, size_t, const char *, Dataset *,
                                 char *),
                    const char *path, Dataset *d, char *err)
{
    unsigned char *b;
    size_t len;
    if (read_idx(path, &b, &len, err))
        return -1;
    int rc = parse(b, len, path, d, err);
    free(b);
    return rc;
}
#line 531 "chapters/01-mlp.nw"
static int idx_split(const char *dir, const char *images, const char *labels, Dataset *d,
                     char *err)
{
    char path[PATH_MAX];
    memset(d, 0, sizeof *d);
    snprintf(path, sizeof path, "%s/%s", dir, images);
    if (idx_file(idx_parse_images, path, d, err))
        return -1;
    snprintf(path, sizeof path, "%s/%s", dir, labels);
    if (idx_file(idx_parse_labels, path, d, err)) {
        data_free(d);
        return -1;
    }
    return 0;
}

#line 557 "chapters/01-mlp.nw"
static int idx_load(const char *dir, Dataset *train, Dataset *test, char *err)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return error_set(err, "--data %s: not 'synthetic' and not a directory", dir);
    if (idx_split(dir, "train-images-idx3-ubyte", "train-labels-idx1-ubyte", train, err))
        return -1;
    if (idx_split(dir, "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", test, err)) {
        data_free(train);
        return -1;
    }
    if (test->rows != train->rows || test->cols != train->cols) {
        error_set(err, "%s: test images are %dx%d but training images are %dx%d", dir,
                  test->rows, test->cols, train->rows, train->cols);
        data_free(train);
        data_free(test);
        return -1;
    }
    snprintf(train->source, sizeof train->source, "MNIST IDX files in %s", dir);
    snprintf(test->source, sizeof test->source, "%s", train->source);
    return 0;
}

#line 627 "chapters/01-mlp.nw"
int data_load(const char *source, long train_size, uint64_t seed, Dataset *train, Dataset *test,
              char *err)
{
    memset(train, 0, sizeof *train);
    memset(test, 0, sizeof *test);
    if (strcmp(source, "synthetic") == 0) {
#line 651 "chapters/01-mlp.nw"
        Generator g;
        generator_init(&g, seed, 28 * 28);
        synthetic(train, &g, seed, STREAM_TRAIN, train_size ? train_size : SYNTHETIC_TRAIN);
        synthetic(test, &g, seed, STREAM_TEST, SYNTHETIC_TEST);
        free(g.proj);
        snprintf(train->source, sizeof train->source, "synthetic (seed %llu)",
                 (unsigned long long)seed);
        snprintf(test->source, sizeof test->source, "%s", train->source);
        return 0;
#line 634 "chapters/01-mlp.nw"
    }
    if (idx_load(source, train, test, err))
        return -1;
#line 673 "chapters/01-mlp.nw"
    if (train_size > train->n) {
        error_set(err, "--train_size %ld: the training set in %s has only %ld samples",
                  train_size, source, train->n);
        data_free(train);
        data_free(test);
        return -1;
    }
    if (train_size)
        train->n = train_size;
#line 638 "chapters/01-mlp.nw"
    return 0;
}

#line 696 "chapters/01-mlp.nw"
void data_free(Dataset *d)
{
    free(d->x);
    free(d->y);
    d->x = NULL;
    d->y = NULL;
    d->n = 0;
}
