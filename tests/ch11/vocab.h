/* The harness of the tests of exercise 11.3, public and hidden: ranks of a row, each holding
 * its share of the classes (chunk_start's shares, in rank order), calling vocab_parallel_xent
 * on logits every rank can compute for itself, and the bytes each sends. */
#ifndef DPS_TEST_VOCAB_H
#define DPS_TEST_VOCAB_H

#include <math.h>

#include "ch11.h"
#include "ch2/ranks.h"

/* Row i's logit of class k in case `seed`: a spread of a few units around `offset`. */
static inline float vocab_logit(int i, int k, int seed, float offset)
{
    long v = ((long)i * 37 + (long)k * 11 + (long)seed * 5 + (long)(k * k % 13)) % 23 - 11;
    return offset + 0.25f * (float)v;
}

static inline int vocab_label(int i, int V, int seed)
{
    return (i * 7 + seed * 3) % V;
}

/* This rank's share of the V classes: first and cols. */
static inline void vocab_share(int V, int T, int t, int *first, int *cols)
{
    *first = (int)chunk_start((size_t)V, T, t);
    *cols = (int)chunk_start((size_t)V, T, t + 1) - *first;
}

/* One call on this rank's share of case (B, V, seed, offset): logits filled, labels made,
 * loss and dlogits (cols per row) out; bytes sent by the call in *bytes. 0, or -1 with err. */
static inline int vocab_call(Comm *c, const Watched *w, int B, int V, int seed, float offset,
                             float *loss, float *dlogits, size_t *bytes, char *err)
{
    int first, cols;
    vocab_share(V, c->size, c->rank, &first, &cols);
    float *z = xcalloc((size_t)B * cols + 1, sizeof *z);
    int *labels = xcalloc((size_t)B + 1, sizeof *labels);
    for (int i = 0; i < B; i++) {
        labels[i] = vocab_label(i, V, seed);
        for (int j = 0; j < cols; j++)
            z[(size_t)i * cols + j] = vocab_logit(i, first + j, seed, offset);
    }
    size_t before = w->bytes;
    int rc = vocab_parallel_xent(c, z, labels, B, cols, first, loss, dlogits, err);
    *bytes = w->bytes - before;
    free(z);
    free(labels);
    return rc;
}

/* A row of T ranks running body. */
typedef int (*VocabBody)(Comm *c, const Watched *w, char *err);

static inline int vocab_main(int rank, int size, void *arg, char *err)
{
    (void)size;
    VocabBody body = *(VocabBody *)arg;
    Watched w;
    Comm *c = cpu_watched(rank, &w, err);
    if (!c)
        return -1;
    int rc = body(c, &w, err);
    c->close(c);
    return rc;
}

static inline void vocab_run(int T, VocabBody body)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(T, 0, 5.0, vocab_main, &body, 60, err) == 0, "%s", err);
}

#endif
