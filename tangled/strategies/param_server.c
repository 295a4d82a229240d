/**
 * @file param_server.c
 * @brief The parameter server's two roles.
 */
#line 518 "chapters/03-ps.nw"
#include "param_server.h"

#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "launch.h"
#include "report.h"
#include "star.h"
#include "strategy.h"
#include "util.h"

/** Most figures the server sums after each epoch: train_run()'s. */
#define PS_STATS TRAIN_STATS

#line 372 "chapters/03-ps.nw"
/** The server's half of sum_stats: add the workers' vectors, send back the sum. */
static int sum_through_server(Comm *host, char *err)
{
    double v[PS_STATS] = {0}, sum[PS_STATS] = {0};
    for (int w = 1; w < host->size; w++) {
        if (host->recv(host, w, v, sizeof v, err))
            return -1;
        for (int i = 0; i < PS_STATS; i++)
            sum[i] += v[i];
    }
    for (int w = 1; w < host->size; w++)
        if (host->send(host, w, sum, sizeof sum, err))
            return -1;
    return 0;
}
#line 218 "chapters/03-ps.nw"
int ps_serve(Comm *c, Comm *host, Model *m, int epochs, long steps, float lr, PsReport *rep,
             char *err)
{
#line 222 "chapters/03-ps.nw"
    const Device *dev = m->dev;
    const size_t P = m->n_params, bytes = P * sizeof(float);
    const int workers = c->size - 1;
    float *incoming = dev->alloc(bytes);
    memset(rep, 0, sizeof *rep);
    for (int epoch = 1; epoch <= epochs; epoch++) {
        for (long step = 0; step < steps; step++) {
            launch_phase("epoch %d step %ld: waiting for gradients", epoch, step);
#line 315 "chapters/03-ps.nw"
            double t0 = now_seconds();
            dev->zero(m->grads, bytes);
            if (star_gather_sum(c, m->grads, incoming, P, 1.0f / workers, err))
                return -1;
            dev->sync();
            double t1 = now_seconds();
            rep->wait += t1 - t0;
            rep->bytes_in += (double)bytes * workers;
#line 338 "chapters/03-ps.nw"
            model_sgd_step(m, lr);
            dev->sync();
            double took = now_seconds() - t1;
            rep->update += took;
            launch_phase("epoch %d step %ld: sending the weights", epoch, step);
            t0 = now_seconds();
            for (int w = 1; w <= workers; w++)
                if (host->send(host, w, &took, sizeof took, err))
                    return -1;
            if (star_send_all(c, m->params, P, err))
                return -1;
            rep->send += now_seconds() - t0;
            rep->bytes_out += (double)bytes * workers;
            rep->steps++;
#line 232 "chapters/03-ps.nw"
        }
        launch_phase("epoch %d: summing the figures", epoch);
        if (sum_through_server(host, err))
            return -1;
    }
    dev->release(incoming);
    return 0;
}
#line 417 "chapters/03-ps.nw"
static int push(Strategy *s, Model *m, Timers *t, char *err)
{
    Comm *c = ((Comm **)s->state)[0];
    double t0 = now_seconds();
    launch_phase("pushing the gradient");
    if (c->send(c, 0, m->grads, m->n_params * sizeof(float), err))
        return -1;
    timers_add(t, "push", now_seconds() - t0);
    return 0;
}

#line 446 "chapters/03-ps.nw"
static int pull(Strategy *s, Model *m, Optimizer *opt, Timers *t, char *err)
{
    (void)opt; /* the server steps */
    Comm *c = ((Comm **)s->state)[0], *host = ((Comm **)s->state)[1];
    double took, t0 = now_seconds();
    launch_phase("waiting for the weights");
    if (host->recv(host, 0, &took, sizeof took, err))
        return -1;
    double t1 = now_seconds();
    timers_add(t, "wait", t1 - t0 - took > 0 ? t1 - t0 - took : 0);
    timers_add(t, "update", took < t1 - t0 ? took : t1 - t0);
    if (c->recv(c, 0, m->params, m->n_params * sizeof(float), err))
        return -1;
    timers_add(t, "pull", now_seconds() - t1);
    return 0;
}

