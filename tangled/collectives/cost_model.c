/**
 * @file cost_model.c
 * @brief The alpha-beta model of the all-reduces of chapters 5, 8 and 9 (chapter 9).
 */
#line 1562 "chapters/09-hosts.nw"
#include "cost_model.h"

#include <math.h>
#include <string.h>

#line 1577 "chapters/09-hosts.nw"
int cost_terms(CostAlgo a, const Machine *m, CostTerms *t)
{
    double H = m->hosts, L = m->per_host, N = H * L, halves = L > 1 ? 2 : 0;
    double C = m->cards > 0 ? m->cards : 1;
    double per_card = ceil(L / C) / L; /* a chunk is n/L */
    memset(t, 0, sizeof *t);
    switch (a) {
    case COST_FLAT_RING: /* in lock-step: C channels, one card each, n/C bytes each */
    case COST_NCCL_RING: /* pipelined: only the steps that leave a host wait for the network */
        if (H == 1)
            t->within_steps = 2 * (N - 1), t->within_bytes = 2 * (N - 1) / N;
        else if (a == COST_FLAT_RING)
            t->between_steps = 2 * (N - 1), t->between_bytes = 2 * (N - 1) / N / C;
        else
            t->within_steps = 2 * (N - H), t->between_steps = 2 * (H - 1),
            t->between_bytes = 2 * (N - 1) / N / C;
        return 1;
    case COST_HIERARCHICAL:
    case COST_TREE:
        t->within_steps = halves, t->within_bytes = halves * (L - 1) / L;
        if (H > 1 && a == COST_HIERARCHICAL)
            t->between_steps = 2 * (H - 1), t->between_bytes = 2 * (H - 1) / H * per_card;
        else if (H > 1) { /* a binomial tree: ceil(log2 H) levels up, as many down */
            t->between_steps = 2 * ceil(log2(H));
            t->between_bytes = t->between_steps * per_card;
        }
        return 1;
    case COST_ONE_SHOT:
    case COST_TWO_SHOT:
        t->within_steps = 2;
        t->within_bytes = a == COST_ONE_SHOT ? L - 1 : 2 * (L - 1) / L;
        return H == 1;
    default: return 0;
    }
}
#line 1626 "chapters/09-hosts.nw"
double cost_predict(CostAlgo a, const Machine *m, double bytes)
{
    CostTerms t;
    if (!cost_terms(a, m, &t))
        return -1;
    const Link *b = &m->between;
    double within = t.within_steps * m->within.alpha + t.within_bytes * bytes * m->within.beta;
    double between = t.between_steps * b->alpha + t.between_bytes * bytes * b->beta;
    if (b->rate > 0 && t.between_bytes * bytes / b->rate > between) /* the bucket's pace */
        between = t.between_bytes * bytes / b->rate;
    return within + between;
}

const char *cost_name(CostAlgo a)
{
    static const char *names[] = {"flat ring", "hierarchical", "tree",
                                  "one-shot",  "two-shot",     "NCCL's ring"};
    return a < N_COST_ALGOS ? names[a] : "?";
}
#line 1665 "chapters/09-hosts.nw"
int cost_fit(const double *steps, const double *bytes, const double *t, int n, Link *out)
{
    double ss = 0, sb = 0, bb = 0, st = 0, bt = 0;
    for (int i = 0; i < n; i++) {
        double s = steps[i] / t[i], b = bytes[i] / t[i]; /* row i, divided by t[i] */
        ss += s * s, sb += s * b, bb += b * b, st += s, bt += b;
    }
    double det = ss * bb - sb * sb;
    if (n < 2 || fabs(det) < 1e-300)
        return -1;
    out->alpha = (st * bb - bt * sb) / det;
    out->beta = (ss * bt - sb * st) / det;
    return out->alpha >= 0 && out->beta > 0 ? 0 : -1;
}
#line 1655 "chapters/09-hosts.nw"
double cost_fit_rate(const double *over, const double *t, int n)
{
    double sx = 0, sxx = 0; /* minimise the sum of (over[i] u / t[i] - 1)^2, u = 1 / rate */
    for (int i = 0; i < n; i++)
        sx += over[i] / t[i], sxx += (over[i] / t[i]) * (over[i] / t[i]);
    return n > 0 && sx > 0 ? sxx / sx : 0;
}
#line 1917 "chapters/10-compress.nw"
double codec_exchange(const Machine *m, const CodecTraffic *t)
{
    double s = t->work;
    for (int i = 0; i < t->reduces && i < 3; i++)
        s += cost_predict(COST_FLAT_RING, m, t->reduce[i]);
    if (t->gathered > 0)
        s += cost_predict(COST_FLAT_RING, m, t->gathered) / 2;
    return s;
}

/** plain's time less t's on @p m with a link of @p rate bytes a second. */
static double codec_gain(Machine m, const CodecTraffic *t, const CodecTraffic *plain,
                         double rate)
{
    m.between.beta = 1 / rate, m.between.rate = 0;
    return codec_exchange(&m, plain) - codec_exchange(&m, t);
}
#line 1901 "chapters/10-compress.nw"
double codec_break_even(const Machine *m, const CodecTraffic *t, const CodecTraffic *plain)
{
    double lo = log(1e3), hi = log(1e13); /* bytes a second */
    if (codec_gain(*m, t, plain, exp(hi)) > 0)
        return INFINITY;
    if (codec_gain(*m, t, plain, exp(lo)) <= 0)
        return 0;
    for (int i = 0; i < 60; i++) {
        double mid = (lo + hi) / 2;
        *(codec_gain(*m, t, plain, exp(mid)) > 0 ? &lo : &hi) = mid;
    }
    return exp(lo);
}
