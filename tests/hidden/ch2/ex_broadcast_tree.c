/* Hidden tests of exercise 2.3, broadcast_tree: the tree measured from every root (the
 * public tests measure it from root 0 only), broadcasts back to back from rotating roots,
 * and a transport error passed back (not in the students' handout). */
#include <unistd.h>

#include "ch2.h"
#include "helpers.h"
#include "ch2/wrappers.h"

/* The transport's barrier is there for the tests only; the exercise must not need it. */
static int c_barrier(Comm *c, char *err)
{
    (void)c;
    return error_set(err, "broadcast_tree must not call the transport's barrier");
}

static unsigned char byte(int root, size_t bytes, size_t j)
{
    return (unsigned char)(j * 29 + bytes * 5 + root * 97 + (j >> 9));
}

/* Fill buf as rank `rank` holds it before a broadcast from root. */
static void prepare(unsigned char *buf, size_t bytes, int rank, int root)
{
    for (size_t j = 0; j < bytes; j++)
        buf[j] = rank == root ? byte(root, bytes, j) : 0xEE;
}

static int verify(const unsigned char *buf, size_t bytes, int rank, int root, int n, int i,
                  char *err)
{
    for (size_t j = 0; j < bytes; j++)
        if (buf[j] != byte(root, bytes, j))
            return error_set(err, "%d ranks, broadcast %d from root %d, %zu bytes: rank %d has "
                             "byte %zu = 0x%02x, expected 0x%02x", n, i, root, bytes, rank, j,
                             buf[j], byte(root, bytes, j));
    return 0;
}

enum { CHANNEL = 4096, MAX_N = 5 };

/* Per root and rank: the clock, sends and receives of one broadcast from that root. */
typedef struct Shared {
    long clock[MAX_N][MAX_N], sends[MAX_N][MAX_N], recvs[MAX_N][MAX_N];
} Shared;

static int from_every_root(int rank, int size, void *arg, char *err)
{
    Shared *s = arg;
    Comm *inner = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!inner)
        return -1;
    unsigned char buf[300];
    for (int root = 0; root < size; root++) {
        Clocked w;
        Comm *c = clocked(&w, inner);
        c->barrier = c_barrier;
        prepare(buf, sizeof buf, rank, root);
        if (broadcast_tree(c, root, buf, sizeof buf, err) ||
            verify(buf, sizeof buf, rank, root, size, root, err))
            return -1;
        s->clock[root][rank] = w.clock;
        s->sends[root][rank] = w.sends;
        s->recvs[root][rank] = w.recvs;
        if (inner->barrier(inner, err)) /* keep the broadcasts apart */
            return -1;
    }
    return 0;
}

/* From every root, not just 0: the root receives nothing, every other rank once, N - 1
 * messages in all, no rank sends more than ceil(log2 N), and the tree is at most
 * ceil(log2 N) sends deep. */
Test(hidden_broadcast_tree, a_binomial_tree_from_every_root)
{
    static const int counts[] = {3, 4, 5};
    for (int c = 0; c < 3; c++) {
        int n = counts[c], depth = ceil_log2(n);
        Shared *s = shared_zeroed(sizeof *s);
        cr_assert(s);
        char err[ERR_LEN];
        cr_assert(run_ranks(n, CHANNEL, 2, from_every_root, s, 4, err) == 0, "%d ranks: %s", n,
                  err);
        for (int root = 0; root < n; root++) {
            long sent = 0, deepest = 0;
            for (int r = 0; r < n; r++) {
                cr_assert(s->recvs[root][r] == (r == root ? 0 : 1), "%d ranks, root %d: rank %d "
                          "received %ld messages, expected %d", n, root, r, s->recvs[root][r],
                          r == root ? 0 : 1);
                cr_assert(s->sends[root][r] <= depth, "%d ranks, root %d: rank %d sent %ld "
                          "messages, at most %d allowed", n, root, r, s->sends[root][r], depth);
                sent += s->sends[root][r];
                deepest = s->clock[root][r] > deepest ? s->clock[root][r] : deepest;
            }
            cr_assert(sent == n - 1, "%d ranks, root %d: %ld messages in all, expected %d", n,
                      root, sent, n - 1);
            cr_assert(deepest <= depth, "%d ranks, root %d: the data took %ld sends one after "
                      "another to reach the last rank; a binomial tree takes %d", n, root,
                      deepest, depth);
        }
    }
}

/* 30 broadcasts with no barrier between them, the root moving 0, 3, 1, 4, 2, ... and the
 * size cycling through 0, 1, 7, 1000 and 2 channels and 3 bytes: each rank checks every one. */
enum { BACK_TO_BACK = 30 };
static const size_t sizes[] = {0, 1, 7, 1000, 2 * CHANNEL + 3};

static int back_to_back(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Comm *inner = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!inner)
        return -1;
    Watched w;
    Comm *c = watch(&w, inner, 0);
    w.comm.barrier = c_barrier;
    unsigned char *buf = xcalloc(2 * CHANNEL + 3, 1);
    for (int i = 0; i < BACK_TO_BACK; i++) {
        int root = (i * 3) % size;
        size_t bytes = sizes[i % 5];
        prepare(buf, bytes, rank, root);
        if (broadcast_tree(c, root, buf, bytes, err) ||
            verify(buf, bytes, rank, root, size, i, err))
            return -1;
    }
    free(buf);
    return 0;
}

Test(hidden_broadcast_tree, back_to_back_from_moving_roots)
{
    static const int counts[] = {2, 5};
    for (int c = 0; c < 2; c++) {
        char err[ERR_LEN];
        cr_assert(run_ranks(counts[c], CHANNEL, 2, back_to_back, NULL, 4, err) == 0,
                  "%d ranks: %s", counts[c], err);
    }
}

/* A transport whose first receive on rank 2 moves the message, then reports an error: the
 * broadcast must stop there and return -1 with that error, sending nothing further (to its
 * child, rank 3, in the tree from root 0 of 4 ranks). */
static int from_root_0(Comm *c, void *buf, char *err)
{
    return broadcast_tree(c, 0, buf, 64, err);
}

static int failing(int rank, int size, void *arg, char *err)
{
    (void)size;
    Comm *inner = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!inner)
        return -1;
    unsigned char buf[64];
    prepare(buf, sizeof buf, rank, 0);
    if (rank == 3)
        return 0; /* rank 2's child: anything rank 2 still sends it waits in the channel */
    if (rank != 2)
        return broadcast_tree(inner, 0, buf, sizeof buf, err);
    through_failing(inner, 0, "injected failure on rank 2", c_barrier, from_root_0, buf,
                    arg);
    return 0;
}

Test(hidden_broadcast_tree, a_transport_error_is_returned)
{
    Outcome *o = outcome_of(4, CHANNEL, 2, failing, 4);
    cr_assert(o->rc == -1, "4 ranks, root 0: rank 2's receive failed, yet the broadcast returned "
              "%d, expected -1", o->rc);
    cr_assert(strstr(o->err, "injected failure on rank 2"), "4 ranks, root 0: rank 2's receive "
              "failed with 'injected failure on rank 2', but the broadcast's message is '%s'",
              o->err);
    cr_assert(o->calls == 1, "4 ranks, root 0: after rank 2's receive failed, the broadcast made "
              "%d more call(s) to the communicator, expected none", o->calls - 1);
}
