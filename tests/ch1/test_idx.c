/* Chapter 1: the MNIST IDX loader on small files the test writes: a good set, and every
 * way a file can be wrong. */
#include <sys/stat.h>

#include "data.h"
#include "helpers.h"

static char dir[64];

static void make_dir(void)
{
    strcpy(dir, "/tmp/dps-idx-XXXXXX");
    cr_assert(mkdtemp(dir), "mkdtemp failed");
}

static void remove_dir(void)
{
    const char *names[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                           "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte",
                           "train-images-idx3-ubyte.gz"};
    char p[128];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

/* Write an image file: magic, n, rows, cols, then `bytes` pixel bytes (pixel i = i % 256). */
static void write_images(const char *name, uint32_t magic, uint32_t n, uint32_t rows,
                         uint32_t cols, size_t bytes)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    cr_assert(f);
    unsigned char h[16];
    put32(h, magic);
    put32(h + 4, n);
    put32(h + 8, rows);
    put32(h + 12, cols);
    fwrite(h, 1, 16, f);
    for (size_t i = 0; i < bytes; i++)
        fputc((int)(i % 256), f);
    fclose(f);
}

/* Write a label file: magic, n, then the given labels. */
static void write_labels(const char *name, uint32_t magic, uint32_t n, const unsigned char *l,
                         size_t count)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    cr_assert(f);
    unsigned char h[8];
    put32(h, magic);
    put32(h + 4, n);
    fwrite(h, 1, 8, f);
    fwrite(l, 1, count, f);
    fclose(f);
}

static const unsigned char labels5[5] = {3, 1, 4, 1, 5};
static const unsigned char labels3[3] = {9, 2, 6};

/* A good set: 5 training images of 3x2, 3 test images. */
static void write_good(void)
{
    write_images("train-images-idx3-ubyte", 0x803, 5, 3, 2, 5 * 6);
    write_labels("train-labels-idx1-ubyte", 0x801, 5, labels5, 5);
    write_images("t10k-images-idx3-ubyte", 0x803, 3, 3, 2, 3 * 6);
    write_labels("t10k-labels-idx1-ubyte", 0x801, 3, labels3, 3);
}

/* Load, expect failure, and check the message names the file and the reason. */
static void expect_error(const char *file, const char *reason)
{
    char err[ERR_LEN];
    Dataset tr, te;
    int rc = data_load(dir, 0, 1, &tr, &te, err);
    cr_assert(rc == -1, "loading succeeded, expected an error about %s (%s)", file, reason);
    cr_assert(strstr(err, file), "the message does not name %s: %s", file, err);
    cr_assert(strstr(err, reason), "the message does not say '%s': %s", reason, err);
}

TestSuite(ch1_idx, .init = make_dir, .fini = remove_dir);

Test(ch1_idx, reads_a_good_set)
{
    write_good();
    char err[ERR_LEN];
    Dataset tr, te;
    cr_assert(data_load(dir, 0, 1, &tr, &te, err) == 0, "%s", err);
    cr_assert(tr.n == 5 && te.n == 3 && tr.rows == 3 && tr.cols == 2 && tr.features == 6,
              "shape: %ld train, %ld test, %dx%d", tr.n, te.n, tr.rows, tr.cols);
    for (int i = 0; i < 30; i++)
        cr_assert(tr.x[i] == (float)(i % 256) / 255.0f, "pixel %d = %f", i, tr.x[i]);
    for (int i = 0; i < 5; i++)
        cr_assert(tr.y[i] == labels5[i], "label %d = %d, expected %d", i, tr.y[i], labels5[i]);
    cr_assert(te.y[2] == 6);
    data_free(&tr);
    data_free(&te);
    /* --train_size keeps the first samples, and refuses more than there are. */
    cr_assert(data_load(dir, 2, 1, &tr, &te, err) == 0, "%s", err);
    cr_assert(tr.n == 2 && tr.y[1] == 1);
    data_free(&tr);
    data_free(&te);
    cr_assert(data_load(dir, 6, 1, &tr, &te, err) == -1, "train_size 6 of 5 accepted");
    cr_assert(strstr(err, "has only 5 samples"), "%s", err);
}

Test(ch1_idx, wrong_magic)
{
    write_good();
    write_images("train-images-idx3-ubyte", 0x804, 5, 3, 2, 30);
    expect_error("train-images-idx3-ubyte", "bad magic number 0x00000804");
}

Test(ch1_idx, labels_where_images_belong)
{
    write_good();
    const unsigned char many[12] = {0};
    write_labels("t10k-images-idx3-ubyte", 0x801, 12, many, 12);
    expect_error("t10k-images-idx3-ubyte", "looks like a label file");
}

Test(ch1_idx, truncated_images)
{
    write_good();
    write_images("train-images-idx3-ubyte", 0x803, 5, 3, 2, 29);
    expect_error("train-images-idx3-ubyte", "truncated");
}

Test(ch1_idx, trailing_data)
{
    write_good();
    write_images("train-images-idx3-ubyte", 0x803, 5, 3, 2, 31);
    expect_error("train-images-idx3-ubyte", "trailing data");
}

Test(ch1_idx, truncated_header)
{
    write_good();
    char p[128];
    snprintf(p, sizeof p, "%s/train-labels-idx1-ubyte", dir);
    FILE *f = fopen(p, "wb");
    fwrite("\0\0\x08", 1, 3, f);
    fclose(f);
    expect_error("train-labels-idx1-ubyte", "truncated header");
}

Test(ch1_idx, truncated_labels)
{
    write_good();
    write_labels("t10k-labels-idx1-ubyte", 0x801, 3, labels3, 2);
    expect_error("t10k-labels-idx1-ubyte", "truncated");
}

Test(ch1_idx, mismatched_counts)
{
    write_good();
    write_labels("train-labels-idx1-ubyte", 0x801, 4, labels5, 4);
    expect_error("train-labels-idx1-ubyte", "4 labels, but the image file has 5 images");
}

Test(ch1_idx, label_out_of_range)
{
    write_good();
    const unsigned char bad[3] = {1, 12, 3};
    write_labels("t10k-labels-idx1-ubyte", 0x801, 3, bad, 3);
    expect_error("t10k-labels-idx1-ubyte", "label 12 at index 1 is not in 0..9");
}

Test(ch1_idx, test_shape_differs)
{
    write_good();
    write_images("t10k-images-idx3-ubyte", 0x803, 3, 2, 3, 18);
    expect_error(dir, "test images are 2x3 but training images are 3x2");
}

Test(ch1_idx, zero_dimensions)
{
    write_good();
    write_images("train-images-idx3-ubyte", 0x803, 5, 0, 2, 0);
    expect_error("train-images-idx3-ubyte", "bad dimensions");
}

Test(ch1_idx, missing_file_and_compressed_hint)
{
    write_good();
    char p[128];
    snprintf(p, sizeof p, "%s/train-images-idx3-ubyte", dir);
    unlink(p);
    expect_error("train-images-idx3-ubyte", "No such file");
    snprintf(p, sizeof p, "%s/train-images-idx3-ubyte.gz", dir);
    FILE *f = fopen(p, "wb");
    fclose(f);
    expect_error("train-images-idx3-ubyte", "decompress it first");
}

Test(ch1_idx, not_a_directory)
{
    char err[ERR_LEN];
    Dataset tr, te;
    cr_assert(data_load("/nonexistent/mnist", 0, 1, &tr, &te, err) == -1);
    cr_assert(strstr(err, "not 'synthetic' and not a directory"), "%s", err);
}
