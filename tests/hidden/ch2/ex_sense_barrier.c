/* Hidden tests of exercise 2.1, sense_barrier_wait: one rank alone, the shared state after
 * an odd number of rounds at 5 ranks, and two barriers (one over a subset of the ranks)
 * used in turn (not in the students' handout). */
#include <stdatomic.h>
#include <unistd.h>

#include "ch2.h"
#include "helpers.h"
#include "ch2/ranks.h"

/* A barrier of n ranks as the contract says it starts: count = n, sense = 0. */
static void barrier_init(SenseBarrier *b, int n)
{
    b->n = n;
    atomic_store(&b->count, n);
    atomic_store(&b->sense, 0);
}

/* After round k every slot of the n ranks must hold k or k + 1. */
static int check_slots(const char *name, _Atomic int *slot, int n, int k, int rank, char *err)
{
    int v, r = slot_behind(slot, n, k, &v);
    if (r < 0)
        return 0;
    return error_set(err,
                     "%s: after round %d rank %d sees rank %d at round %d, expected %d or "
                     "%d",
                     name, k, rank, r, v, k, k + 1);
}

/* With n = 1 every call is the last arrival: it returns at once, and the round it completes
 * flips the shared sense and leaves the count at 1. */
typedef struct Alone {
    SenseBarrier b;
} Alone;

static int alone(int rank, int size, void *arg, char *err)
{
    (void)rank;
    (void)size;
    Alone *s = arg;
    int local = 0;
    for (int k = 1; k <= 5; k++) {
        sense_barrier_wait(&s->b, &local);
        int sense = atomic_load(&s->b.sense), count = atomic_load(&s->b.count);
        if (sense != k % 2 || count != 1)
            return error_set(err, "1 rank, after round %d: shared sense %d and count %d, "
                             "expected sense %d (it flips every round) and count 1", k, sense,
                             count, k % 2);
    }
    return 0;
}

Test(hidden_sense_barrier, one_rank_flips_the_sense_every_round)
{
    Alone *s = shared_zeroed(sizeof *s);
    cr_assert(s);
    barrier_init(&s->b, 1);
    char err[ERR_LEN];
    cr_assert(launch(1, alone, s, 4, err) == 0, "1 rank, 5 rounds: %s", err);
}

/* 5 ranks (more than most graders have cores), 2001 rounds, a different rank late every
 * 100 rounds; once every rank has left the last barrier the count is 5 again and the sense,
 * flipped 2001 times, is 1. */
typedef struct Five {
    SenseBarrier *b; /* a mapping of its own: the slots are the test's */
    _Atomic int slot[5];
} Five;

enum { FIVE_ROUNDS = 2001 };

static int five(int rank, int size, void *arg, char *err)
{
    Five *s = arg;
    int local = 0;
    for (int k = 1; k <= FIVE_ROUNDS; k++) {
        if (k % 100 == 1 && rank == (k / 100) % size)
            usleep(2000);
        atomic_store(&s->slot[rank], k);
        sense_barrier_wait(s->b, &local);
        if (check_slots("5 ranks", s->slot, size, k, rank, err))
            return -1;
    }
    return 0;
}

Test(hidden_sense_barrier, five_ranks_leave_the_barrier_reset)
{
    Five *s = shared_zeroed(sizeof *s);
    cr_assert(s);
    s->b = shared_zeroed(sizeof *s->b);
    cr_assert(s->b);
    barrier_init(s->b, 5);
    char err[ERR_LEN];
    cr_assert(launch(5, five, s, 4, err) == 0, "5 ranks, %d rounds: %s", FIVE_ROUNDS, err);
    int count = atomic_load(&s->b->count), sense = atomic_load(&s->b->sense);
    cr_assert(count == 5 && sense == 1, "5 ranks after %d rounds: count %d and sense %d, "
              "expected count 5 and sense 1", FIVE_ROUNDS, count, sense);
}

/* Two barriers in turn, each with its own local sense: all 4 ranks meet at `all`, then
 * ranks 0 to 2 meet at `three` (rank 3 goes straight on). A rank late at each barrier. */
typedef struct Two {
    SenseBarrier *all, *three; /* a mapping of their own: the slots are the test's */
    _Atomic int slot_all[4], slot_three[3];
} Two;

enum { TWO_ROUNDS = 40 };

static int two(int rank, int size, void *arg, char *err)
{
    Two *s = arg;
    int local_all = 0, local_three = 0;
    for (int k = 1; k <= TWO_ROUNDS; k++) {
        if (rank == k % size)
            usleep(1000);
        atomic_store(&s->slot_all[rank], k);
        sense_barrier_wait(s->all, &local_all);
        if (check_slots("barrier of 4 ranks, used in turn with one of 3", s->slot_all, size, k,
                        rank, err))
            return -1;
        if (rank < 3) {
            if (rank == (k + 1) % 3)
                usleep(1000);
            atomic_store(&s->slot_three[rank], k);
            sense_barrier_wait(s->three, &local_three);
            if (check_slots("barrier of ranks 0 to 2, used in turn with one of 4",
                            s->slot_three, 3, k, rank, err))
                return -1;
        }
    }
    return 0;
}

Test(hidden_sense_barrier, two_barriers_used_in_turn)
{
    Two *s = shared_zeroed(sizeof *s);
    cr_assert(s);
    s->all = shared_zeroed(2 * sizeof *s->all);
    cr_assert(s->all);
    s->three = s->all + 1;
    barrier_init(s->all, 4);
    barrier_init(s->three, 3);
    char err[ERR_LEN];
    cr_assert(launch(4, two, s, 4, err) == 0, "4 ranks, %d rounds: %s", TWO_ROUNDS, err);
}
