/**
 * @file scale_main.c
 * @brief The program scale: the alpha-beta model of chapter 9, fitted to this machine or
 *        given an H100 cluster's links.
 */
#line 1325 "chapters/A3-programs.nw"
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost_model.h"
#include "grad_codec.h"
#include "options.h"
#include "run.h"
#include "util.h"

#line 1347 "chapters/A3-programs.nw"
static const char *summary =
    "Predict all-reduces with chapter 9's alpha-beta model: the flat ring, the hierarchy\n"
    "and a tree, on an H100 cluster or on this machine's links fitted to make bench.";
static const char *examples =
    "  ./scale                                  8 hosts x 8 H100s, 8 B to 256 MiB\n"
    "  ./scale --hosts 128 --params 70e9        a 70B model on 1,024 GPUs\n"
    "  ./scale --machine here                   this machine's links, checked\n"
    "  ./scale --machine here --compress powersgd:2 --hidden 1024,1024\n"
    "                                           where a codec pays (chapter 10)\n";
#line 1913 "chapters/09-hosts.nw"
/** Column @p name of CSV @p path: sizes (first column) into @p size, values into @p v, at
 *  most @p most rows; rows read (0 when the file or the column is missing). */
static int csv_column(const char *path, const char *name, double *size, double *v, int most)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int col = -1, rows = 0;
    while (f && rows < most && fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char *save, *tok = strtok_r(line, ",\n", &save);
        if (col < 0) { /* the header */
            for (int k = 0; tok && col < 0; k++, tok = strtok_r(NULL, ",\n", &save))
                if (strcmp(tok, name) == 0)
                    col = k;
            if (col < 0)
                break;
            continue;
        }
        double x = strtod(tok, NULL), y = NAN;
        for (int k = 1; k <= col && (tok = strtok_r(NULL, ",\n", &save)); k++)
            if (k == col)
                y = strtod(tok, NULL);
        if (isfinite(y) && y > 0)
            size[rows] = x, v[rows++] = y;
    }
    if (f)
        fclose(f);
    return rows;
}
#line 1694 "chapters/09-hosts.nw"
/** This machine's within-host link, from chapter 8's two-shot at 2 and 4 ranks. */
static int fit_within(const char *dir, Link *within, char *err)
{
    double steps[64], bytes[64], t[64], size[32], us[32];
    int n = 0;
    for (int L = 2; L <= 4; L += 2) {
        char path[512];
        snprintf(path, sizeof path, "%s/crossovers_n%d.csv", dir, L);
        int rows = csv_column(path, "two_shot_us", size, us, 32);
        Machine m = {.hosts = 1, .per_host = L, .cards = 1};
        CostTerms k;
        cost_terms(COST_TWO_SHOT, &m, &k);
        for (int i = 0; i < rows && n < 64; i++, n++)
            steps[n] = k.within_steps, bytes[n] = k.within_bytes * size[i], t[n] = us[i] * 1e-6;
    }
    if (n < 2 || cost_fit(steps, bytes, t, n, within))
        return error_set(err,
                         "no fit of the link within a host from %s/crossovers_n2.csv "
                         "and crossovers_n4.csv (make bench)",
                         dir);
#line 1712 "chapters/09-hosts.nw"
    return 0;
}
#line 1719 "chapters/09-hosts.nw"
/** Messages from this size up measure a link's rate; smaller ones, its steps. */
#define RATE_FROM 65536

/** A link between hosts, from the flat ring of 4 hosts x 1 rank on it: the bucket's rate
 *  from the messages of RATE_FROM bytes and more; the wire's beta from what the unshaped
 *  link carried, and its alpha from the smaller messages. */
