/* Chapter 9's alpha-beta model: each algorithm's steps and bytes against cases worked by
 * hand, the fit recovering the alpha and beta that made a set of times, and ./scale end to
 * end: on measurements made by a known model it finds that model again, and checks it. */
#include <math.h>
#include <sys/stat.h>

#include "cost_model.h"
#include "helpers.h"

static void expect_terms(CostAlgo a, int H, int L, int C, double ws, double wb, double bs,
                         double bb)
{
    Machine m = {.hosts = H, .per_host = L, .cards = C};
    CostTerms t;
    cr_assert(cost_terms(a, &m, &t), "%s on %d x %d: refused", cost_name(a), H, L);
    cr_assert(t.within_steps == ws && fabs(t.within_bytes - wb) < 1e-12 &&
                  t.between_steps == bs && fabs(t.between_bytes - bb) < 1e-12,
              "%s on %d hosts x %d ranks, %d card(s): within %g steps, %g n; between %g, %g n;"
              " by hand %g, %g; %g, %g",
              cost_name(a), H, L, C, t.within_steps, t.within_bytes, t.between_steps,
              t.between_bytes, ws, wb, bs, bb);
}

/* By hand: a flat ring of N = 4 sends 2(N-1)/N = 1.5 n in 6 steps; with a card per rank it
 * runs as NCCL's channels do, a channel per card, each card 1.5 n / 2 (8 x 8 with 8 cards: 2 x 63/64 n
 * / 8). The hierarchy of 2 x 2 reduces and gathers within (1 step and n/2 each), and its 2
 * rings cross in 2 steps of n/2 each, sharing one card (n per host in all) or one card each
 * (n/2). */
Test(cost_model, each_algorithm_counts_the_steps_and_bytes_worked_by_hand)
{
    expect_terms(COST_FLAT_RING, 2, 2, 1, 0, 0, 6, 1.5);
    expect_terms(COST_FLAT_RING, 2, 2, 2, 0, 0, 6, 0.75);
    expect_terms(COST_FLAT_RING, 8, 8, 8, 0, 0, 126, 2.0 * 63 / 64 / 8);
    expect_terms(COST_FLAT_RING, 1, 4, 1, 6, 1.5, 0, 0);
    /* NCCL's ring, pipelined: of 2(N-1) steps only the 2(H-1) that leave a host meet the
     * network, the other 2(N-H) the host's link; its bytes as the flat ring's. */
    expect_terms(COST_NCCL_RING, 2, 2, 1, 4, 0, 2, 1.5);
    expect_terms(COST_NCCL_RING, 8, 8, 8, 112, 0, 14, 2.0 * 63 / 64 / 8);
    expect_terms(COST_NCCL_RING, 4, 1, 1, 0, 0, 6, 1.5);
    expect_terms(COST_NCCL_RING, 1, 4, 1, 6, 1.5, 0, 0);
    expect_terms(COST_HIERARCHICAL, 2, 2, 1, 2, 1, 2, 1);
    expect_terms(COST_HIERARCHICAL, 2, 2, 2, 2, 1, 2, 0.5);
    expect_terms(COST_HIERARCHICAL, 4, 1, 1, 0, 0, 6, 1.5);
    expect_terms(COST_HIERARCHICAL, 8, 8, 8, 2, 1.75, 14, 1.75 / 8);
    expect_terms(COST_TREE, 4, 2, 1, 2, 1, 4, 4);
    expect_terms(COST_TREE, 5, 1, 1, 0, 0, 6, 6);
    expect_terms(COST_ONE_SHOT, 1, 4, 1, 2, 3, 0, 0);
    expect_terms(COST_TWO_SHOT, 1, 4, 1, 2, 1.5, 0, 0);
    Machine two = {.hosts = 2, .per_host = 2, .cards = 1};
    CostTerms t;
    cr_assert(!cost_terms(COST_TWO_SHOT, &two, &t), "two-shot across hosts was accepted");
    cr_assert(cost_predict(COST_ONE_SHOT, &two, 1e6) < 0, "one-shot across hosts has a time");
}

