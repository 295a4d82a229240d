/* Appendix B: the fuzz targets. Each takes arbitrary bytes, feeds them to one of the book's
 * parsers, and checks a property beyond "no crash"; a violated property aborts, which
 * libFuzzer reports like a crash. Built into libFuzzer programs by `make fuzz`
 * (tests/fuzz/fuzz.c), and into the book's tests, which replay every input kept in
 * tests/fuzz/regressions/ (crashes found once, fixed, kept). */
#ifndef DPS_FUZZ_TARGETS_H
#define DPS_FUZZ_TARGETS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "data.h"
#include "options.h"
#include "util.h"

/* Stop with a message: libFuzzer saves the input that got here. */
#define FUZZ_CHECK(cond, ...)                                                             \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "fuzz: property violated: " __VA_ARGS__);                    \
            fputc('\n', stderr);                                                          \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

/* A message must be one line that fits its buffer. */
static inline void fuzz_one_line(const char *err)
{
    size_t n = strnlen(err, ERR_LEN);
    FUZZ_CHECK(n > 0 && n < ERR_LEN, "an error message of %zu bytes", n);
    FUZZ_CHECK(!memchr(err, '\n', n), "a message with a newline: %s", err);
}

/* The checkpoint reader: accepted bytes re-encode to themselves; refused ones say why. */
static inline void fuzz_checkpoint_bytes(const uint8_t *data, size_t size)
{
    Checkpoint ck;
    char err[ERR_LEN] = "";
    if (checkpoint_parse(data, size, "input", &ck, err) != 0) {
        fuzz_one_line(err);
        FUZZ_CHECK(ck.params == NULL, "a refused checkpoint kept its parameters");
        return;
    }
    FUZZ_CHECK(size == checkpoint_bytes(ck.n_params), "accepted %zu bytes for %zu parameters",
               size, ck.n_params);
    unsigned char *again = malloc(size);
    checkpoint_encode(&ck, again);
    FUZZ_CHECK(memcmp(again, data, size) == 0, "an accepted checkpoint re-encodes differently");
    free(again);
    checkpoint_free(&ck);
}

/* Each input twice: as it is, and with its last 4 bytes replaced by the right CRC-32, so
 * that the fuzzer reaches the checks behind the checksum (it would almost never guess one). */
static inline int fuzz_checkpoint(const uint8_t *data, size_t size)
{
    fuzz_checkpoint_bytes(data, size);
    if (size >= 4) {
        uint8_t *fixed = malloc(size);
        memcpy(fixed, data, size);
        uint32_t crc = crc32_update(0, fixed, size - 4);
        for (int i = 0; i < 4; i++)
            fixed[size - 4 + i] = (uint8_t)(crc >> (8 * i));
        fuzz_checkpoint_bytes(fixed, size);
        free(fixed);
    }
    return 0;
}

/* The IDX parsers: the input is an image file, or (first byte odd) a label file for as many
 * images as its header says. Accepted images hold exactly their pixels, scaled into [0, 1]. */
static inline int fuzz_idx(const uint8_t *data, size_t size)
{
    Dataset d;
    memset(&d, 0, sizeof d);
    char err[ERR_LEN] = "";
    if (size > 0 && data[0] & 1) {
        d.n = size >= 9 ? (long)((uint32_t)data[5] << 24 | (uint32_t)data[6] << 16 |
                                 (uint32_t)data[7] << 8 | data[8]) ^ (data[0] >> 1 & 1)
                        : 0; /* the header's count, or one off it */
        if (idx_parse_labels(data + 1, size - 1, "input", &d, err) != 0)
            fuzz_one_line(err);
        else
            for (long i = 0; i < d.n; i++)
                FUZZ_CHECK(d.y[i] >= 0 && d.y[i] < 10, "label %d", d.y[i]);
    } else if (idx_parse_images(data, size, "input", &d, err) != 0) {
        fuzz_one_line(err);
    } else {
        FUZZ_CHECK(size == 16 + (size_t)d.n * (size_t)d.features, "%zu bytes, %ld x %d", size,
                   d.n, d.features);
        for (size_t i = 0; i < (size_t)d.n * (size_t)d.features; i++)
            FUZZ_CHECK(d.x[i] >= 0 && d.x[i] <= 1, "pixel %zu is %g", i, d.x[i]);
    }
    data_free(&d);
    return 0;
}

/* The option parser: the input is a command line, one argument per line. Every program's
 * options are accepted; a refusal is one line; an acceptance leaves values in range. */
static inline int fuzz_options(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1), *argv[34] = {"fuzz"};
    memcpy(copy, data, size);
    copy[size] = '\0';
    int argc = 1;
    for (char *p = copy; argc < 33;) {
        argv[argc++] = p;
        char *nl = memchr(p, '\n', size - (size_t)(p - copy));
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    argv[argc] = NULL;
    Options o;
    options_defaults(&o);
    /* The programs hand these lists in from their tables; any lists exercise the reader. */
    options_set_choices(OPT_OPTIMIZER, "sgd|momentum|adamw");
    options_set_choices(OPT_TRANSPORT, "shm|mpi");
    options_set_choices(OPT_STRATEGY, "ring|direct");
    char err[ERR_LEN] = "";
    if (options_parse(&o, argc, argv, ~0u, err) != 0) {
        fuzz_one_line(err);
    } else {
        FUZZ_CHECK(o.batch_size >= 1 && o.epochs >= 1 && o.lr > 0 && o.n_gpus >= 1 &&
                   o.n_gpus <= MAX_RANKS && o.n_hidden >= 0 && o.n_hidden <= MAX_HIDDEN &&
                   o.timeout > 0 && o.step_factor >= 2 && o.iters >= 1 && o.warmup >= 0,
                   "accepted values out of range");
        for (int l = 0; l < o.n_hidden; l++)
            FUZZ_CHECK(o.hidden[l] >= 1 && o.hidden[l] <= 65536, "width %d", o.hidden[l]);
    }
    free(copy);
    return 0;
}

#endif