static int fit_between(const char *dir, const char *link, Link *between, char *err)
{
    double size[32], us[32], wire[32], sa = 0, saa = 0, v[32], secs[32];
    char path[512];
    snprintf(path, sizeof path, "%s/hosts_4x1_%s.csv", dir, link);
    int rows = csv_column(path, "ring_us", size, us, 32), large = 0;
    if (csv_column(path, "unshaped_gbs", size, wire, 32) != rows || rows == 0)
        return error_set(err, "no flat ring, or no unshaped_gbs, in %s (make bench)", path);
    Machine m = {.hosts = 4, .per_host = 1, .cards = 1};
    CostTerms k;
    cost_terms(COST_FLAT_RING, &m, &k);
    between->beta = 1 / (wire[0] * 1e9);
    for (int i = 0; i < rows; i++) {
        double b = k.between_bytes * size[i], t = us[i] * 1e-6, a = k.between_steps / t;
        if (size[i] < RATE_FROM) /* alpha, by the relative least squares, beta known */
            sa += a * (1 - b * between->beta / t), saa += a * a;
        else
            v[large] = b, secs[large++] = t;
    }
    between->alpha = saa > 0 ? sa / saa : 0;
    if (!(between->rate = cost_fit_rate(v, secs, large)) || between->alpha <= 0)
        return error_set(err, "no fit of the %s link from %s (make bench)", link, path);
    return 0;
}
#line 1756 "chapters/09-hosts.nw"
/** The model against hosts_LAYOUT_LINK.csv's ring and hierarchy: the worst error, or -1
 *  when nothing was measured. */
static double validate(const char *dir, const char *layout, const char *link, Machine *m,
                       FILE *csv)
{
    static const struct {
        const char *column;
        CostAlgo algo;
    } cases[] = {{"ring_us", COST_FLAT_RING}, {"hier_us", COST_HIERARCHICAL}};
    char path[512];
    double size[32], us[32], worst = -1;
    snprintf(path, sizeof path, "%s/hosts_%s_%s.csv", dir, layout, link);
    sscanf(layout, "%dx%d", &m->hosts, &m->per_host);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int rows = csv_column(path, cases[c].column, size, us, 32);
        double case_worst = 0;
        for (int i = 0; i < rows; i++) {
            double model = cost_predict(cases[c].algo, m, size[i]) * 1e6;
            double error = (model - us[i]) / us[i];
            if (size[i] >= RATE_FROM) /* the worst where the link, not the scheduler, decides */
                case_worst = fmax(case_worst, fabs(error));
            if (csv)
                fprintf(csv, "%s/%s/%s/%.0f,nan,nan,%.2f,%.2f,%.4f,nan\n", link, layout,
                        cases[c].column, size[i], us[i], model, error);
        }
        if (rows && csv)
            fprintf(csv, "%s/%s/%s/worst,nan,nan,nan,nan,%.4f,nan\n", link, layout,
                    cases[c].column, case_worst);
        if (rows)
            worst = fmax(worst, case_worst);
    }
    return worst;
}
#line 1950 "chapters/09-hosts.nw"
/** Fit the links of the machine measured in @p dir, check the model on every case. */
static int scale_here(const char *dir, FILE *csv, char *err)
{
    Machine m = {.cards = 1};
    if (fit_within(dir, &m.within, err))
        return -1;
    printf("# within a host: alpha %.2f us, beta %.3f ns/B (%.2f GB/s), from two-shot\n",
           m.within.alpha * 1e6, m.within.beta * 1e9, 1e-9 / m.within.beta);
    if (csv)
        fprintf(csv,
                "case,alpha_us,beta_ns,measured_us,model_us,error,rate_gbs\nfit/within,"
                "%.4f,%.6f,nan,nan,nan,nan\n",
                m.within.alpha * 1e6, m.within.beta * 1e9);
#line 1961 "chapters/09-hosts.nw"
    char pattern[512];
    glob_t g;
    snprintf(pattern, sizeof pattern, "%s/hosts_4x1_*.csv", dir);
    if (glob(pattern, 0, NULL, &g) != 0)
        return error_set(err, "no %s (make bench, as root)", pattern);
    for (size_t i = 0; i < g.gl_pathc; i++) {
#line 1975 "chapters/09-hosts.nw"
        char link[64];
        if (sscanf(strrchr(g.gl_pathv[i], '/') + 1, "hosts_4x1_%63[^.].csv", link) != 1 ||
            fit_between(dir, link, &m.between, err))
            return globfree(&g), -1;
        printf(
            "# links %s: alpha %.2f us, beta %.3f ns/B, a rate of %.3f GB/s; from the flat ring "
            "4 x 1\n",
            link, m.between.alpha * 1e6, m.between.beta * 1e9, m.between.rate / 1e9);
#line 1981 "chapters/09-hosts.nw"
        if (csv)
            fprintf(csv, "fit/%s,%.4f,%.6f,nan,nan,nan,%.6f\n", link, m.between.alpha * 1e6,
                    m.between.beta * 1e9, m.between.rate / 1e9);
        for (int k = 0; k < 3; k++) {
            const char *layout = k == 0 ? "2x2" : k == 1 ? "4x1" : "2x1";
            double worst = validate(dir, layout, link, &m, csv);
            if (worst >= 0)
                printf("# %s, %s: the model within %.0f%% of every size from 64 KiB\n", link,
                       layout, worst * 100);
        }
#line 1968 "chapters/09-hosts.nw"
    }
    globfree(&g);
    return 0;
}
#line 1833 "chapters/09-hosts.nw"
/** One of NCCL's protocols: a ring step's latency on each link, its share of the rate, the
 *  least a step within a host costs when the ring leaves the host, and the most it carries. */
