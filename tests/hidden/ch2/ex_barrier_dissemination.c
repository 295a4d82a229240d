/* Hidden tests of exercise 2.2, barrier_dissemination: the peers of every round, a late
 * rank in every round at 3 and 5 ranks, and a transport error passed back (not in the
 * students' handout). */
#include <stdatomic.h>
#include <unistd.h>

#include "ch2.h"
#include "helpers.h"
#include "ch2/wrappers.h"

/* What each rank leaves behind: messages sent, and the ranks sent to and received from. */
typedef struct Shared {
    _Atomic int slot[5];
    long sends[5];
    unsigned long long to[5], from[5];
} Shared;

enum { PEER_ROUNDS = 3 };

/* The ranks of a mask (bit q: rank q) as "{1, 2}", for messages. */
static const char *ranks_of(unsigned long long mask, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "{");
    for (int q = 0; q < 64; q++)
        if (mask >> q & 1 && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%d", used > 1 ? ", " : "", q);
    if (used < len)
        snprintf(buf + used, len - used, "}");
    return buf;
}

static int peers(int rank, int size, void *arg, char *err)
{
    (void)size;
    Shared *s = arg;
    Watched w;
    Comm *c = watched_without_barrier(rank, &w, err);
    if (!c)
        return -1;
    for (int k = 0; k < PEER_ROUNDS; k++)
        if (barrier_dissemination(c, err))
            return -1;
    s->sends[rank] = w.sends;
    s->to[rank] = w.to;
    s->from[rank] = w.from;
    return 0;
}

/* Round k: rank r signals r + 2^k and hears from r - 2^k (mod N), one message a round. */
Test(hidden_barrier_dissemination, peers_are_plus_and_minus_powers_of_two)
{
    static const int counts[] = {4, 5};
    for (int c = 0; c < 2; c++) {
        int n = counts[c];
        Shared *s = shared_zeroed(sizeof *s);
        cr_assert(s);
        char err[ERR_LEN];
        cr_assert(run_ranks(n, 0, 2, peers, s, 4, err) == 0, "%d ranks: %s", n, err);
        for (int r = 0; r < n; r++) {
            unsigned long long to = 0, from = 0;
            for (int d = 1; d < n; d *= 2) {
                to |= 1ull << ((r + d) % n);
                from |= 1ull << ((r - d + n) % n);
            }
            char got[200], want[200];
            cr_assert(s->to[r] == to, "%d ranks: rank %d sent to ranks %s, expected %s "
                      "(r + 1, r + 2, r + 4, ... mod %d)", n, r,
                      ranks_of(s->to[r], got, sizeof got), ranks_of(to, want, sizeof want), n);
            cr_assert(s->from[r] == from, "%d ranks: rank %d received from ranks %s, expected %s "
                      "(r - 1, r - 2, r - 4, ... mod %d)", n, r,
                      ranks_of(s->from[r], got, sizeof got), ranks_of(from, want, sizeof want),
                      n);
            cr_assert(s->sends[r] == (long)PEER_ROUNDS * ceil_log2(n),
                      "%d ranks: rank %d sent %ld messages in %d barriers, expected %d each", n,
                      r, s->sends[r], PEER_ROUNDS, ceil_log2(n));
        }
    }
}

enum { LATE_ROUNDS = 40 };

/* Round k: rank k mod N arrives 1 ms late; then every slot must hold k or k + 1. */
static int late_every_round(int rank, int size, void *arg, char *err)
{
    Shared *s = arg;
    Watched w;
    Comm *c = watched_without_barrier(rank, &w, err);
    if (!c)
        return -1;
    for (int k = 1; k <= LATE_ROUNDS; k++) {
        if (rank == k % size)
            usleep(1000);
        atomic_store(&s->slot[rank], k);
        if (barrier_dissemination(c, err))
            return -1;
        int v, r = slot_behind(s->slot, size, k, &v);
        if (r >= 0)
            return error_set(err,
                             "after barrier %d rank %d sees rank %d at %d, expected %d or "
                             "%d (rank %d arrived late)",
                             k, rank, r, v, k, k + 1, k % size);
    }
    return 0;
}

Test(hidden_barrier_dissemination, a_late_rank_in_every_round_at_3_and_5_ranks)
{
    static const int counts[] = {3, 5};
    for (int c = 0; c < 2; c++) {
        int n = counts[c];
        Shared *s = shared_zeroed(sizeof *s);
        cr_assert(s);
        char err[ERR_LEN];
        cr_assert(run_ranks(n, 0, 2, late_every_round, s, 4, err) == 0, "%d ranks: %s", n, err);
    }
}

/* A transport whose first sendrecv on rank 1 moves the message, then reports an error: the
 * barrier must stop there and return -1 with that error, making no further call. */
static int barrier(Comm *c, void *arg, char *err)
{
    (void)arg;
    return barrier_dissemination(c, err);
}

static int failing(int rank, int size, void *arg, char *err)
{
    (void)size;
    Comm *inner = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!inner)
        return -1;
    if (rank != 1) {
        /* Rank 3 waits for rank 1's second message and ends in the transport's timeout
         * (1 s) when rank 1 rightly stops; only rank 1's outcome counts. */
        char ignored[ERR_LEN];
        (void)barrier_dissemination(inner, ignored);
        return 0;
    }
    through_failing(inner, 1, "injected failure on rank 1", no_barrier, barrier, NULL, arg);
    return 0;
}

Test(hidden_barrier_dissemination, a_transport_error_is_returned)
{
    Outcome *o = outcome_of(4, 0, 1, failing, 4);
    cr_assert(o->rc == -1, "4 ranks: rank 1's first sendrecv failed, yet the barrier returned %d, "
              "expected -1", o->rc);
    cr_assert(strstr(o->err, "injected failure on rank 1"), "4 ranks: rank 1's first sendrecv "
              "failed with 'injected failure on rank 1', but the barrier's message is '%s'",
              o->err);
    cr_assert(o->calls == 1, "4 ranks: after rank 1's first sendrecv failed, the barrier made "
              "%d more call(s) to the communicator, expected none", o->calls - 1);
}
