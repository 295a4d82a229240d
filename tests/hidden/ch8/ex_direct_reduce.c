/* Hidden tests of exercise 8.2, direct_reduce: more ranks than elements, a large buffer, the
 * progress the contract names (not in the students' handout). */
#include "ch8.h"
#include "ch8/windows.h"
#include "helpers.h"

enum { N = 300007 };

static int many(int rank, int size, void *arg, char *err)
{
    (void)arg;
    Watched w;
    Comm *c = win_comm(rank, &w, err);
    if (!c)
        return -1;
    float *buf = c->alloc_shared(c, N * sizeof(float));
    const size_t counts[] = {3, N};
    for (int call = 0; call < 4; call++) {
        size_t n = counts[call % 2];
        int root = (call * 3 + 1) % size;
        for (size_t i = 0; i < n; i++)
            buf[i] = win_rough(rank, i + (size_t)call);
        uint32_t before = c->progress(c);
        if (direct_reduce(c, buf, n, root, err))
            return -1;
        if (c->progress(c) != before + 2)
            return error_set(err, "call %d: rank %d's progress went from %u to %u; a call "
                             "ends at base + 2", call, rank, before, c->progress(c));
        for (size_t i = 0; i < n; i++) {
            float want = win_rough(rank, i + (size_t)call);
            if (rank == root) {
                want = win_rough(0, i + (size_t)call);
                for (int q = 1; q < size; q++)
                    want += win_rough(q, i + (size_t)call);
            }
            if (memcmp(&buf[i], &want, sizeof want) != 0)
                return error_set(err, "N = %d, root %d, %zu floats: rank %d has %.9g at %zu, "
                                 "expected %.9g", size, root, n, rank, buf[i], i, want);
        }
    }
    c->close(c);
    return 0;
}

Test(hidden_direct_reduce, six_ranks_three_elements_and_a_large_buffer)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(6, 0, WAIT_S, many, NULL, 60, err) == 0, "%s", err);
}

Test(hidden_direct_reduce, three_ranks_a_large_buffer)
{
    char err[ERR_LEN];
    cr_assert(run_ranks(3, 0, WAIT_S, many, NULL, 60, err) == 0, "%s", err);
}