typedef struct Protocol {
    double nvlink;      /**< seconds a step over NVLink */
    double net;         /**< seconds a step over the network */
    double share;       /**< of a link's rate, what its data gets */
    double overhead;    /**< seconds: the floor on such a step */
    double ring_max[3]; /**< bytes a second of a whole ring: one host, two, more; 0: none */
    double channel_max; /**< bytes a second of one channel; 0: none */
} Protocol;

/** LL, LL128 and Simple, as src/graph/tuning.cc sets them for H100s on Intel hosts. */
static const Protocol nccl_protocols[] = {
    {0.6e-6, 2.7e-6, 0.5, 1e-6, {141e9, 39e9, 20.4e9}, 0}, /* LL */
    {1.9e-6, 4.0e-6, 0.92, 1e-6, {0, 0, 0}, 36.7e9},       /* LL128 */
    {3.4e-6, 14e-6, 1, 3e-6, {0, 0, 0}, 0},                /* Simple */
};
#line 1857 "chapters/09-hosts.nw"
/** H100 SXM GPUs, @p per_host a host on NVLink, one InfiniBand card each between hosts,
 *  driven with protocol @p p: a card is a channel, and a ring's cap is shared by them. */
static Machine h100_cluster(int hosts, int per_host, const Protocol *p)
{
    double nvlink = 450e9 * p->share, card = 50e9 * p->share;
    double ring = p->ring_max[hosts > 2 ? 2 : hosts - 1];
    if (p->ring_max[0] > 0)
        nvlink = fmin(nvlink, p->ring_max[0]);
    if (p->channel_max > 0)
        card = fmin(card, p->channel_max);
    if (ring > 0)
        card = fmin(card, ring / per_host);
    return (Machine){.hosts = hosts,
                     .per_host = per_host,
                     .cards = per_host,
                     .within = {.alpha = p->nvlink, .beta = 1 / nvlink},
                     .between = {.alpha = p->net, .beta = 1 / card}};
#line 1872 "chapters/09-hosts.nw"
}
#line 1880 "chapters/09-hosts.nw"
/** Seconds of @p a for @p bytes on such a cluster, with the protocol that makes it fastest. */
static double h100_predict(CostAlgo a, int hosts, int per_host, double bytes)
{
    double best = INFINITY;
    for (size_t i = 0; i < sizeof nccl_protocols / sizeof *nccl_protocols; i++) {
        const Protocol *p = &nccl_protocols[i];
        Machine m = h100_cluster(hosts, per_host, p);
        if (a == COST_NCCL_RING && hosts > 1)
            m.within.alpha = fmax(m.within.alpha, p->overhead);
        best = fmin(best, cost_predict(a, &m, bytes));
    }
    return best;
}
#line 1823 "chapters/09-hosts.nw"
/** An H100's dense bf16 rate, in FLOP/s. */
#define H100_FLOPS 989e12
/** The share of it a training step is assumed to reach. */
#define ASSUMED_MFU 0.4
#line 1902 "chapters/09-hosts.nw"
/** Seconds of compute of a step of @p params parameters on @p tokens tokens a GPU. */
static double step_compute(double params, double tokens)
{
    return 6 * params * tokens / (H100_FLOPS * ASSUMED_MFU);
}
#line 1363 "chapters/A3-programs.nw"
static void scale_cluster(const Options *o, int hosts, int per_host, FILE *csv)
{
    static const CostAlgo algos[3] = {COST_NCCL_RING, COST_HIERARCHICAL, COST_TREE};
    printf("# %12s %12s %12s %12s %8s\n# %12s %12s %12s %12s %8s\n", "size", "flat ring",
           "hierarchical", "tree", "gain", "(B)", "(us)", "(us)", "(us)", "(x)");
    if (csv)
        fprintf(csv, "size,flat_us,hier_us,tree_us,gain,compute_us\n");
    for (size_t sz = o->min_bytes; sz <= o->max_bytes; sz = sz ? sz * o->step_factor : 1) {
        double t[3];
        for (int a = 0; a < 3; a++)
            t[a] = h100_predict(algos[a], hosts, per_host, (double)sz) * 1e6;
        printf("%14zu %12.2f %12.2f %12.2f %8.2f\n", sz, t[0], t[1], t[2], t[0] / t[1]);
        if (csv)
            fprintf(csv, "%zu,%.3f,%.3f,%.3f,%.4f,nan\n", sz, t[0], t[1], t[2], t[0] / t[1]);
        if (sz > o->max_bytes / (size_t)o->step_factor)
            break;
    }
#line 1385 "chapters/A3-programs.nw"
    double bytes = 2.0 * o->params, compute = step_compute(o->params, (double)o->tokens);
    double flat = h100_predict(COST_NCCL_RING, hosts, per_host, bytes),
           hier = h100_predict(COST_HIERARCHICAL, hosts, per_host, bytes);
    printf(
        "# a step of %.3g parameters on %ld tokens a GPU: compute %.1f ms; the all-reduce of "
        "its %.3g GB of bf16 gradients: flat ring %.1f ms (%.0f%% of the step), hierarchical "
        "%.1f ms (%.0f%%), nothing overlapped\n",
        o->params, o->tokens, compute * 1e3, bytes / 1e9, flat * 1e3,
        100 * flat / (flat + compute), hier * 1e3, 100 * hier / (hier + compute));
#line 1393 "chapters/A3-programs.nw"
    if (csv)
        fprintf(csv, "step,%.3f,%.3f,%.3f,%.4f,%.3f\n", flat * 1e6, hier * 1e6,
                h100_predict(COST_TREE, hosts, per_host, bytes) * 1e6, flat / hier,
                compute * 1e6);
#line 1381 "chapters/A3-programs.nw"
}
#line 1426 "chapters/A3-programs.nw"
/** The value in column @p name of the row whose first cell is @p key, in CSV @p path;
 *  NAN when there is none. */
