/* Hidden tests of exercise 8.3, direct_all_to_all: six ranks and large blocks with the
 * progress the contract names, and seven ranks back to back with delays (not in the
 * students' handout). */
#include "ch8.h"
#include "ch8/windows.h"
#include "hidden/ch8/progress.h"
#include "helpers.h"

enum { BIG = 20011 };

static int check_call(Comm *c, float *buf, float *scratch, size_t count, int k, char *err)
{
    win_a2a_fill(buf, count, c->rank, c->size, k);
    uint32_t before = c->progress(c);
    if (direct_all_to_all(c, buf, count, scratch, err) || win_progress_ok(c, before, k, err))
        return -1;
    return win_a2a_check(buf, count, c->rank, c->size, k, err);
}

static int six(Comm *c, const Watched *w, float *buf, char *err)
{
    float *scratch = xcalloc((size_t)c->size * BIG, sizeof(float));
    int rc = 0;
    for (int k = 0; k < 4 && !rc; k++)
        rc = check_call(c, buf, scratch, k % 2 ? BIG : 2, k, err);
    free(scratch);
    if (!rc && w->sends != 0)
        return error_set(err, "rank %d sent %ld messages", c->rank, w->sends);
    return rc;
}

Test(hidden_direct_all_to_all, six_ranks_large_blocks_and_the_progress)
{
    win_run(6, six, 6 * (size_t)BIG, 60);
}

static int seven(Comm *c, const Watched *w, float *buf, char *err)
{
    (void)w;
    Rng g;
    rng_seed(&g, 23, (uint64_t)c->rank);
    const size_t each[] = {0, 3, 101};
    float *scratch = xcalloc((size_t)c->size * 101, sizeof(float));
    int rc = 0;
    for (int k = 0; k < 40 && !rc; k++) {
        win_delay(&g, 60);
        rc = check_call(c, buf, scratch, each[k % 3], k, err);
    }
    free(scratch);
    return rc;
}

Test(hidden_direct_all_to_all, seven_ranks_back_to_back_with_delays)
{
    win_run(7, seven, 7 * 101, 60);
}
