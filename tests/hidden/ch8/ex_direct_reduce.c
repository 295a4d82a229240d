/* Hidden tests of exercise 8.2, direct_reduce: more ranks than elements, a large buffer, the
 * progress the contract names (not in the students' handout). */
#include "ch8.h"
#include "ch8/windows.h"
#include "hidden/ch8/progress.h"
#include "helpers.h"

enum { N = 300007 };

/* Rough data that moves on a call: win_rough(q, i + call). */
static float rough_from(int q, size_t i, int call)
{
    return win_rough(q, i + (size_t)call);
}

static int many(Comm *c, const Watched *w, float *buf, char *err)
{
    (void)w;
    int rank = c->rank, size = c->size;
    const size_t counts[] = {3, N};
    for (int call = 0; call < 4; call++) {
        size_t n = counts[call % 2];
        int root = (call * 3 + 1) % size;
        for (size_t i = 0; i < n; i++)
            buf[i] = rough_from(rank, i, call);
        uint32_t before = c->progress(c);
        if (direct_reduce(c, buf, n, root, err) || win_progress_ok(c, before, call, err))
            return -1;
        for (size_t i = 0; i < n; i++) {
            float want = win_reduced(rough_from, call, rank, root, size, i);
            if (memcmp(&buf[i], &want, sizeof want) != 0)
                return error_set(err, "N = %d, root %d, %zu floats: rank %d has %.9g at %zu, "
                                 "expected %.9g", size, root, n, rank, buf[i], i, want);
        }
    }
    return 0;
}

Test(hidden_direct_reduce, six_ranks_three_elements_and_a_large_buffer)
{
    win_run(6, many, N, 60);
}

Test(hidden_direct_reduce, three_ranks_a_large_buffer)
{
    win_run(3, many, N, 60);
}
