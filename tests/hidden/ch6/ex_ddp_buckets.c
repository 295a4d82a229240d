/* Hidden tests of exercise 6.1, ddp_buckets: byte counts beyond 32 bits, the smallest
 * models and layers without parameters, and models of up to 300 layers against a reference
 * written here (not in the students' handout). */
#include "ch6.h"
#include "helpers.h"

#define MAX_L 300

/* Check one assignment against the expected one; @p what names the case. */
static void expect(const char *what, const size_t *f, int L, size_t cap, size_t first,
                   const int *want, int n)
{
    int of[MAX_L + 1];
    for (int l = 0; l <= MAX_L; l++)
        of[l] = -7;
    int got = ddp_buckets(f, L, cap, first, of);
    cr_assert(got == n, "%s (%d layers, cap %zu, first cap %zu): %d buckets, expected %d", what,
              L, cap, first, got, n);
    for (int l = 0; l < L; l++)
        cr_assert(of[l] == want[l], "%s (%d layers, cap %zu, first cap %zu): layer %d "
                  "(%zu floats) in bucket %d, expected %d", what, L, cap, first, l, f[l], of[l],
                  want[l]);
    cr_assert(of[L] == -7, "%s: wrote bucket_of[%d], past the last of %d layers", what, L, L);
}

/* Layers of billions of floats: the bytes overflow 32 bits, so they must be counted in
 * size_t. Worked by hand: layer 3 is 20 bytes >= the first cap 16, so bucket 0 is {3};
 * layer 2 is 8e9 bytes, short of the cap 8e9 + 4 until layer 1's 4 bytes: bucket 1 is
 * {2, 1}; layer 0 starts bucket 2. */
Test(hidden_ddp_buckets, sizes_beyond_32_bits)
{
    size_t f[] = {3000000000u, 1, 2000000000u, 5};
    expect("bytes beyond 32 bits", f, 4, 8000000004ull, 16, (int[]){2, 1, 1, 0}, 3);
    /* A cap of 5 GiB: layers 3 and 2 together (8e9 bytes) reach it, layer 3 alone (4e9)
     * does not; layers 1 and 0 make the last bucket. */
    size_t g[] = {1500000000u, 2, 1000000000u, 1000000000u};
    expect("a cap beyond 32 bits", g, 4, 5ull << 30, 5ull << 30, (int[]){1, 1, 0, 0}, 2);
    /* Each layer alone is 4 GiB + 4 bytes, which a 32-bit count reads as 4 bytes. */
    size_t h[] = {(1ull << 30) + 1, (1ull << 30) + 1, (1ull << 30) + 1};
    expect("4 GiB + 4 byte layers", h, 3, 1ull << 32, 1ull << 32, (int[]){2, 1, 0}, 3);
}

/* One layer is one bucket, whatever the caps; no layers, no buckets; layers of zero floats
 * add no bytes, so they never close a bucket by themselves. */
Test(hidden_ddp_buckets, the_smallest_models_and_empty_layers)
{
    size_t one[] = {7};
    expect("one small layer", one, 1, 1u << 20, 1u << 20, (int[]){0}, 1);
    expect("one layer above both caps", one, 1, 4, 4, (int[]){0}, 1);
    size_t z[] = {0, 10, 0, 0}; /* 0, 40, 0, 0 bytes */
    expect("layers of zero floats", z, 4, 40, 40, (int[]){1, 0, 0, 0}, 2);
    size_t y[] = {0, 0, 5}; /* the last layer closes bucket 0; the two empty ones share 1 */
    expect("empty layers after a full bucket", y, 3, 4, 4, (int[]){1, 1, 0}, 2);
    int of[1] = {-7};
    int got = ddp_buckets(one, 0, 40, 40, of);
    cr_assert(got == 0, "no layers: %d buckets, expected 0", got);
    cr_assert(of[0] == -7, "no layers: wrote bucket_of[0]");
}

/* DDP's rule, written here in another form: the buckets' boundaries, from the last layer,
 * are where the bytes since the previous boundary first reach the cap. */
static int reference(const size_t *f, int L, size_t cap, size_t first, int *of)
{
    int b = 0;
    size_t since = 0;
    for (int l = L - 1; l >= 0; l--) {
        if (l < L - 1 && since >= (b == 0 ? first : cap)) {
            b++;
            since = 0;
        }
        of[l] = b;
        since += f[l] * 4;
    }
    return L ? b + 1 : 0;
}

/* 1,000 random models of up to 300 layers, with sizes in multiples of 16 floats and caps in
 * multiples of 64 bytes, so that buckets often land exactly on their cap. */
Test(hidden_ddp_buckets, many_layers_against_a_reference)
{
    uint64_t x = 20240607;
    for (int trial = 0; trial < 1000; trial++) {
        size_t f[MAX_L];
        int want[MAX_L], L = 1 + (int)(trial * 7919 % MAX_L);
        for (int l = 0; l < L; l++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            f[l] = 16 * (1 + (x >> 35) % 64);
        }
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_t cap = 64 * (1 + (x >> 20) % 200), first = 64 * (1 + (x >> 44) % 100);
        int n = reference(f, L, cap, first, want);
        char what[64];
        snprintf(what, sizeof what, "random model %d", trial);
        expect(what, f, L, cap, first, want, n);
    }
}
