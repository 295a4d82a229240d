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
    Tree in = {r - r % L, 1, L, r % L}, across = {0, L, H, r / L};
    if (reduce(c, in, buf, count, scratch, &in_left, err))
        return -1;
    if (r % L == 0 && reduce(c, across, buf, count, scratch, &across_left, err))
        return -1;
    if (r % L == 0 && broadcast(c, across, buf, count, across_left, err))
        return -1;
    return broadcast(c, in, buf, count, in_left, err);
}
