/* Chapter 10: the cost model of a codec's exchange and where it pays, on hand-worked cases:
 * two hosts of one rank, whose flat ring crosses the link in 2 steps of alpha, sending B
 * bytes each way (2 (N-1)/N B with N = 2). */
#include <math.h>

#include "cost_model.h"
#include "helpers.h"

static Machine two_hosts(void)
{
    return (Machine){.hosts = 2, .per_host = 1, .cards = 1,
                     .between = {.alpha = 1e-5, .beta = 1e-9}};
}

Test(codec_model, an_exchange_is_its_work_its_all_reduces_and_half_an_all_gather)
{
    Machine m = two_hosts();
    CodecTraffic t = {.reduces = 3, .reduce = {1e6, 2e6, 0}, .gathered = 4e6, .work = 1e-3};
    double ring = 2 * 1e-5, want = 1e-3 + (ring + 1e-3) + (ring + 2e-3) + ring + (ring + 4e-3) / 2;
    cr_assert(fabs(codec_exchange(&m, &t) - want) < 1e-12, "%g, expected %g",
              codec_exchange(&m, &t), want);
}

Test(codec_model, the_break_even_bandwidth_is_where_saved_bytes_buy_the_work)
{
    Machine m = two_hosts();
    CodecTraffic plain = {.reduces = 1, .reduce = {1e6}};
    CodecTraffic half = {.reduces = 1, .reduce = {5e5}, .work = 1e-3};
    /* 2 alpha + B / R = w + 2 alpha + B / (2R): R = B / (2w) */
    double r = codec_break_even(&m, &half, &plain);
    cr_assert(fabs(r / 5e8 - 1) < 1e-6, "half the bytes for 1 ms of work: %g B/s, expected 5e8", r);
    /* Three all-reduces of nothing against one of B: 6 alpha = 2 alpha + B / R */
    CodecTraffic three = {.reduces = 3};
    r = codec_break_even(&m, &three, &plain);
    cr_assert(fabs(r / 2.5e10 - 1) < 1e-6, "three latencies: %g B/s, expected 2.5e10", r);
    half.work = 0;
    cr_assert(isinf(codec_break_even(&m, &half, &plain)), "free and smaller pays everywhere");
    CodecTraffic more = {.reduces = 1, .reduce = {2e6}};
    cr_assert(codec_break_even(&m, &more, &plain) == 0, "more bytes never pays");
}

/* ./scale with a codec: this machine's links fitted to book/data, the coding work from a
 * compress_work.csv of the test's own (in a directory of its own); without that work, one
 * line saying what is missing. */
Test(codec_model, scale_prints_where_a_codec_pays_on_each_fitted_link, .timeout = 60)
{
    char dir[] = "/tmp/dps-codec-XXXXXX", cmd[512], from[600];
    cr_assert(mkdtemp(dir), "mkdtemp failed");
    snprintf(cmd, sizeof cmd, "cp book/data/hosts_*.csv book/data/crossovers_n*.csv %s/", dir);
    cr_assert(system(cmd) == 0, "%s failed", cmd);
    snprintf(from, sizeof from, "%s/compress_work.csv", dir);
    FILE *f = fopen(from, "w");
    cr_assert(f);
    fprintf(f, "# made up\ncase,work_us\nbf16/128,300\n");
    fclose(f);
    static Run a;
    run_program((char *[]){"./scale", "--machine", "here", "--from", dir, "--grad_dtype",
                           "bf16", NULL}, &a);
    cr_assert(a.status == 0, "exit %d: %s", a.status, a.err);
    cr_assert(strstr(a.out, "1gbit  fp32 ring") && strstr(a.out, "pays below"), "%s", a.out);
    static Run b;
    run_program((char *[]){"./scale", "--from", dir, "--compress", "powersgd:3", NULL}, &b);
    cr_assert(b.status == 1 && count_lines(b.err) == 1 &&
                  strstr(b.err, "no coding work for powersgd3/128"),
              "a codec never measured: exit %d, %s", b.status, b.err);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert(system(cmd) == 0);
}
