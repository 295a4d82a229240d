/* Hidden tests of exercise 8.1, direct_broadcast: six ranks and a large buffer, the progress
 * the contract names, no message (not in the students' handout). */
#include "ch8.h"
#include "ch8/windows.h"
#include "helpers.h"

enum { N = 100003 };

static int six(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Watched w;
    Comm *c = win_comm(rank, &w, err);
    if (!c)
        return -1;
    float *buf = c->alloc_shared(c, N * sizeof(float));
    for (int call = 0; call < 2 * size; call++) {
        int root = (size - 1 + call * 5) % size;
        size_t n = call % 2 ? N : 2;
        for (size_t i = 0; i < n; i++)
            buf[i] = win_value(rank, i, call);
        uint32_t before = c->progress(c);
        if (direct_broadcast(c, buf, n, root, err))
            return -1;
        if (c->progress(c) != before + 2)
            return error_set(err, "call %d: rank %d's progress went from %u to %u; a call "
                             "ends at base + 2", call, rank, before, c->progress(c));
        for (size_t i = 0; i < n; i++)
            if (buf[i] != win_value(root, i, call))
                return error_set(err, "call %d, root %d, %zu floats: rank %d has %g at %zu, the "
                                 "root's is %g", call, root, n, rank, buf[i], i,
                                 win_value(root, i, call));
    }
    if (w.sends != 0)
        return error_set(err, "rank %d sent %ld messages", rank, w.sends);
    c->close(c);
    return 0;
}

Test(hidden_direct_broadcast, six_ranks_a_large_buffer_and_the_progress)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(6, 0, WAIT_S, six, NULL, 60, err) == 0, "%s", err);
}
