/* Chapter 7: the optimizers against their formulas computed in double; ZeRO-1 and ZeRO-2 end
 * with the ring's weights bit for bit, for every optimizer and for chunks that N does not
 * divide; FSDP does at N <= 2 and within float tolerance above, and its evaluation, which
 * gathers every layer, is exact when the ranks' shares of the test set take different numbers
 * of batches; N ranks accumulating K micro-batches of b equal one device with batch N K b;
 * the state each rank keeps, logged, against a count of our own; ./train's refusals. */
#include <math.h>

#include "../ch2/ranks.h"
#include "data.h"
#include "helpers.h"
#include "model.h"
#include "optimizer.h"
#include "strategy.h"
#include "train.h"
#include "train_ref.h"
#include "train_setup.h"

/* The gradient of step s at element i: a fixed spread of signs and sizes. */
static float grad_at(int s, size_t i)
{
    return (float)(sin(0.37 * (double)i + 1.3 * s) * (1 + (double)(i % 7)));
}

/* Run @p steps steps of @p kind on elements [lo, lo + n) of a buffer of `total` floats on
 * the device under test; the host copy of the final parameters into @p p. */
static void run_optimizer(const OptimizerConfig *cfg, float lr, size_t total, size_t lo, size_t n,
                          int steps, float *p)
{
    const Device *dev = test_device();
    float *dp = dev->alloc(total * 4), *dg = dev->alloc(total * 4), *g = xcalloc(total, 4);
    for (size_t i = 0; i < total; i++)
        p[i] = (float)(i % 11) * 0.1f - 0.5f;
    dev->upload(dp, p, total * 4);
    Optimizer o;
    optimizer_init(&o, cfg, lr, dev, n);
    for (int s = 0; s < steps; s++) {
        for (size_t i = 0; i < total; i++)
            g[i] = grad_at(s, i);
        dev->upload(dg, g, total * 4);
        optimizer_step(&o, dp + lo, dg + lo);
    }
    dev->download(p, dp, total * 4);
    optimizer_free(&o);
    dev->release(dp);
    dev->release(dg);
    free(g);
}

/* The same run, in double, on the host, straight from the formulas of section 7.2. */
static double reference(const OptimizerConfig *c, double lr, size_t i, int steps)
{
    double p = (double)((float)(i % 11) * 0.1f - 0.5f), m = 0, u = 0;
    for (int s = 1; s <= steps; s++) {
        double g = grad_at(s - 1, i);
        if (c->kind == OPTIM_SGD) {
            p -= lr * g;
        } else if (c->kind == OPTIM_MOMENTUM) {
            m = c->momentum * m + g;
            p -= lr * m;
        } else {
            p *= 1 - lr * c->weight_decay;
            m = c->beta1 * m + (1 - c->beta1) * g;
            u = c->beta2 * u + (1 - c->beta2) * g * g;
            double mhat = m / (1 - pow(c->beta1, s)), uhat = u / (1 - pow(c->beta2, s));
            p -= lr * mhat / (sqrt(uhat) + c->eps);
        }
    }
    return p;
}

Test(optimizer, each_kind_follows_its_formula_on_its_range_only)
{
    const char *names[] = {"sgd", "momentum", "adamw"};
    enum { TOTAL = 1500, LO = 211, N = 1001, STEPS = 40 };
    for (int k = 0; k < 3; k++) {
        OptimizerConfig cfg;
        cr_assert(optimizer_config(&cfg, names[k], 0.8f, 0.05f) == 0, "%s", names[k]);
        float lr = k == 2 ? 0.01f : 0.02f, p[TOTAL];
        run_optimizer(&cfg, lr, TOTAL, LO, N, STEPS, p);
        for (size_t i = 0; i < TOTAL; i++) {
            bool inside = i >= LO && i < LO + N;
            double want = inside ? reference(&cfg, lr, i, STEPS) : (float)(i % 11) * 0.1f - 0.5f;
            cr_assert(fabs(p[i] - want) <= 2e-5 * (1 + fabs(want)),
                      "%s, %d steps: element %zu (%s the range [%d, %d)) is %.7g, expected %.7g",
                      names[k], STEPS, i, inside ? "inside" : "outside", LO, LO + N, p[i], want);
        }
    }
}

