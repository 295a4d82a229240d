/* Tests of exercise 11.3, vocab_parallel_xent: cases worked by hand on one to five ranks, what
 * the ranks' answers must satisfy together, logits shifted far up, and the bytes, which must
 * not grow with the classes. The comparison with one device's sums is among the hidden
 * tests. */
#include "ch11.h"
#include "ch11/vocab.h"
#include "helpers.h"

enum { MAX_B = 8, MAX_V = 4096 };

static bool near(double got, double want)
{
    return fabs(got - want) <= 1e-5 * fmax(1.0, fabs(want));
}

/* Four classes, three rows: row 0's logits all 0 (label 1), row 1's all 1000 (label 3),
 * where exp(1000) would overflow; either way p = 1/4 everywhere, the loss log 4. Row 2 has 1
 * for class 0 (its label) and 0 for the others: p = e / (e + 3) for class 0 and 1 / (e + 3)
 * for each other, the loss log(e + 3) - 1; its largest logit is on one rank only. dlogits:
 * (p - [k the label]) / 3. On T = 1 to 5 ranks (on 5, one rank holds no class). */
static int hand(Comm *c, const Watched *w, char *err)
{
    (void)w;
    int first, cols, T = c->size;
    vocab_share(4, T, c->rank, &first, &cols);
    float z[12], loss[3] = {NAN, NAN, NAN}, d[12];
    int labels[] = {1, 3, 0};
    for (int j = 0; j < cols; j++)
        z[j] = 0, z[cols + j] = 1000, z[2 * cols + j] = first + j == 0 ? 1.0f : 0.0f;
    if (vocab_parallel_xent(c, z, labels, 3, cols, first, loss, d, err))
        return -1;
    const double e = exp(1.0);
    const double want_loss[] = {log(4.0), log(4.0), log(e + 3) - 1};
    for (int i = 0; i < 3; i++) {
        if (!near(loss[i], want_loss[i]))
            return error_set(err, "T = %d, rank %d: row %d's loss %.9g, expected %.9g", T,
                             c->rank, i, loss[i], want_loss[i]);
        for (int j = 0; j < cols; j++) {
            int k = first + j;
            double p = i < 2 ? 0.25 : k == 0 ? e / (e + 3) : 1 / (e + 3);
            double want = (p - (k == labels[i])) / 3;
            if (!near(d[i * cols + j], want))
                return error_set(err, "T = %d, rank %d: row %d, class %d: dlogits %.9g, "
                                 "expected %.9g", T, c->rank, i, k, d[i * cols + j], want);
        }
    }
    return 0;
}

Test(ex_vocab_parallel_xent, hand_worked_on_one_to_five_ranks)
{
    for (int T = 1; T <= 5; T++)
        vocab_run(T, hand);
}

/* Every rank the same loss, every row's gradient summing to zero over all ranks' classes,
 * each probability (B dlogits + the label's 1) in [0, 1]: checked with the book's ring
 * all-reduce after the call. */
static int together(Comm *c, const Watched *w, char *err)
{
    const int Vs[] = {7, 64, 5};
    for (int k = 0; k < 3; k++) {
        int V = Vs[k], B = 1 + 4 * (k % 2), first, cols;
        vocab_share(V, c->size, c->rank, &first, &cols);
        float loss[MAX_B], d[MAX_B * 64], check[2 * MAX_B], scratch[2 * MAX_B];
        size_t bytes;
        if (vocab_call(c, w, B, V, k, 0, loss, d, &bytes, err))
            return -1;
        for (int i = 0; i < B; i++) {
            double row = 0;
            for (int j = 0; j < cols; j++) {
                double p = d[i * cols + j] * B + (first + j == vocab_label(i, V, k));
                if (!(p >= -1e-6 && p <= 1 + 1e-6))
                    return error_set(err, "V = %d, rank %d: row %d, class %d: a probability "
                                     "of %.9g (B dlogits + the label's 1)", V, c->rank, i,
                                     first + j, p);
                row += d[i * cols + j];
            }
            check[i] = (float)row;
            check[B + i] = loss[i];
        }
        if (ring_all_reduce(c, check, 2 * (size_t)B, scratch, 1.0f, err))
            return -1;
        for (int i = 0; i < B; i++) {
            if (fabs(check[i]) > 1e-6)
                return error_set(err, "V = %d on %d ranks: row %d's gradient sums to %.9g over "
                                 "the classes, not 0", V, c->size, i, check[i]);
            if (!near(check[B + i], (double)c->size * loss[i]) || !(loss[i] > 0))
                return error_set(err, "V = %d on %d ranks: rank %d's loss of row %d is %.9g, "
                                 "the ranks' sum %.9g", V, c->size, c->rank, i, loss[i],
                                 check[B + i]);
        }
    }
    return 0;
}

Test(ex_vocab_parallel_xent, the_ranks_agree_and_each_row_sums_to_zero)
{
    for (int T = 1; T <= 4; T++)
        vocab_run(T, together);
}

/* The same logits, 800 higher: the same loss and gradient, nothing infinite. */
static int shifted(Comm *c, const Watched *w, char *err)
{
    int first, cols, V = 37, B = 6;
    vocab_share(V, c->size, c->rank, &first, &cols);
    float l0[MAX_B], l1[MAX_B], d0[MAX_B * 37], d1[MAX_B * 37];
    size_t bytes;
    if (vocab_call(c, w, B, V, 4, 0, l0, d0, &bytes, err) ||
        vocab_call(c, w, B, V, 4, 800, l1, d1, &bytes, err))
        return -1;
    for (int i = 0; i < B; i++) {
        if (!isfinite(l1[i]) || !near(l1[i], l0[i]))
            return error_set(err, "rank %d, row %d: loss %.9g with the logits 800 higher, %.9g "
                             "without", c->rank, i, l1[i], l0[i]);
        for (int j = 0; j < cols; j++)
            if (!(fabs(d1[i * cols + j] - d0[i * cols + j]) <= 1e-6))
                return error_set(err, "rank %d, row %d, class %d: dlogits %.9g with the logits "
                                 "800 higher, %.9g without", c->rank, i, first + j,
                                 d1[i * cols + j], d0[i * cols + j]);
    }
    return 0;
}

Test(ex_vocab_parallel_xent, a_shift_of_every_logit_changes_nothing)
{
    vocab_run(3, shifted);
}

/* 4,096 classes on three ranks, four rows: at most 3 (T - 1) B floats' worth of bytes a rank. */
static int bytes(Comm *c, const Watched *w, char *err)
{
    int B = 4, V = MAX_V, T = c->size;
    float loss[MAX_B];
    float *d = xcalloc((size_t)B * MAX_V, sizeof *d);
    size_t sent;
    int rc = vocab_call(c, w, B, V, 1, 0, loss, d, &sent, err);
    free(d);
    if (rc)
        return -1;
    size_t most = 3 * (size_t)(T - 1) * B * sizeof(float);
    if (sent > most)
        return error_set(err, "rank %d sent %zu bytes for %d rows of %d classes; the row's three "
                         "numbers need at most %zu", c->rank, sent, B, V, most);
    return 0;
}

Test(ex_vocab_parallel_xent, the_bytes_do_not_grow_with_the_classes)
{
    vocab_run(3, bytes);
}