#line 473 "chapters/03-ps.nw"
static int ps_sum_stats(Strategy *s, double *v, int n, char *err)
{
    Comm *host = ((Comm **)s->state)[1];
    double buf[PS_STATS] = {0};
    if (n > PS_STATS)
        return error_set(err, "ps: %d figures to sum, at most %d", n, PS_STATS);
    memcpy(buf, v, (size_t)n * sizeof *v);
    if (host->send(host, 0, buf, sizeof buf, err) || host->recv(host, 0, buf, sizeof buf, err))
        return -1;
#line 483 "chapters/03-ps.nw"
    memcpy(v, buf, (size_t)n * sizeof *v);
    return 0;
}

#line 497 "chapters/03-ps.nw"
void ps_worker(Strategy *s, Comm *c, Comm *host, Comm **state)
{
    state[0] = c;
    state[1] = host;
    *s = (Strategy){.rank = c->rank - 1,
                    .world = c->size - 1,
                    .sync_gradients = push,
                    .sum_stats = ps_sum_stats,
                    .update = pull,
                    .state = state};
#line 504 "chapters/03-ps.nw"
}
#line 755 "chapters/03-ps.nw"
/** A rank's parameter-server state: the worker's two communicators come first. */
typedef struct PsState {
    Comm *pair[2]; /**< the communicator and the host one: a worker's Strategy.state */
    PsReport rep;  /**< what the server measured */
} PsState;

static int ps_open(Strategy *s, const StrategyEnv *e, char *err)
{
    (void)err;
    PsState *st = xcalloc(1, sizeof *st);
    st->pair[0] = e->c;
    st->pair[1] = e->host;
    if (e->c->rank > 0)
        ps_worker(s, e->c, e->host, st->pair);
    else
        *s = (Strategy){.rank = -1, .world = e->c->size - 1};
    s->state = st;
    return 0;
}

static void ps_close(Strategy *s)
{
    free(s->state);
}

#line 792 "chapters/03-ps.nw"
static int ps_serve_all(Strategy *s, Model *m, const TrainConfig *cfg, long steps, char *err)
{
#line 795 "chapters/03-ps.nw"
    PsState *st = s->state;
    int done = cfg->resume ? cfg->resume->epoch : 0;
    return ps_serve(st->pair[0], st->pair[1], m, cfg->epochs - done, steps, cfg->lr, &st->rep,
                    err);
#line 800 "chapters/03-ps.nw"
}

static void ps_print_report(const Strategy *s, FILE *f)
{
    ps_report(f, &((const PsState *)s->state)->rep);
}

static void ps_traffic(char *line, size_t len, int ranks, size_t bytes)
{
    char b[32];
    snprintf(line, len,
             "%s through the server per step: %d gradients in, %d copies of the "
             "weights out",
             format_bytes(b, 2 * (size_t)(ranks - 1) * bytes), ranks - 1, ranks - 1);
}

#line 725 "chapters/03-ps.nw"
const StrategyDef strategy_ps = {
    .name = "param_server",
    .title = "a parameter server",
    .trainer = "worker",
    .shape = SHAPE_RANKS,
    .needs = SGD_ONLY | NO_ACCUM, /* chapter 7: the server steps, once per push */
    .servers = 1,
    .min_ranks = 2,
    .why_min = "rank 0 as the server and at least one worker",
    .no_codec =
        "workers push to a server, which adds in floats: there is no all-reduce to code",
    .open = ps_open,
    .close = ps_close,
    .serve = ps_serve_all,
    .report = ps_print_report,
    .traffic = ps_traffic,
};
#line 1198 "chapters/03-ps.nw"
void ps_report(FILE *f, const PsReport *rep)
{
    char in[32], out[32];
    double busy = rep->wait + rep->update + rep->send;
    fprintf(f,
            "server: %s in, %s out per step (counted); of its time %.0f%% waiting for "
            "gradients, %.0f%% updating, %.0f%% sending weights\n",
            format_bytes(in, (size_t)(rep->bytes_in / rep->steps)),
            format_bytes(out, (size_t)(rep->bytes_out / rep->steps)), 100 * rep->wait / busy,
            100 * rep->update / busy, 100 * rep->send / busy);
}