Test(optimizer, state_bytes_and_names)
{
    const char *names[] = {"sgd", "momentum", "adamw"};
    size_t per[] = {0, 4, 8};
    for (int k = 0; k < 3; k++) {
        OptimizerConfig cfg;
        cr_assert(optimizer_config(&cfg, names[k], 0.9f, 0.01f) == 0);
        cr_assert_str_eq(optimizer_name(cfg.kind), names[k]);
        Optimizer o;
        optimizer_init(&o, &cfg, 0.1f, test_device(), 333);
        cr_assert(optimizer_state_bytes(&o) == per[k] * 333, "%s: %zu bytes of state for 333 "
                  "parameters, expected %zu", names[k], optimizer_state_bytes(&o), per[k] * 333);
        optimizer_free(&o);
    }
    OptimizerConfig cfg;
    cr_assert(optimizer_config(&cfg, "adam", 0.9f, 0.01f) == -1, "'adam' is not a choice");
}

/* Ranks train with a strategy of the table; rank 0 leaves its final weights behind. */
static struct {
    Dataset train, test;
    const StrategyDef *def;
    OptimizerConfig opt;
    float lr;
    int hidden[MAX_HIDDEN], n_hidden, batch, accum, epochs;
    uint64_t seed;
    float *out;
    double *test_acc; /* rank 0's last reported test accuracy, or NULL */
} run;

static int train_rank(int rank, int size, void *arg, char *err)
{
    (void)arg, (void)size;
    const Device *dev;
    Comm *host;
    Model m;
    Comm *c = rank_with_model(rank, &run.train, run.hidden, run.n_hidden, run.batch,
                              run.seed, &dev, &host, &m, err);
    if (!c)
        return -1;
    Strategy s;
    StrategyEnv env = {.c = c, .host = host, .m = &m, .bucket_bytes = 2048,
                       .accum = run.accum};
    if (run.def->open(&s, &env, err))
        return -1;
    TrainConfig cfg = {.batch_size = run.batch, .epochs = run.epochs, .lr = run.lr,
                       .optimizer = run.opt, .accum = run.accum, .seed = run.seed,
                       .quiet = true};
    TrainResult res;
    int rc = train_run(&cfg, &m, &run.train, &run.test, &s, &res, err);
    if (rc == 0 && rank == 0)
        dev->download(run.out, m.params, m.n_params * sizeof(float));
    if (rc == 0 && rank == 0 && run.test_acc)
        *run.test_acc = res.last.test_acc;
    run.def->close(&s);
    model_free(&m);
    c->close(c);
    return rc;
}

/* Rank 0's weights after training with @p def on @p N ranks, into @p w (n floats). */
static void weights_after(const StrategyDef *def, int N, float *w, size_t n)
{
    run.def = def;
    run.out = shared_zeroed(n * sizeof(float));
    char err[ERR_LEN];
    cr_assert(run_ranks(N, 0, 30, train_rank, NULL, 120, err) == 0, "%s, N = %d: %s", def->name,
              N, err);
    memcpy(w, run.out, n * sizeof(float));
    munmap(run.out, n * sizeof(float));
}

/* Two hidden layers, 784-6-5-10: 4,805 parameters, which no N in 2..4 divides, in three layers
 * of 4,710, 35 and 60, so that a window of ZeRO-2 and a layer of FSDP may hold no float of a
 * rank, and FSDP's prefetch has a layer between the first and the last. */
static size_t load_small(long train_size)
{
    load_synthetic(train_size, &run.train, &run.test);
    run.test.n = 100;
    run.hidden[0] = 6, run.hidden[1] = 5, run.n_hidden = 2;
    run.batch = 8, run.accum = 1, run.seed = 5;
    return (size_t)run.train.features * 6 + 6 + 6 * 5 + 5 + 5 * 10 + 10;
}

