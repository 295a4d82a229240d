/* Wrong on purpose: one binomial tree over all N ranks, as if they were on one host: ranks r
 * and r + 2^k meet in round k whatever their hosts, so where L is not a power of two a host's
 * ranks send up to others' separately (on hosts of 3, rank 3 sends to rank 2 in round 0 and
 * rank 4 to rank 0 in round 2): 4 messages cross between 2 hosts, where 2 do. Where L is a
 * power of two it is the two-level tree, and it passes.
 * Fails: ex_tree_all_reduce::exact_sums_on_hosts_of_every_size
 * Fails: ex_tree_all_reduce::the_same_bits_everywhere
 * Fails: hidden_tree_all_reduce::eight_to_twelve_ranks_a_large_buffer_small_channels
 * Fails: hidden_tree_all_reduce::back_to_back_calls_with_delays
 */
/* Exercise 9.1, reference solution: two binomial trees, one inside each host and one over the
 * hosts' first ranks (their leaders). Each host reduces to its leader, the leaders reduce to
 * rank 0, and the sum comes back down the same trees: the only messages between hosts are
 * the leaders', H - 1 up and H - 1 down, and a binomial tree over k ranks is ceil(log2 k)
 * steps deep each way when each rank sends to its children the farthest first. */
#include "ch9.h"

/* The ranks of a tree: member i of k is rank first + i * stride. */
typedef struct Tree {
    int first, stride, k, me;
} Tree;

static int rank_of(Tree t, int i)
{
    return t.first + i * t.stride;
}

/* Reduce buf to member 0: in round m = 1, 2, 4, ..., a member with bit m set sends its sum
 * to me - m and is done; the others add what me + m sends. Returns the m it left at. */
static int reduce(Comm *c, Tree t, float *buf, size_t count, float *scratch, int *left,
                  char *err)
{
    int m = 1;
    for (; m < t.k; m <<= 1) {
        if (t.me & m)
            break;
        if (t.me + m < t.k) {
            if (c->recv(c, rank_of(t, t.me + m), scratch, count * sizeof(float), err))
                return -1;
            c->dev->axpy(count, 1.0f, scratch, buf);
        }
    }
    if (m < t.k && c->send(c, rank_of(t, t.me - m), buf, count * sizeof(float), err))
        return -1;
    *left = m;
    return 0;
}

/* The sum back down: from the member it sent to, then to those it heard from, the farthest
 * first, so that each of them starts passing it on a step sooner. */
static int broadcast(Comm *c, Tree t, float *buf, size_t count, int left, char *err)
{
    if (t.me && c->recv(c, rank_of(t, t.me - left), buf, count * sizeof(float), err))
        return -1;
    for (int m = left >> 1; m > 0; m >>= 1)
        if (t.me + m < t.k && c->send(c, rank_of(t, t.me + m), buf, count * sizeof(float), err))
            return -1;
    return 0;
}

int tree_all_reduce(Comm *c, int L, float *buf, size_t count, float *scratch, char *err)
{
    if (L < 1 || c->size % L)
        return error_set(err, "tree_all_reduce: hosts of %d ranks cannot hold %d ranks", L,
                         c->size);
    int r = c->rank, H = c->size / L, in_left, across_left = 0;
    Tree all = {0, 1, H * L, r};
    (void)across_left;
    if (reduce(c, all, buf, count, scratch, &in_left, err))
        return -1;
    return broadcast(c, all, buf, count, in_left, err);
}
