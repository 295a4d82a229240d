/* Hidden tests of exercise 11.1, tensor_split_plan (not in the students' handout): random
 * models against every plan tried, a model of thousands of layers against the best plan found
 * another way (the best plan of each prefix, forward), and the edges. */
#include "ch11/split_plan.h"
#include "rng.h"

/* The cheapest of every plan of layers l.. (pairs or wholes), tried all: (floats, sent). */
static void try_all(const int *w, int L, int T, int *split, int l, size_t *bf, size_t *bs)
{
    if (l >= L) {
        size_t f, s;
        char why[200];
        if (plan_cost(w, L, T, split, &f, &s, why, sizeof why) &&
            (f < *bf || (f == *bf && s < *bs)))
            *bf = f, *bs = s;
        return;
    }
    split[l] = 0;
    try_all(w, L, T, split, l + 1, bf, bs);
    if (l + 1 < L) {
        split[l] = 1, split[l + 1] = 2;
        try_all(w, L, T, split, l + 2, bf, bs);
    }
}

static const int widths_of[] = {1, 2, 3, 4, 6, 8, 10, 12, 16, 24, 30, 32, 64, 100, 128, 1000, 4096};

Test(hidden_tensor_split_plan, random_models_against_every_plan)
{
    Rng r;
    rng_seed(&r, 1101, 0);
    static const int Ts[] = {1, 2, 3, 4, 8};
    for (int k = 0; k < 400; k++) {
        int L = 1 + (int)rng_below(&r, 12), T = Ts[rng_below(&r, 5)], w[13], split[13];
        for (int l = 0; l <= L; l++)
            w[l] = widths_of[rng_below(&r, sizeof widths_of / sizeof *widths_of)];
        size_t bf = (size_t)-1, bs = (size_t)-1;
        try_all(w, L, T, split, 0, &bf, &bs);
        char what[64];
        snprintf(what, sizeof what, "random model %d (L = %d)", k, L);
        check_plan(what, w, L, T, bf, bs);
    }
}

/* 3,000 layers: the best plan of each prefix, built forward (the prefix's last layer whole,
 * or the last two a pair), which the exercise's own order need not follow. */
Test(hidden_tensor_split_plan, three_thousand_layers, .timeout = 20)
{
    enum { L = 3000 };
    Rng r;
    rng_seed(&r, 1102, 0);
    int *w = xcalloc(L + 1, sizeof *w);
    for (int l = 0; l <= L; l++)
        w[l] = widths_of[rng_below(&r, sizeof widths_of / sizeof *widths_of)];
    size_t *f = xcalloc(L + 1, sizeof *f), *s = xcalloc(L + 1, sizeof *s);
    const int T = 4;
    for (int j = 1; j <= L; j++) { /* f[j], s[j]: the best of layers 0..j-1 */
        size_t in = (size_t)w[j - 1], out = (size_t)w[j];
        f[j] = f[j - 1] + (in + 1) * out, s[j] = s[j - 1];
        if (j >= 2 && in % T == 0) {
            size_t first = (size_t)w[j - 2];
            size_t pf = f[j - 2] + (first + 1) * in / T + in * out / T + out,
                   ps = s[j - 2] + out + (j - 2 > 0 ? first : 0);
            if (pf < f[j] || (pf == f[j] && ps < s[j]))
                f[j] = pf, s[j] = ps;
        }
    }
    check_plan("3,000 random layers", w, L, T, f[L], s[L]);
    free(w);
    free(f);
    free(s);
}

/* Widths of 1 (T = 1 divides everything, and a pair then costs what its layers whole cost;
 * T = 2 divides nothing), and 8-8-8 on 8 ranks: the pair, 25 floats against 144 whole. */
Test(hidden_tensor_split_plan, edges)
{
    const int ones[] = {1, 1, 1, 1, 1};
    check_plan("1-1-1-1-1", ones, 4, 2, 8, 0);
    check_plan("1-1-1-1-1", ones, 4, 1, 8, 0);
    const int eights[] = {8, 8, 8};
    check_plan("8-8-8", eights, 2, 8, 9 + 8 + 8, 8);
}