/* How many of the n floats of a and b differ in their bits; the first in *first. */
static size_t bits_differ(const float *a, const float *b, size_t n, size_t *first)
{
    size_t differ = 0;
    for (size_t i = n; i-- > 0;)
        if (memcmp(&a[i], &b[i], 4) != 0)
            differ++, *first = i;
    return differ;
}

/* One step (the training set is one global batch), then 2 epochs of several steps. */
static const int epochs_of[2] = {1, 2};
static long train_size_of(int k, int N) { return k == 0 ? 8L * N : 240; }

Test(zero, zero1_and_zero2_end_with_the_rings_bits_for_every_optimizer)
{
    const char *names[] = {"sgd", "momentum", "adamw"};
    for (int e = 0; e < 2; e++)
        for (int N = 1; N <= 4; N++) {
            size_t n = load_small(train_size_of(e, N)), first = 0;
            run.epochs = epochs_of[e];
            float *ring = xcalloc(n, 4), *zero = xcalloc(n, 4);
            for (int k = 0; k < 3; k++) {
                cr_assert(optimizer_config(&run.opt, names[k], 0.9f, 0.01f) == 0);
                run.lr = k == 2 ? 1e-3f : 0.05f;
                weights_after(&strategy_ring, N, ring, n);
                const StrategyDef *defs[] = {&strategy_zero1, &strategy_zero2};
                for (int d = 0; d < 2; d++) {
                    weights_after(defs[d], N, zero, n);
                    size_t differ = bits_differ(zero, ring, n, &first);
                    cr_assert(differ == 0, "%s, %s, N = %d, %d epoch(s): %zu of %zu weights "
                              "differ from the ring's (first: %zu, %.9g against %.9g)",
                              defs[d]->name, names[k], N, run.epochs, differ, n, first,
                              zero[first], ring[first]);
                }
            }
            free(ring);
            free(zero);
            data_free(&run.train);
            data_free(&run.test);
        }
}

/* FSDP reduce-scatters each layer with the layer's own chunks, so its sums add in another
 * order than the ring's: the same bits at N = 1 and 2 (a sum of two floats has one order),
 * float tolerance at N = 3 and 4, after one step and after several. */
Test(fsdp, matches_the_ring_bit_for_bit_at_n_2_and_within_tolerance_above)
{
    const char *names[] = {"sgd", "momentum", "adamw"};
    for (int e = 0; e < 2; e++)
        for (int N = 1; N <= 4; N++) {
            size_t n = load_small(train_size_of(e, N)), first = 0;
            run.epochs = epochs_of[e];
            float *ring = xcalloc(n, 4), *fsdp = xcalloc(n, 4);
            for (int k = 0; k < 3; k++) {
                cr_assert(optimizer_config(&run.opt, names[k], 0.9f, 0.01f) == 0);
                run.lr = k == 2 ? 1e-3f : 0.05f;
                weights_after(&strategy_ring, N, ring, n);
                weights_after(&strategy_fsdp, N, fsdp, n);
                size_t differ = bits_differ(fsdp, ring, n, &first);
                double gap = weight_gap(fsdp, ring, n);
                if (N <= 2)
                    cr_assert(differ == 0, "fsdp, %s, N = %d, %d epoch(s): %zu of %zu weights "
                              "differ from the ring's (first: %zu, %.9g against %.9g)",
                              names[k], N, run.epochs, differ, n, first, fsdp[first],
                              ring[first]);
                else
                    cr_assert(gap <= 1e-5, "fsdp, %s, N = %d, %d epoch(s): the weights differ "
                              "by up to %g (relative) from the ring's", names[k], N,
                              run.epochs, gap);
            }
            free(ring);
            free(fsdp);
            data_free(&run.train);
            data_free(&run.test);
        }
}

