/* Tests of exercise 2.3, broadcast_tree. */
#include <unistd.h>

#include "ch2.h"
#include "helpers.h"
#include "wrappers.h"

typedef struct Shared {
    long clock[8], sends[8], recvs[8];
} Shared;

static unsigned char byte(int root, size_t bytes, size_t j)
{
    return (unsigned char)(j * 31 + bytes * 7 + root * 101 + (j >> 8));
}

enum { CHANNEL = 4096 };
static const size_t sizes[] = {0, 1, 1000, 3 * CHANNEL + 5};

/* Every root, every size, through a Clocked communicator (wrappers.h); each rank checks its
 * buffer. The clocks of the last broadcast (from rank 0, largest size) are left in
 * Shared. */
static int broadcasts(int rank, int size, void *arg, char *err)
{
    Shared *s = arg;
    Comm *inner = comm_shm_open(test_world, rank, device_cpu(), err);
    if (!inner)
        return -1;
    unsigned char *buf = xcalloc(3 * CHANNEL + 5, 1);
    for (int root = size - 1; root >= 0; root--)
        for (int i = 0; i < 4; i++) {
            size_t bytes = sizes[i];
            Clocked w;
            Comm *c = clocked(&w, inner);
            for (size_t j = 0; j < bytes; j++)
                buf[j] = rank == root ? byte(root, bytes, j) : 0xEE;
            if (broadcast_tree(c, root, buf, bytes, err))
                return -1;
            for (size_t j = 0; j < bytes; j++)
                if (buf[j] != byte(root, bytes, j))
                    return error_set(err, "root %d, %zu bytes: rank %d has byte %zu wrong", root,
                                     bytes, rank, j);
            s->clock[rank] = w.clock;
            s->sends[rank] = w.sends;
            s->recvs[rank] = w.recvs;
            if (inner->barrier(inner, err)) /* keep broadcasts apart */
                return -1;
        }
    return 0;
}

Test(ex_broadcast_tree, every_root_and_size_at_1_to_8_ranks)
{
    for (int n = 1; n <= 8; n++) {
        Shared *s = shared_zeroed(sizeof *s);
        char err[ERR_LEN];
        cr_assert(run_ranks(n, CHANNEL, 30, broadcasts, s, 60, err) == 0, "%d ranks: %s", n,
                  err);
    }
}

Test(ex_broadcast_tree, each_rank_receives_once_and_the_tree_is_ceil_log2_n_deep)
{
    for (int n = 2; n <= 8; n++) {
        Shared *s = shared_zeroed(sizeof *s);
        char err[ERR_LEN];
        cr_assert(run_ranks(n, CHANNEL, 30, broadcasts, s, 60, err) == 0, "%d ranks: %s", n,
                  err);
        long deepest = 0, sent = 0;
        for (int r = 0; r < n; r++) {
            cr_assert(s->recvs[r] == (r == 0 ? 0 : 1), "%d ranks, root 0: rank %d received %ld "
                      "messages", n, r, s->recvs[r]);
            cr_assert(s->sends[r] <= ceil_log2(n), "%d ranks: rank %d sent %ld messages", n, r,
                      s->sends[r]);
            deepest = s->clock[r] > deepest ? s->clock[r] : deepest;
            sent += s->sends[r];
        }
        cr_assert(sent == n - 1, "%d ranks: %ld messages in all, expected %d", n, sent, n - 1);
        cr_assert(deepest <= ceil_log2(n), "%d ranks: the data took %ld sends one after another "
                  "to reach the last rank; a binomial tree takes %d", n, deepest, ceil_log2(n));
    }
}
