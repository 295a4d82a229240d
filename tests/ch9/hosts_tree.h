/* The harness of exercise 9.1's tests (public and hidden): ranks on hosts of L consecutive
 * ranks call tree_all_reduce back to back; each checks its sum and its steps (ranks.h's step
 * clocks), and counts the messages and bytes it sent to other hosts; the test then checks the
 * totals of each call and that every rank ended with the same bits. */
#ifndef DPS_TEST_HOSTS_TREE_H
#define DPS_TEST_HOSTS_TREE_H

#include "ch9.h"
#include "ch9/grid.h"
#include "helpers.h"

#define TREE_CALLS 32

typedef struct TreeRun {
    int L, calls, rough, delay_us; /* rough: data whose sums depend on the order */
    size_t counts[4];              /* call k sums counts[k % 4] floats */
    size_t most;
    StepClocks *clocks;
    long *cross, *cross_bytes; /* per call, over the ranks: messages and bytes between hosts */
    float *results;            /* per call and rank, the first RESULT_FLOATS floats */
} TreeRun;

enum { RESULT_FLOATS = 64 };

/* ceil(log2 k) */
static inline int tree_log2(int k)
{
    int d = 0;
    while ((1 << d) < k)
        d++;
    return d;
}

/* The steps a rank may be deep: 2 (ceil(log2 L) + ceil(log2 H)). */
static inline long tree_depth_bound(int N, int L)
{
    return 2L * (tree_log2(L) + tree_log2(N / L));
}

static int tree_rank(int rank, int size, void *arg, char *err)
{
    const TreeRun *t = arg;
    Watched w;
    Comm *c = cpu_watched(rank, &w, err);
    if (!c)
        return -1;
    w.clocks = t->clocks;
    float *buf = xcalloc(t->most + 1, sizeof(float)), *scratch = xcalloc(t->most + 1, 4);
    Rng g;
    rng_seed(&g, 91, (uint64_t)rank);
    long bound = tree_depth_bound(size, t->L);
    for (int k = 0; k < t->calls; k++) {
        size_t n = t->counts[k % 4];
        for (size_t i = 0; i < n; i++)
            buf[i] = t->rough ? grid_rough(rank, i, k) : win_value(rank, i, k);
        if (t->delay_us)
            win_delay(&g, t->delay_us);
        long msgs[64];
        size_t bytes[64];
        memcpy(msgs, w.msgs_to, sizeof msgs), memcpy(bytes, w.bytes_to, sizeof bytes);
        w.steps = 0;
        if (tree_all_reduce(c, t->L, buf, n, scratch, err))
            return -1;
        if (t->clocks->overflow)
            return error_set(err, "N = %d: more than %d messages in flight between two ranks",
                             size, STEP_QUEUE);
        if (w.steps > bound)
            return error_set(err, "N = %d on hosts of %d, %zu floats: rank %d is %ld steps "
                             "deep, above 2 (ceil(log2 L) + ceil(log2 H)) = %ld", size, t->L,
                             n, rank, w.steps, bound);
        long across = 0, across_bytes = 0;
        for (int q = 0; q < size; q++)
            if (q / t->L != rank / t->L)
                across += w.msgs_to[q] - msgs[q], across_bytes += (long)(w.bytes_to[q] - bytes[q]);
        __atomic_add_fetch(&t->cross[k], across, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&t->cross_bytes[k], across_bytes, __ATOMIC_SEQ_CST);
        for (size_t i = 0; i < n; i++) {
            if (!t->rough && buf[i] != win_sum(win_value, k, size, i))
                return error_set(err, "N = %d on hosts of %d, %zu floats: rank %d has %g at %zu, "
                                 "expected %g", size, t->L, n, rank, buf[i], i,
                                 win_sum(win_value, k, size, i));
            if (i < RESULT_FLOATS)
                t->results[((size_t)k * size + rank) * RESULT_FLOATS + i] = buf[i];
        }
    }
    free(buf), free(scratch);
    c->close(c);
    return 0;
}

/* Run the calls on N ranks in hosts of L (channels of chan bytes, 0 the default). */
static inline void tree_run(int N, int L, size_t chan, TreeRun t)
{
    size_t bytes = sizeof(StepClocks) + 2 * TREE_CALLS * sizeof(long) +
                   (size_t)TREE_CALLS * N * RESULT_FLOATS * sizeof(float);
    cr_assert(t.calls <= TREE_CALLS && N <= STEP_RANKS, "a run of %d calls on %d ranks: the "
              "harness holds %d calls and %d ranks", t.calls, N, TREE_CALLS, STEP_RANKS);
    unsigned char *shared = shared_zeroed(bytes);
    cr_assert(shared, "no shared memory");
    t.L = L, t.clocks = (StepClocks *)shared;
    t.cross = (long *)(shared + sizeof(StepClocks)), t.cross_bytes = t.cross + TREE_CALLS;
    t.results = (float *)(t.cross_bytes + TREE_CALLS);
    char err[ERR_LEN];
    cr_assert(run_ranks(N, chan, WAIT_S, tree_rank, &t, 60, err) == 0, "%s", err);
    int H = N / L;
    for (int k = 0; k < t.calls; k++) {
        size_t n = t.counts[k % 4];
        cr_assert(t.cross[k] <= 2L * (H - 1) && t.cross_bytes[k] <= 2L * (H - 1) * (long)n * 4,
                  "N = %d on hosts of %d, %zu floats: %ld messages of %ld bytes in all crossed "
                  "between hosts, above 2 (H - 1) = %d of at most %zu bytes each", N, L, n,
                  t.cross[k], t.cross_bytes[k], 2 * (H - 1), n * 4);
        for (int r = 1; r < N; r++)
            for (size_t i = 0; i < n && i < RESULT_FLOATS; i++) {
                const float *a = t.results + ((size_t)k * N + r) * RESULT_FLOATS,
                            *b = t.results + (size_t)k * N * RESULT_FLOATS;
                cr_assert(memcmp(&a[i], &b[i], sizeof(float)) == 0,
                          "N = %d on hosts of %d, %zu floats: rank %d has %.9g at %zu but rank 0 "
                          "has %.9g: every rank must end with the same bits", N, L, n, r, a[i],
                          i, b[i]);
            }
    }
    munmap(shared, bytes);
}

#endif