/* FSDP gathers every layer's parameters for evaluation too, so every rank must run as many
 * batches as the largest share: 97 test samples in batches of 8 are 6 and 7 batches on 2
 * ranks, 4, 4 and 5 on 3, 3, 3, 3 and 4 on 4. The accuracy reported is, to the sample, one
 * device's count with rank 0's final weights. */
Test(fsdp, evaluation_is_exact_when_the_shares_take_different_numbers_of_batches)
{
    for (int N = 2; N <= 4; N++) {
        size_t n = load_small(240);
        run.test.n = 97;
        run.epochs = 1, run.lr = 0.05f;
        cr_assert(optimizer_config(&run.opt, "sgd", 0, 0) == 0);
        run.test_acc = shared_zeroed(sizeof(double));
        float *w = xcalloc(n, 4);
        weights_after(&strategy_fsdp, N, w, n);
        OneDevice shape = {.train = &run.train, .test = &run.test, .hidden = run.hidden,
                           .n_hidden = 2, .batch = 8, .seed = run.seed, .n = n};
        double right = one_device_right(&shape, w);
        double reported = *run.test_acc * run.test.n;
        cr_assert(fabs(reported - right) < 1e-6, "fsdp, N = %d, 97 test samples: the ranks "
                  "reported %.6f right, one device counts %.0f with the same weights", N,
                  reported, right);
        munmap(run.test_acc, sizeof(double));
        run.test_acc = NULL;
        free(w);
        data_free(&run.train);
        data_free(&run.test);
    }
}

/* N ranks that each accumulate K micro-batches of b train as one device with batch N K b,
 * for every strategy that accumulates: the ring, the ring with buckets (whose hooks must
 * fire once, in the last micro-batch), ZeRO-1, ZeRO-2 and FSDP (which keep the full gradients
 * while they accumulate, and reduce-scatter them once). */
Test(accum, n_ranks_times_k_micro_batches_equal_one_device)
{
    load_synthetic(480, &run.train, &run.test);
    run.test.n = 100;
    run.hidden[0] = 24, run.n_hidden = 1;
    run.batch = 8, run.epochs = 2, run.seed = 7, run.lr = 0.1f;
    cr_assert(optimizer_config(&run.opt, "sgd", 0, 0) == 0);
    size_t n = params_of_24(&run.train);
    float *got = xcalloc(n, 4), *ref = xcalloc(n, 4);
    const StrategyDef *defs[] = {&strategy_ring, &strategy_ring_bucketed, &strategy_zero1,
                                 &strategy_zero2, &strategy_fsdp};
    for (int N = 1; N <= 3; N++)
        for (int K = 2; K <= 3; K++) {
            single_device_weights(&run.train, &run.test, 24, N * K * run.batch, run.epochs,
                                  run.lr, ref, n);
            for (int d = 0; d < 5; d++) {
                run.accum = K;
                weights_after(defs[d], N, got, n);
                double gap = weight_gap(got, ref, n);
                cr_assert(gap <= 1e-5, "%s, N = %d, K = %d micro-batches of %d: the weights "
                          "differ by up to %g (relative) from one device's with batch %d",
                          defs[d]->name, N, K, run.batch, gap, N * K * run.batch);
            }
        }
    free(got);
    free(ref);
    data_free(&run.train);
    data_free(&run.test);
}

Test(accum, train_ends_with_mlps_loss_for_the_global_batch)
{
    Run a, b;
    run_program((char *[]){"./train", "--strategy", "ring", "--n_gpus", "2", "--batch_size",
                           "16", "--accum", "4", "--train_size", "4096", "--epochs", "2",
                           "--quiet", NULL}, &a);
    run_program((char *[]){"./mlp", "--batch_size", "128", "--train_size", "4096", "--epochs",
                           "2", "--quiet", NULL}, &b);
    cr_assert(a.status == 0 && b.status == 0, "exit %d and %d: %s %s", a.status, b.status, a.err,
              b.err);
    double la = final_loss(a.out), lb = final_loss(b.out);
    cr_assert(fabs(la - lb) < 1e-3, "./train --n_gpus 2 --batch_size 16 --accum 4: loss %g, "
              "./mlp --batch_size 128: %g", la, lb);
}

