/* Tests of exercise 6.1, ddp_buckets. */
#include "ch6.h"
#include "helpers.h"

static void expect(const size_t *f, int L, size_t cap, size_t first, const int *want, int n)
{
    int of[16];
    int got = ddp_buckets(f, L, cap, first, of);
    cr_assert(got == n, "cap %zu, first %zu: %d buckets, expected %d", cap, first, got, n);
    for (int l = 0; l < L; l++)
        cr_assert(of[l] == want[l], "cap %zu, first %zu: layer %d in bucket %d, expected %d",
                  cap, first, l, of[l], want[l]);
}

Test(ddp_buckets, hand_worked_cases)
{
    size_t f[] = {100, 200, 300, 50}; /* 400, 800, 1200, 200 bytes */
    expect(f, 4, 1000, 500, (int[]){1, 1, 0, 0}, 2);
    expect(f, 4, 1u << 30, 1u << 20, (int[]){0, 0, 0, 0}, 1);
    expect(f, 4, 1, 1, (int[]){3, 2, 1, 0}, 4);
    size_t g[] = {10, 10, 10, 10}; /* 40 bytes each */
    expect(g, 4, 40, 100, (int[]){1, 0, 0, 0}, 2);
    expect(g, 4, 40, 120, (int[]){1, 0, 0, 0}, 2); /* exactly the cap closes it */
    expect(g, 4, 41, 40, (int[]){2, 1, 1, 0}, 3);  /* the first cap, then the others' */
    size_t h[] = {1000, 1};
    expect(h, 2, 8, 8, (int[]){0, 0}, 1); /* a layer is never split */
    expect(h, 1, 8, 8, (int[]){0}, 1);
}

/* For random layers and caps, the assignment DDP's rule defines: buckets are runs of
 * layers from the last, every bucket but the last reaches its cap and would not without its
 * lowest layer, and the last does not reach its cap before its lowest layer. */
Test(ddp_buckets, the_rule_holds_for_random_models)
{
    uint64_t x = 12345;
    for (int trial = 0; trial < 2000; trial++) {
        size_t f[12];
        int of[12], L = 1 + (int)(trial % 12);
        for (int l = 0; l < L; l++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            f[l] = 1 + (x >> 33) % 5000;
        }
        size_t cap = 4 + (x >> 20) % 40000, first = 4 + (x >> 40) % 20000;
        int n = ddp_buckets(f, L, cap, first, of);
        cr_assert(n >= 1 && n <= L, "%d buckets for %d layers", n, L);
        cr_assert(of[L - 1] == 0, "the last layer is in bucket %d, not 0", of[L - 1]);
        for (int l = L - 2; l >= 0; l--)
            cr_assert(of[l] == of[l + 1] || of[l] == of[l + 1] + 1,
                      "layer %d in bucket %d after layer %d in %d", l, of[l], l + 1, of[l + 1]);
        cr_assert(of[0] == n - 1, "the first layer is in bucket %d of %d", of[0], n);
        for (int b = 0; b < n; b++) {
            size_t bytes = 0, without_lowest = 0;
            int lowest = -1;
            for (int l = L - 1; l >= 0; l--)
                if (of[l] == b) {
                    without_lowest = bytes;
                    bytes += f[l] * 4;
                    lowest = l;
                }
            size_t c = b == 0 ? first : cap;
            if (b < n - 1)
                cr_assert(bytes >= c && without_lowest < c, "bucket %d: %zu bytes (%zu without "
                          "layer %d), cap %zu", b, bytes, without_lowest, lowest, c);
            else
                cr_assert(without_lowest < c, "the last bucket reached its cap %zu before "
                          "layer %d", c, lowest);
        }
    }
}
