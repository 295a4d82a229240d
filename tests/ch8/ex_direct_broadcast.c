/* Tests of exercise 8.1, direct_broadcast. */
#include "ch8.h"
#include "ch8/windows.h"
#include "helpers.h"

enum { MOST = 4099 };

/* Every rank as root in turn, three counts; the data change from call to call. */
static int every_root(Comm *c, const Watched *w, float *buf, char *err)
{
    int rank = c->rank, size = c->size;
    const size_t counts[] = {0, 1, MOST};
    int call = 0;
    for (int root = 0; root < size; root++)
        for (size_t k = 0; k < 3; k++, call++) {
            size_t n = counts[k];
            win_fill(buf, n, rank, call);
            if (direct_broadcast(c, buf, n, root, err))
                return -1;
            for (size_t i = 0; i < n; i++)
                if (buf[i] != win_value(root, i, call))
                    return error_set(err, "N = %d, root %d, %zu floats: rank %d has %g at %zu, "
                                     "the root's is %g", size, root, n, rank, buf[i], i,
                                     win_value(root, i, call));
        }
    if (w->sends != 0)
        return error_set(err, "rank %d sent %ld messages: a direct broadcast reads", rank,
                         w->sends);
    return 0;
}

Test(ex_direct_broadcast, every_root_on_one_to_five_ranks)
{
    for (int n = 1; n <= 5; n++)
        win_run(n, every_root, MOST, 60);
}

/* Forty calls, the root turning, every rank sleeping a random few microseconds first: a root
 * that returned before its readers had read would see its next data read by them. */
static int back_to_back(Comm *c, const Watched *w, float *buf, char *err)
{
    (void)w;
    return win_back_to_back(c, buf, direct_broadcast, 3001, 1, 3, win_value_broadcast,
                            "the root's is", err);
}

Test(ex_direct_broadcast, back_to_back_calls_with_delays)
{
    win_run(3, back_to_back, 3001, 60);
}

static int bad_root(Comm *c, const Watched *w, float *buf, char *err)
{
    (void)w;
    int roots[] = {-1, c->size};
    for (int k = 0; k < 2; k++)
        if (direct_broadcast(c, buf, 16, roots[k], err) == 0 || !strstr(err, "root"))
            return error_set(err, "root %d of %d ranks was not refused by name (%s)",
                             roots[k], c->size, err);
    return 0;
}

Test(ex_direct_broadcast, a_root_outside_the_ranks_is_refused)
{
    win_run(2, bad_root, 16, 30);
}
