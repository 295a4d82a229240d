/* Appendix B: stress. 10^4 ring all-reduces of random sizes (0 to 2^17 floats, log-uniform)
 * over 1 to 8 ranks, each checked element by element on every rank against a sum computed
 * another way. The values are small integers, different on every rank, whose sums are exact
 * in float: a lost contribution, a doubled one, or one added in the wrong place changes the
 * sum, and no rounding can hide it. DPS_STRESS_TOTAL changes the count (default 10000). */
#include "ch2/ranks.h"
#include "collectives.h"
#include "helpers.h"
#include "rng.h"

/* What every rank of one world does: its share of the run, and where it reports. */
typedef struct Stress {
    int calls;              /* all-reduces to run */
    uint64_t seed;          /* draws the sizes, the same on every rank */
    long long *checked;     /* shared: elements checked, per rank */
    long long *wrong;       /* shared: elements wrong, per rank */
} Stress;

/* Rank r's value at element j of call i: an integer in 1..255 plus a rank marker
 * (r+1)*4096, so that every rank's contribution is told apart in the sum. */
static float value(int r, long j, int i)
{
    return (float)((j * 31 + i * 17 + r * r * 13) % 255 + 1 + (r + 1) * 4096);
}

#define MAX_COUNT (1 << 17)

static int stress_rank(int rank, int size, void *arg, char *err)
{
    Stress *s = arg;
    Comm *c = rank_comm(rank, err);
    if (!c)
        return -1;
    const Device *dev = c->dev;
    float *host = xcalloc(MAX_COUNT, sizeof(float));
    float *buf = dev->alloc(MAX_COUNT * sizeof(float));
    float *scratch = dev->alloc(MAX_COUNT * sizeof(float)); /* chunk_max(count, 1) at most */
    Rng g;
    rng_seed(&g, s->seed, (uint64_t)size);
    int rc = 0;
    for (int i = 0; i < s->calls && rc == 0; i++) {
        int bits = (int)rng_below(&g, 18);
        size_t count = bits == 0 ? 0 : rng_below(&g, 1u << bits); /* 0 .. 2^17 - 1 */
        for (size_t j = 0; j < count; j++)
            host[j] = value(rank, (long)j, i);
        dev->upload(buf, host, count * sizeof(float));
        launch_phase("all-reduce %d of %d, %zu floats", i + 1, s->calls, count);
        if (ring_all_reduce(c, buf, count, scratch, 1.0f, err)) {
            rc = -1;
            break;
        }
        dev->download(host, buf, count * sizeof(float));
        for (size_t j = 0; j < count; j++) {
            double want = 0;
            for (int r = 0; r < size; r++)
                want += value(r, (long)j, i);
            if (host[j] != (float)want && s->wrong[rank]++ == 0)
                error_set(err, "all-reduce %d (%zu floats, %d ranks): element %zu is %.1f, "
                          "expected %.1f", i, count, size, j, host[j], want);
        }
        s->checked[rank] += (long long)count;
    }
    dev->release(buf);
    dev->release(scratch);
    free(host);
    c->close(c);
    return rc == 0 && s->wrong[rank] ? -1 : rc;
}

Test(failure_stress, ten_thousand_all_reduces_lose_and_double_nothing, .timeout = 600)
{
    const char *env = getenv("DPS_STRESS_TOTAL");
    int total = env ? atoi(env) : 10000;
    long long *checked = shared_zeroed(2 * 8 * sizeof(long long)), *wrong = checked + 8;
    cr_assert(checked);
    long long elements = 0;
    for (int n = 1; n <= 8; n++) {
        Stress s = {total / 8 + (n <= total % 8), 1000 + (uint64_t)n, checked, wrong};
        char err[ERR_LEN] = "";
        double t = now_seconds();
        int rc = run_ranks(n, 0, 30, stress_rank, &s, 300, err);
        cr_assert(rc == 0, "%d ranks: %s", n, err);
        long long mine = checked[0];
        for (int r = 0; r < n; r++) {
            cr_assert(wrong[r] == 0, "%d ranks: rank %d saw %lld wrong elements", n, r, wrong[r]);
            cr_assert(checked[r] == mine, "%d ranks: rank %d checked %lld elements, rank 0 %lld",
                      n, r, checked[r], mine);
        }
        elements += mine * n;
        cr_log_info("stress: %d ranks, %d all-reduces, %lld elements checked on each rank, "
                    "%.1f s", n, s.calls, mine, now_seconds() - t);
        memset(checked, 0, 2 * 8 * sizeof(long long));
    }
    cr_log_info("stress: %d all-reduces over 1..8 ranks, %lld elements checked, none wrong",
                total, elements);
}