Test(cost_model, a_prediction_is_the_terms_times_the_links)
{
    Machine m = {.hosts = 2, .per_host = 2, .cards = 1, .within = {1e-6, 1e-10, 0},
                 .between = {5e-6, 8e-9, 0}};
    double n = 1 << 20; /* by hand: 2 x 1us + n x 1e-10 + 2 x 5us + n x 8e-9 */
    double hand = 2e-6 + n * 1e-10 + 10e-6 + n * 8e-9;
    cr_assert(fabs(cost_predict(COST_HIERARCHICAL, &m, n) - hand) < 1e-15 * n,
              "hierarchical %g s, by hand %g s", cost_predict(COST_HIERARCHICAL, &m, n), hand);
    m.between.rate = 1e8; /* a bucket of 100 MB/s: n bytes across take n / 1e8 s, more */
    hand = 2e-6 + n * 1e-10 + n / 1e8;
    cr_assert(fabs(cost_predict(COST_HIERARCHICAL, &m, n) - hand) < 1e-15 * n,
              "behind a bucket: %g s, by hand %g s", cost_predict(COST_HIERARCHICAL, &m, n), hand);
}

/* Times made by alpha = 3 us and beta = 1 ns/B, exactly, then with +-5% of noise: the fit
 * finds them again (exactly, then within the noise); too few points or a negative fit are
 * refused. */
Test(cost_model, the_fit_finds_the_alpha_and_beta_that_made_the_times)
{
    double steps[12], bytes[12], t[12];
    for (int i = 0; i < 12; i++) {
        steps[i] = 6, bytes[i] = 1.5 * (double)(4096u << i);
        t[i] = steps[i] * 3e-6 + bytes[i] * 1e-9;
    }
    Link l;
    cr_assert(cost_fit(steps, bytes, t, 12, &l) == 0);
    cr_assert(fabs(l.alpha - 3e-6) < 1e-12 && fabs(l.beta - 1e-9) < 1e-15,
              "exact times: alpha %g, beta %g", l.alpha, l.beta);
    for (int i = 0; i < 12; i++)
        t[i] *= i % 2 ? 1.05 : 0.95;
    cr_assert(cost_fit(steps, bytes, t, 12, &l) == 0);
    cr_assert(fabs(l.alpha / 3e-6 - 1) < 0.1 && fabs(l.beta / 1e-9 - 1) < 0.1,
              "times within 5%%: alpha %g, beta %g", l.alpha, l.beta);
    cr_assert(cost_fit(steps, bytes, t, 1, &l) == -1, "one point was fitted");
    double falling[3] = {3e-3, 2e-3, 1e-3}; /* longer messages, shorter times: beta < 0 */
    cr_assert(cost_fit(steps, bytes, falling, 3, &l) == -1, "a negative beta was accepted");
}

/* A directory of measurements made by a known model, as make bench writes them. */
static void write_csv(const char *dir, const char *name, const char *columns,
                      double (*value)(int col, double size), int n_cols)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fprintf(f, "# machine: a test\nsize,%s\n", columns);
    for (double s = 4096; s <= 64 << 20; s *= 4) {
        fprintf(f, "%.0f", s);
        for (int c = 0; c < n_cols; c++)
            fprintf(f, ",%.4f", value(c, s));
        fprintf(f, "\n");
    }
    fclose(f);
}

/* within: 2 us a step, 20 GB/s; between: a wire of 100 us a step and 5 GB/s behind a bucket
 * of 125 MB/s (a gigabit), so that 4 and 16 KiB are the wire's, the rest the bucket's */
static const Link within = {2e-6, 0.05e-9, 0}, between = {100e-6, 0.2e-9, 125e6};
static int layout_h, layout_l;

