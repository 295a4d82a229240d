/* Hidden tests of exercise 11.3, vocab_parallel_xent: every rank's loss and share of the
 * gradient against one device's sums, computed here in double (not in the students'
 * handout); logits near float's ends; labels at the edges of the shares; the bytes of a
 * large vocabulary on five ranks. */
#include "ch11.h"
#include "ch11/vocab.h"
#include "helpers.h"

/* One device's answer for row i of the case: the loss, and p of class k. */
static double ref_loss(int i, int V, int seed, float offset, double *top, double *sum)
{
    *top = -INFINITY;
    for (int k = 0; k < V; k++)
        *top = fmax(*top, vocab_logit(i, k, seed, offset));
    *sum = 0;
    for (int k = 0; k < V; k++)
        *sum += exp((double)vocab_logit(i, k, seed, offset) - *top);
    return log(*sum) - ((double)vocab_logit(i, vocab_label(i, V, seed), seed, offset) - *top);
}

static bool near(double got, double want, double unit)
{
    return fabs(got - want) <= 1e-5 * fmax(unit, fabs(want));
}

/* Shapes: rows, classes, offset. */
static const int shapes[][3] = {{0, 5, 0},   {1, 1, 0},    {3, 10, -50}, {17, 37, 300},
                                {5, 1000, 0}, {2, 3, 1000}, {9, 64, -2000}};

static int against_one_device(Comm *c, const Watched *w, char *err)
{
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int B = shapes[s][0], V = shapes[s][1], first, cols;
        float offset = (float)shapes[s][2];
        vocab_share(V, c->size, c->rank, &first, &cols);
        float *loss = xcalloc((size_t)B + 1, sizeof *loss);
        float *d = xcalloc((size_t)B * cols + 1, sizeof *d);
        size_t bytes;
        int rc = vocab_call(c, w, B, V, (int)s, offset, loss, d, &bytes, err);
        for (int i = 0; i < B && rc == 0; i++) {
            double top, sum, want = ref_loss(i, V, (int)s, offset, &top, &sum);
            if (!near(loss[i], want, 1.0))
                rc = error_set(err, "B = %d, V = %d on %d ranks: rank %d's loss of row %d is "
                               "%.9g, one device's %.9g", B, V, c->size, c->rank, i, loss[i],
                               want);
            for (int j = 0; j < cols && rc == 0; j++) {
                double p = exp((double)vocab_logit(i, first + j, (int)s, offset) - top) / sum;
                double g = (p - (first + j == vocab_label(i, V, (int)s))) / B;
                if (!near(d[(size_t)i * cols + j], g, 1.0 / B))
                    rc = error_set(err, "B = %d, V = %d on %d ranks: rank %d, row %d, class %d: "
                                   "dlogits %.9g, one device's %.9g", B, V, c->size, c->rank,
                                   i, first + j, d[(size_t)i * cols + j], g);
            }
        }
        free(loss);
        free(d);
        if (rc)
            return -1;
    }
    return 0;
}

Test(hidden_vocab_parallel_xent, against_one_device_on_one_to_five_ranks)
{
    for (int T = 1; T <= 5; T++)
        vocab_run(T, against_one_device);
}

/* Logits of 1e30 and -1e30 beside ordinary ones, labels on the first and last class of each
 * rank's share: no infinity, no NaN, and one device's answer. */
static int extremes(Comm *c, const Watched *w, char *err)
{
    (void)w;
    int V = 12, B = 2 * c->size, T = c->size, first, cols;
    vocab_share(V, T, c->rank, &first, &cols);
    float z[64] = {0}, loss[16], d[64];
    int labels[16] = {0};
    for (int i = 0; i < B; i++) {
        int t = i / 2, f, n;
        vocab_share(V, T, t, &f, &n);
        labels[i] = i % 2 ? f + n - 1 : f;
    }
    for (int i = 0; i < B; i++)
        for (int j = 0; j < cols; j++) {
            int k = first + j;
            z[i * cols + j] = k == labels[i] ? 2.0f : k % 3 == 0 ? 1e30f : k % 3 == 1 ? -1e30f : 1.0f;
        }
    if (vocab_parallel_xent(c, z, labels, B, cols, first, loss, d, err))
        return -1;
    for (int i = 0; i < B; i++) {
        /* the row's top is 1e30 (classes 0, 3, 6, 9; 4 of them unless one is the label) */
        int tops = 0;
        for (int k = 0; k < V; k++)
            tops += k != labels[i] && k % 3 == 0;
        double want = log((double)tops) + 1e30 - 2.0;
        if (!isfinite(loss[i]) || !near(loss[i], want, 1.0))
            return error_set(err, "%d ranks: row %d (label %d): loss %.9g, expected %.9g", T, i,
                             labels[i], loss[i], want);
        for (int j = 0; j < cols; j++) {
            int k = first + j;
            double p = k != labels[i] && k % 3 == 0 ? 1.0 / tops : 0.0;
            double g = (p - (k == labels[i])) / B;
            if (!isfinite(d[i * cols + j]) || !near(d[i * cols + j], g, 1.0 / B))
                return error_set(err, "%d ranks: row %d, class %d: dlogits %.9g, expected %.9g",
                                 T, i, k, d[i * cols + j], g);
        }
    }
    return 0;
}

Test(hidden_vocab_parallel_xent, logits_near_the_ends_and_labels_at_the_edges)
{
    for (int T = 1; T <= 4; T++)
        vocab_run(T, extremes);
}

/* 20,000 classes on five ranks, three rows: the three numbers a row, no more. */
static int large(Comm *c, const Watched *w, char *err)
{
    int B = 3, V = 20000, first, cols;
    vocab_share(V, c->size, c->rank, &first, &cols);
    float loss[3], *d = xcalloc((size_t)B * cols, sizeof *d);
    size_t sent;
    int rc = vocab_call(c, w, B, V, 2, 0, loss, d, &sent, err);
    free(d);
    if (rc)
        return -1;
    size_t most = 3 * (size_t)(c->size - 1) * B * sizeof(float);
    if (sent > most)
        return error_set(err, "rank %d sent %zu bytes for %d rows of %d classes, at most %zu",
                         c->rank, sent, B, V, most);
    return 0;
}

Test(hidden_vocab_parallel_xent, twenty_thousand_classes_on_five_ranks)
{
    vocab_run(5, large);
}
