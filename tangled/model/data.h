/**
 * @file data.h
 * @brief Training and test sets: the synthetic generator and the MNIST IDX loader.
 */
#ifndef DPS_DATA_H
#define DPS_DATA_H

#include <stddef.h>
#include <stdint.h>

/** A labelled data set held in host memory. */
typedef struct Dataset {
    long n;           /**< samples */
    int features;     /**< floats per sample (rows * cols) */
    int classes;      /**< labels lie in [0, classes) */
    int rows;         /**< image height */
    int cols;         /**< image width */
    float *x;         /**< n x features, row-major, values in [0, 1] */
    int32_t *y;       /**< n labels */
    char source[256]; /**< where it came from, for the banner */
} Dataset;

/** Samples in the synthetic training set unless --train_size says otherwise. */
#define SYNTHETIC_TRAIN 20000
/** Samples in the synthetic test set. */
#define SYNTHETIC_TEST 4000
/** Classes in the synthetic set and in MNIST. */
#define N_CLASSES 10

/**
 * Load the training and test sets from @p source ("synthetic" or a directory
 * of MNIST IDX files), keeping the first @p train_size training samples (0: all).
 * Returns 0, or -1 with the reason in @p err (ERR_LEN bytes).
 */
int data_load(const char *source, long train_size, uint64_t seed, Dataset *train, Dataset *test,
              char *err);
/** Release what data_load() allocated. */
void data_free(Dataset *d);
/**
 * Parse the IDX image file held in @p b[0..len) (@p name names it in messages) into
 * @p d's n, rows, cols, features and x. Returns 0, or -1 with the reason in @p err.
 */
int idx_parse_images(const unsigned char *b, size_t len, const char *name, Dataset *d,
                     char *err);
/** Parse the IDX label file in @p b[0..len) into @p d->y, for the d->n images already read. */
int idx_parse_labels(const unsigned char *b, size_t len, const char *name, Dataset *d,
                     char *err);

#endif
