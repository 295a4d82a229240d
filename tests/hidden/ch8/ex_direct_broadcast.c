/* Hidden tests of exercise 8.1, direct_broadcast: six ranks and a large buffer, the progress
 * the contract names, no message (not in the students' handout). */
#include "ch8.h"
#include "ch8/windows.h"
#include "hidden/ch8/progress.h"
#include "helpers.h"

enum { N = 100003 };

static int six(Comm *c, const Watched *w, float *buf, char *err)
{
    int rank = c->rank, size = c->size;
    for (int call = 0; call < 2 * size; call++) {
        int root = (size - 1 + call * 5) % size;
        size_t n = call % 2 ? N : 2;
        win_fill(buf, n, rank, call);
        uint32_t before = c->progress(c);
        if (direct_broadcast(c, buf, n, root, err) || win_progress_ok(c, before, call, err))
            return -1;
        for (size_t i = 0; i < n; i++)
            if (buf[i] != win_value(root, i, call))
                return error_set(err, "call %d, root %d, %zu floats: rank %d has %g at %zu, the "
                                 "root's is %g", call, root, n, rank, buf[i], i,
                                 win_value(root, i, call));
    }
    if (w->sends != 0)
        return error_set(err, "rank %d sent %ld messages", rank, w->sends);
    return 0;
}

Test(hidden_direct_broadcast, six_ranks_a_large_buffer_and_the_progress)
{
    win_run(6, six, N, 60);
}