static double csv_cell(const char *path, const char *key, const char *name)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int col = -1;
    double v = NAN;
    while (f && isnan(v) && fgets(line, sizeof line, f)) {
        char *save, *tok = strtok_r(line, ",\n", &save);
        if (line[0] == '#' || !tok)
            continue;
        for (int k = 0; col < 0 && tok; k++, tok = strtok_r(NULL, ",\n", &save))
            col = strcmp(tok, name) == 0 ? k : -1;
        for (int k = 1; tok && strcmp(tok, key) == 0 && k <= col; k++)
            if ((tok = strtok_r(NULL, ",\n", &save)) && k == col)
                v = strtod(tok, NULL);
    }
    if (f)
        fclose(f);
    return v;
}
#line 1478 "chapters/A3-programs.nw"
/** "powersgd2/1024x1024": the codec's name and the model's widths, as compress_work.csv
 *  names them; the widths alone into @p widths. */
static void codec_key(const GradCodec *g, const Options *o, char *key, size_t len, char *widths,
                      size_t wlen)
{
    size_t used = 0;
    for (int l = 0; l < o->n_hidden; l++)
        used +=
            (size_t)snprintf(widths + used, wlen - used, "%s%d", l ? "x" : "", o->hidden[l]);
#line 1486 "chapters/A3-programs.nw"
    if (g->kind == COMPRESS_POWERSGD)
        snprintf(key, len, "powersgd%d/%s", g->rank, widths);
    else if (g->kind == COMPRESS_TOPK)
        snprintf(key, len, "topk%g/%s", g->fraction, widths);
    else
        snprintf(key, len, "%s/%s", dtype_name(g->dtype), widths);
}
#line 1452 "chapters/A3-programs.nw"
static int scale_codec(const Options *o, FILE *csv, char *err)
{
    GradCodec g = run_codec(o), none = {.dtype = DTYPE_FP32};
    char key[128], path[600], widths[96];
    Model model;
    if (model_init(&model, device_cpu(), 784, o->hidden, o->n_hidden, 10, 1, o->seed, err))
        return -1;
    codec_key(&g, o, key, sizeof key, widths, sizeof widths);
    snprintf(path, sizeof path, "%s/compress_work.csv", o->from);
    double work = csv_cell(path, key, "work_us");
    Machine m = {.hosts = o->given & OPT_HOSTS ? o->hosts : 2,
                 .cards = 1,
                 .per_host = o->ranks_per_host > 0 ? o->ranks_per_host : 2};
#line 1464 "chapters/A3-programs.nw"
    CodecTraffic plain, t;
    grad_codec_traffic(&none, &model, m.hosts * m.per_host, &plain);
    grad_codec_traffic(&g, &model, m.hosts * m.per_host, &t);
    t.work = work * 1e-6;
    model_free(&model);
    if (isnan(work) || fit_within(o->from, &m.within, err))
        return isnan(work)
                   ? error_set(err, "no coding work for %s in %s (make bench)", key, path)
                   : -1;
#line 1496 "chapters/A3-programs.nw"
    static const char *const links[] = {"1gbit", "fast"};
    printf("# %s on %d hosts x %d ranks: coding %.0f us a step (measured on one rank)\n", key,
           m.hosts, m.per_host, work);
    if (csv)
        fprintf(csv, "case,fp32_us,codec_us,gain,break_even_gbits\n");
    for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
        if (fit_between(o->from, links[i], &m.between, err))
            return -1;
        double a = codec_exchange(&m, &plain) * 1e6, b = codec_exchange(&m, &t) * 1e6;
        double even = codec_break_even(&m, &t, &plain) * 8 / 1e9; /* Gbit/s */
        printf(
            "%-6s fp32 ring %10.0f us   %s %10.0f us   gain %5.2f   pays below %.3g Gbit/s\n",
            links[i], a, key, b, a / b, even);
#line 1508 "chapters/A3-programs.nw"
        if (csv)
            fprintf(csv, "%s/%s,%.1f,%.1f,%.4f,%.4g\n", links[i], key, a, b, a / b, even);
    }
