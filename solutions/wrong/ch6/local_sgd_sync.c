/* Wrong on purpose: the level that averages is the first whose period divides the step, the
 * smallest, not the largest: at a step that two periods divide, the small groups average and
 * the large ones do not, so the whole never meets (with periods 2 and 4, never). Otherwise a
 * copy of the reference solution of exercise 6.3.
 * Fails: ex_local_sgd_sync::two_levels_worked_by_hand
 * Fails: hidden_local_sgd_sync::three_levels_and_groups_of_one
 * Fails: hidden_local_sgd_sync::vectors_shorter_than_the_group
 */
/* Exercise 6.3, a solution: hierarchical local SGD. The level is the one with the largest
 * period that divides the step (none before warmup); its group averages by a ring of its g
 * ranks, written with sendrecv on the group's ranks: a reduce-scatter leaves each rank the
 * group's sum of one chunk, scaled to the mean there, and an all-gather passes the means
 * round, so every rank of the group ends with the same bits, and each sends 2 (g - 1) chunks. */
#include "ch6.h"

static int check_levels(const Comm *c, long warmup, const int *periods, const int *sizes,
                        int levels, char *err)
{
    if (warmup < 0)
        return error_set(err, "local_sgd_sync: warmup = %ld: it cannot be negative", warmup);
    if (levels < 1 || !periods || !sizes)
        return error_set(err, "local_sgd_sync: %d levels: at least one level is needed", levels);
    for (int i = 0; i < levels; i++) {
        if (periods[i] < 1 || (i > 0 && periods[i] <= periods[i - 1]))
            return error_set(err, "local_sgd_sync: level %d's period %d: periods start at 1 or "
                             "more and increase", i, periods[i]);
        if (sizes[i] < 1 || (i > 0 && sizes[i] % sizes[i - 1] != 0))
            return error_set(err, "local_sgd_sync: level %d's groups of %d: each size must be "
                             "a multiple of the one before", i, sizes[i]);
    }
    if (sizes[levels - 1] != c->size)
        return error_set(err, "local_sgd_sync: the last level's groups of %d are not all %d "
                         "ranks", sizes[levels - 1], c->size);
    return 0;
}

/* Rank `at` places after this one in its group of g from base (at may be negative). */
static int member(const Comm *c, int base, int g, int at)
{
    return base + ((c->rank - base + at) % g + g) % g;
}

/* Average buf within the group: a ring over the group's g ranks, chunks of chunk_start(n, g). */
static int group_mean(Comm *c, int base, int g, float *buf, size_t n, float *scratch, char *err)
{
    const Device *d = c->dev;
    int me = c->rank - base, right = member(c, base, g, 1), left = member(c, base, g, -1);
    for (int s = 0; s < g - 1; s++) { /* reduce-scatter: send chunk me - s, add chunk me - s - 1 */
        int out = ((me - s) % g + g) % g, in = ((me - s - 1) % g + g) % g;
        size_t o0 = chunk_start(n, g, out), o1 = chunk_start(n, g, out + 1);
        size_t i0 = chunk_start(n, g, in), i1 = chunk_start(n, g, in + 1);
        if (c->sendrecv(c, right, buf + o0, (o1 - o0) * 4, left, scratch, (i1 - i0) * 4, err))
            return -1;
        d->axpy(i1 - i0, 1.0f, scratch, buf + i0);
    }
    int own = (me + 1) % g; /* the chunk whose whole sum this rank now holds */
    size_t a = chunk_start(n, g, own), b = chunk_start(n, g, own + 1);
    d->scale(b - a, 1.0f / (float)g, buf + a);
    for (int s = 0; s < g - 1; s++) { /* all-gather: pass the means on */
        int out = ((own - s) % g + g) % g, in = ((own - s - 1) % g + g) % g;
        size_t o0 = chunk_start(n, g, out), o1 = chunk_start(n, g, out + 1);
        size_t i0 = chunk_start(n, g, in), i1 = chunk_start(n, g, in + 1);
        if (c->sendrecv(c, right, buf + o0, (o1 - o0) * 4, left, buf + i0, (i1 - i0) * 4, err))
            return -1;
    }
    return 0;
}

int local_sgd_sync(Comm *c, float *params, size_t n, long step, long warmup, const int *periods,
                   const int *sizes, int levels, float *scratch, char *err)
{
    if (check_levels(c, warmup, periods, sizes, levels, err))
        return -1;
    if (step < warmup)
        return 0;
    for (int i = 0; i < levels; i++)
        if (step % periods[i] == 0) {
            int g = sizes[i];
            return g == 1 ? 0 : group_mean(c, c->rank - c->rank % g, g, params, n, scratch, err);
        }
    return 0;
}