static double model_us(CostAlgo a, double size)
{
    Machine m = {.hosts = layout_h, .per_host = layout_l, .cards = 1, .within = within,
                 .between = between};
    return cost_predict(a, &m, size) * 1e6;
}

static double two_shot(int col, double size)
{
    return col == 1 ? model_us(COST_TWO_SHOT, size) : 1;
}

static double hosts_row(int col, double size)
{
    return col == 0   ? model_us(COST_FLAT_RING, size)
           : col == 2 ? model_us(COST_HIERARCHICAL, size)
           : col == 3 ? 1e-9 / between.beta /* the unshaped wire, in GB/s */
                      : 1;
}

Test(scale, finds_the_model_that_made_the_measurements_and_checks_it, .timeout = 60)
{
    char dir[] = "/tmp/dps-scale-XXXXXX";
    cr_assert(mkdtemp(dir));
    layout_h = 1, layout_l = 2;
    write_csv(dir, "crossovers_n2.csv", "one_shot_us,two_shot_us", two_shot, 2);
    layout_l = 4;
    write_csv(dir, "crossovers_n4.csv", "one_shot_us,two_shot_us", two_shot, 2);
    layout_h = 4, layout_l = 1;
    write_csv(dir, "hosts_4x1_1gbit.csv", "ring_us,mpi_us,hier_us,unshaped_gbs", hosts_row, 4);
    layout_h = 2, layout_l = 2;
    write_csv(dir, "hosts_2x2_1gbit.csv", "ring_us,mpi_us,hier_us,unshaped_gbs", hosts_row, 4);
    static Run r;
    run_program((char *[]){"./scale", "--machine", "here", "--from", dir, NULL}, &r);
    cr_assert(r.status == 0, "./scale --machine here: exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.out, "within a host: alpha 2.00 us, beta 0.050 ns/B"), "%s", r.out);
    cr_assert(strstr(r.out, "links 1gbit: alpha 100.00 us, beta 0.200 ns/B, a rate of 0.125 GB/s"),
              "%s", r.out);
    cr_assert(strstr(r.out, "1gbit, 2x2: the model within 0% of every size from 64 KiB"), "%s",
              r.out);
    static Run none;
    run_program((char *[]){"./scale", "--machine", "here", "--from", "/nonexistent", NULL},
                &none);
    cr_assert(none.status == 1 && strstr(none.err, "make bench"), "exit %d: %s", none.status,
              none.err);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert(system(cmd) == 0);
}

/* The default cluster's table: 8 B, the smallest size, costs only the steps' latencies. */
Test(scale, the_h100_table_at_8_bytes_is_the_latencies, .timeout = 30)
{
    static Run r;
    run_program((char *[]){"./scale", "--hosts", "4", "--ranks_per_host", "2", "-b", "8",
                           "-e", "8", NULL}, &r);
    cr_assert(r.status == 0, "%s", r.err);
    double s, flat, hier, tree;
    const char *row = r.out;
    while (*row == '#' && strchr(row, '\n'))
        row = strchr(row, '\n') + 1; /* past the comment lines */
    cr_assert(sscanf(row, "%lf %lf %lf %lf", &s, &flat, &hier, &tree) == 4, "%s", r.out);
    /* by hand, in us, with LL (the fastest at 8 B): NCCL's ring 2 x 3 x 2.7 across the hosts
     * and 2 x (8 - 4) steps within, each NCCL's overhead of 1; hierarchical 2 x 0.6 + 2 x 3 x
     * 2.7; tree 2 x 0.6 + 2 x 2 x 2.7 (and 8 bytes add less than 0.01 us) */
    cr_assert(fabs(flat - 24.2) < 0.02 && fabs(hier - 17.4) < 0.02 && fabs(tree - 12.0) < 0.02,
              "8 B on 4 x 2: flat %g, hierarchical %g, tree %g us", flat, hier, tree);
    expect_refused((char *[]){"./scale", "--machine", "tpu", NULL}, "--machine", "tpu");
}
