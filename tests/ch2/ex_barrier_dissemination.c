/* Tests of exercise 2.2, barrier_dissemination. */
#include <stdatomic.h>
#include <unistd.h>

#include "ch2.h"
#include "helpers.h"
#include "wrappers.h"

typedef struct Shared {
    _Atomic int slot[8];
    long sends[8];
} Shared;

enum { ROUNDS = 200 };

/* Round k: write k, barrier, then every slot must hold k or k+1. */
static int rounds(int rank, int size, void *arg, char *err)
{
    Shared *s = arg;
    Watched w; /* counts the messages (ranks.h) */
    Comm *c = watched_without_barrier(rank, &w, err);
    if (!c)
        return -1;
    for (int k = 1; k <= ROUNDS; k++) {
        if (k % 50 == 1 && rank == k % size)
            usleep(5000);
        atomic_store(&s->slot[rank], k);
        if (barrier_dissemination(c, err))
            return -1;
        int v, r = slot_behind(s->slot, size, k, &v);
        if (r >= 0)
            return error_set(err, "after barrier %d rank %d sees rank %d at %d", k, rank, r,
                             v);
    }
    s->sends[rank] = w.sends;
    return 0;
}

Test(ex_barrier_dissemination, holds_at_1_to_8_ranks)
{
    for (int n = 1; n <= 8; n++) {
        Shared *s = shared_zeroed(sizeof *s);
        char err[ERR_LEN];
        cr_assert(run_ranks(n, 0, 30, rounds, s, 60, err) == 0, "%d ranks: %s", n, err);
    }
}

Test(ex_barrier_dissemination, sends_ceil_log2_n_messages_per_barrier)
{
    for (int n = 2; n <= 8; n++) {
        Shared *s = shared_zeroed(sizeof *s);
        char err[ERR_LEN];
        cr_assert(run_ranks(n, 0, 30, rounds, s, 60, err) == 0, "%d ranks: %s", n, err);
        for (int r = 0; r < n; r++)
            cr_assert(s->sends[r] <= (long)ROUNDS * ceil_log2(n),
                      "%d ranks: rank %d sent %ld messages in %d barriers; at most %d each", n,
                      r, s->sends[r], ROUNDS, ceil_log2(n));
    }
}

/* Rank 2 never arrives: the others must fail with the transport's timeout, not hang. */
static int absent(int rank, int size, void *arg, char *err)
{
    (void)size;
    (void)arg;
    Comm *c = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!c)
        return -1;
    c->barrier = no_barrier;
    if (rank == 2) {
        launch_phase("elsewhere");
        sleep(20);
        return 0;
    }
    return barrier_dissemination(c, err);
}

Test(ex_barrier_dissemination, a_missing_rank_is_a_timeout_not_a_hang)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(4, 0, 0.5, absent, NULL, 10, err) != 0, "the barrier passed");
    /* The first rank to time out may be one waiting for a rank that waits for rank 2. */
    cr_assert(strstr(err, "timed out"), "message: %s", err);
}