/* The state_bytes field of the last row of the CSV log at @p path (rank 0's state), found by
 * the header's name for it, not by its place. */
static long long last_state_bytes(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "no log at %s", path);
    char line[512], last[512] = "", header[512] = "";
    cr_assert(fgets(header, sizeof header, f), "no header in %s", path);
    while (fgets(line, sizeof line, f))
        memcpy(last, line, sizeof line);
    fclose(f);
    int field = 0; /* commas before the column's name */
    const char *name = strstr(header, ",state_bytes");
    for (const char *p = header; name && p <= name; p++)
        field += *p == ',';
    cr_assert(field > 0, "no state_bytes column in %s: '%s'", path, header);
    const char *c = last;
    for (int k = 0; k < field && c; k++)
        if ((c = strchr(c, ',')))
            c++;
    cr_assert(c, "no state_bytes field in %s: '%s'", path, last);
    return atoll(c);
}

/* What rank 0 keeps, measured by the loop and written in the log, against a count of our own
 * for 784-32-10 with AdamW on 4 ranks: layers of 25,120 and 330 floats, n = 25,450; rank 0's
 * chunk of the flat vector is [0, 6,362), its FSDP parts are the first 6,280 floats of layer 0
 * and the first 82 of layer 1 (6,362 again). The ring keeps 4n of parameters, 4n of gradients
 * and 8n of moments; ZeRO-1 the moments of its chunk only; ZeRO-2 its chunk of the gradients
 * and the two buffers backward writes into (one per parity of layer: 25,120 and 330 floats);
 * FSDP its parts of the parameters and of the gradients, each with its two buffers. */
Test(zero, the_log_counts_the_state_rank_0_keeps)
{
    char dir[] = "/tmp/dps-state-XXXXXX";
    cr_assert(mkdtemp(dir));
    const long long layer[2] = {784 * 32 + 32, 32 * 10 + 10}, n = layer[0] + layer[1];
    const long long chunk = n / 4, parts = layer[0] / 4 + layer[1] / 4, bufs = n;
    const char *strategies[] = {"ring", "zero1", "zero2", "fsdp"};
    const long long want[] = {4 * n + 4 * n + 8 * n, 4 * n + 4 * n + 8 * chunk,
                              4 * n + 4 * (chunk + bufs) + 8 * chunk,
                              4 * (parts + bufs) + 4 * (parts + bufs) + 8 * parts};
    cr_assert(chunk == 6362 && parts == 6362);
    for (int k = 0; k < 4; k++) {
        char log[64];
        snprintf(log, sizeof log, "%s/%s.csv", dir, strategies[k]);
        Run r;
        run_program((char *[]){"./train", "--strategy", (char *)strategies[k], "--n_gpus", "4",
                               "--optimizer", "adamw", "--hidden", "32", "--train_size", "1024",
                               "--epochs", "1", "--log", log, NULL}, &r);
        cr_assert(r.status == 0, "%s: exit %d: %s", strategies[k], r.status, r.err);
        cr_assert(strstr(r.out, "  state    ") && strstr(r.out, "\nstate: "),
                  "%s: no state line in the banner or at the end: %s", strategies[k], r.out);
        long long got = last_state_bytes(log);
        cr_assert(got == want[k], "--strategy %s, adamw, 4 ranks: rank 0 keeps %lld bytes, "
                  "expected %lld", strategies[k], got, want[k]);
        unlink(log);
    }
    rmdir(dir);
}

