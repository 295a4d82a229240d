/* Tests of exercise 8.3, direct_all_to_all. */
#include "ch8.h"
#include "ch8/windows.h"
#include "helpers.h"

enum { MOST = 1001, MAX_N = 5 };

/* Rank r's element i of its block for rank j, in call k: integers, each (r, j) its own. */
/* Fill rank's blocks for call k, run the all-to-all, and check that block j holds rank j's
 * block for this rank. */
static int one_call(Comm *c, float *buf, float *scratch, size_t count, int k, char *err)
{
    win_a2a_fill(buf, count, c->rank, c->size, k);
    if (direct_all_to_all(c, buf, count, scratch, err))
        return -1;
    return win_a2a_check(buf, count, c->rank, c->size, k, err);
}

/* Four counts on every number of ranks; no message, and every peer's buffer read. */
static int counts(Comm *c, const Watched *w, float *buf, char *err)
{
    const size_t each[] = {0, 1, 7, MOST};
    float *scratch = xcalloc((size_t)c->size * MOST, sizeof(float));
    int rc = 0;
    for (int k = 0; k < 4 && !rc; k++)
        rc = one_call(c, buf, scratch, each[k], k, err);
    free(scratch);
    if (rc)
        return -1;
    if (w->sends != 0)
        return error_set(err, "rank %d sent %ld messages: an all-to-all by direct reads sends "
                         "none", c->rank, w->sends);
    unsigned long long peers = ((1ull << c->size) - 1) & ~(1ull << c->rank);
    if ((w->read & peers) != peers)
        return error_set(err, "rank %d of %d did not read every peer's buffer (read mask %llx)",
                         c->rank, c->size, w->read);
    return 0;
}

Test(ex_direct_all_to_all, one_to_five_ranks)
{
    for (int n = 1; n <= MAX_N; n++)
        win_run(n, counts, (size_t)n * MOST, 60);
}

/* Forty calls back to back, every rank sleeping a random few microseconds first: a rank that
 * wrote its buffer while a slower peer still read it gives that peer the wrong block. */
static int back_to_back(Comm *c, const Watched *w, float *buf, char *err)
{
    (void)w;
    Rng g;
    rng_seed(&g, 11, (uint64_t)c->rank);
    float *scratch = xcalloc((size_t)c->size * 301, sizeof(float));
    int rc = 0;
    for (int k = 0; k < 40 && !rc; k++) {
        win_delay(&g, 40);
        rc = one_call(c, buf, scratch, 301, k, err);
    }
    free(scratch);
    return rc;
}

Test(ex_direct_all_to_all, back_to_back_calls_with_delays)
{
    win_run(3, back_to_back, 3 * 301, 60);
}
