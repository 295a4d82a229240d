/* What the data-parallel training tests (chapters 3 and 5 to 8) set up alike: the synthetic
 * data, the size of their model of one hidden layer of 24, a rank's device and
 * communicators, and a strategy that wraps another. */
#ifndef DPS_TEST_TRAIN_SETUP_H
#define DPS_TEST_TRAIN_SETUP_H

#include "ch2/ranks.h"
#include "data.h"
#include "helpers.h"
#include "model.h"
#include "train.h"

/* The synthetic data set (seed 3) with train_size training samples (0: all). */
static inline void load_synthetic(long train_size, Dataset *train, Dataset *test)
{
    char err[ERR_LEN];
    cr_assert(data_load("synthetic", train_size, 3, train, test, err) == 0, "%s", err);
}

/* The parameters of the tests' model of one hidden layer of 24 units on @p train. */
static inline size_t params_of_24(const Dataset *train)
{
    return (size_t)train->features * 24 + 24 + 24 * 10 + 10;
}

/* In a rank: the device under test, the communicator of the test's world on it (returned)
 * and its host communicator, and a model on the device for train's samples with hidden
 * layers hidden[0..n_hidden), micro-batches of `batch` and seed `seed`; NULL with err. */
static inline Comm *rank_with_model(int rank, const Dataset *train, const int *hidden,
                                    int n_hidden, int batch, uint64_t seed,
                                    const Device **dev, Comm **host, Model *m, char *err)
{
    *dev = rank_device(rank, err);
    Comm *c = *dev ? comm_shm_open(test_world, rank, *dev, err) : NULL;
    *host = c ? comm_shm_host(c, err) : NULL;
    if (!*host || model_init(m, *dev, train->features, hidden, n_hidden, train->classes,
                             batch, seed, err))
        return NULL;
    return c;
}

/* sum_stats of a strategy whose state begins with the Strategy it wraps: passed on to
 * it. */
static inline int wrapped_sum_stats(Strategy *s, double *v, int n, char *err)
{
    Strategy *inner = s->state;
    return inner->sum_stats(inner, v, n, err);
}

#endif