#line 1473 "chapters/A3-programs.nw"
    return 0;
}
#line 1525 "chapters/A3-programs.nw"
static int scale_print(const Options *o, FILE *csv, char *err)
{
    int per_host = o->ranks_per_host > 0 ? o->ranks_per_host : 8;
    if (o->given & OPT_CODEC)
        return scale_codec(o, csv, err);
    if (strcmp(o->machine, "here") == 0)
        return scale_here(o->from, csv, err);
    printf("# scale: %d hosts x %d H100 SXM (NVLink 450 GB/s a way, a 400 Gb/s card "
           "per GPU; NCCL's step latencies, the fastest of its protocols)\n",
           o->hosts, per_host);
    scale_cluster(o, o->hosts, per_host, csv);
    return 0;
}
#line 1541 "chapters/A3-programs.nw"
/** Parse, then print this machine's fitted model or a cluster's prediction. */
int main(int argc, char **argv)
{
    static Run run;
    unsigned accepted = OPT_BENCH | OPT_CSV | OPT_RANKS_PER_HOST | OPT_HOSTS | OPT_PARAMS |
                        OPT_TOKENS | OPT_MACHINE | OPT_FROM | OPT_CODEC | OPT_HIDDEN;
    int status = run_parse(&run, argc, argv, accepted, summary, examples);
    if (status != RUN_GO)
        return status;
    const Options *o = &run.o;
    char err[ERR_LEN] = "";
#line 1517 "chapters/A3-programs.nw"
    GradCodec g;
    if ((o->given & OPT_CODEC) && grad_codec_parse(o->compress, &g, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", program_name(), err);
        return EXIT_USAGE;
    }
#line 1553 "chapters/A3-programs.nw"
    FILE *csv = o->csv ? fopen(o->csv, "w") : NULL;
    if (o->csv && !csv) {
        fprintf(stderr, "%s: --csv %s: cannot write it\n", program_name(), o->csv);
        return EXIT_FAILURE;
    }
    int rc = scale_print(o, csv, err);
    if (csv)
        fclose(csv);
    if (rc)
        fprintf(stderr, "%s: %s\n", program_name(), err);
    return rc ? EXIT_FAILURE : 0;
}