Test(zero1, train_refuses_what_a_stateful_optimizer_cannot_do_yet)
{
    char ck[] = "/tmp/dps-zero-XXXXXX";
    cr_assert(mkdtemp(ck));
    char path[64];
    snprintf(path, sizeof path, "%s/run.ckpt", ck);
    expect_refused((char *[]){"./train", "--strategy", "param_server", "--n_gpus", "2",
                              "--optimizer", "adamw", NULL},
                   "steps with plain SGD on its server", "param_server with adamw");
    expect_refused((char *[]){"./train", "--optimizer", "momentum", "--checkpoint", path, NULL},
                   "does not hold the optimizer's state", "--checkpoint with momentum");
    expect_refused((char *[]){"./mlp", "--optimizer", "adamw", "--checkpoint", path, NULL},
                   "does not hold the optimizer's state", "--checkpoint with adamw");
    expect_refused((char *[]){"./train", "--optimizer", "adam", NULL},
                   "--optimizer: expected one of sgd|momentum|adamw", "--optimizer adam");
    expect_refused((char *[]){"./train", "--strategy", "param_server", "--n_gpus", "2",
                              "--accum", "2", NULL},
                   "steps once per push", "param_server with --accum 2");
    expect_refused((char *[]){"./mlp", "--accum", "2", "--checkpoint", path, NULL},
                   "does not record the micro-batches", "--checkpoint with --accum 2");
    expect_refused((char *[]){"./train", "--strategy", "fsdp", "--n_gpus", "2", "--checkpoint",
                              path, NULL},
                   "keeps only a part of each layer's parameters", "fsdp with --checkpoint");
    rmdir(ck);
}

/* The banner says what the layers in flight cost: FSDP's rank 0 of 4 holds more parameters
 * than the default model has (its chunk and the two layers it gathers), and the banner's
 * second line splits the figure; ZeRO-2 has gradients in flight only; the ring none. */
static double kib_after(const char *s, const char *key)
{
    const char *p = strstr(s, key);
    cr_assert(p, "no '%s' in: %s", key, s);
    double v = strtod(p + strlen(key), NULL);
    p += strlen(key);
    while (*p == ' ' || (*p >= '0' && *p <= '9') || *p == '.')
        p++;
    return strncmp(p, "MiB", 3) == 0 ? v * 1024 : strncmp(p, "B ", 2) == 0 ? v / 1024 : v;
}

Test(zero, the_banner_says_what_the_layers_in_flight_cost)
{
    static Run r;
    run_program((char *[]){"./train", "--strategy", "fsdp", "--n_gpus", "4", "--epochs", "1",
                           "--train_size", "512", "--device", "cpu", NULL}, &r);
    cr_assert(r.status == 0, "exit %d: %s", r.status, r.err);
    const char *fly = strstr(r.out, "  in flight ");
    cr_assert(fly, "fsdp: no 'in flight' line: %s", r.out);
    double params = kib_after(r.out, "on rank 0: parameters "),
           model = kib_after(r.out, " parameters (");
    double p_fly = kib_after(fly, "in flight "), chunk = kib_after(fly, "beside a chunk of ");
    cr_assert(params > model, "fsdp's rank 0 holds %.1f KiB, the model %.1f", params, model);
    cr_assert(fabs(chunk + p_fly - params) < 0.15, "fsdp: chunk %.1f + in flight %.1f KiB is "
              "not the parameters' %.1f KiB: %s", chunk, p_fly, params, r.out);
    run_program((char *[]){"./train", "--strategy", "zero2", "--n_gpus", "4", "--epochs", "1",
                           "--train_size", "512", "--device", "cpu", NULL}, &r);
    cr_assert(r.status == 0 && strstr(r.out, "  in flight ") &&
                  !strstr(r.out, "of parameters and"), "zero2: %s", r.out);
    run_program((char *[]){"./train", "--strategy", "ring", "--n_gpus", "4", "--epochs", "1",
                           "--train_size", "512", "--device", "cpu", NULL}, &r);
    cr_assert(r.status == 0 && !strstr(r.out, "in flight"), "ring: %s", r.out);
}
