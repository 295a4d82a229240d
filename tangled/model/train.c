/**
 * @file train.c
 * @brief The training loop.
 */
#line 4277 "chapters/01-mlp.nw"
#include "train.h"

#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "rng.h"
#include "trace.h"
#include "util.h"

#line 4314 "chapters/01-mlp.nw"
enum { STREAM_SHUFFLE = 1000 };

long train_steps_per_epoch(long n_train, int batch_size, int world)
{
    return n_train / ((long)batch_size * world);
}

#line 4741 "chapters/01-mlp.nw"
static int around_layer(Strategy *s, Model *m, int l, Pass pass, bool before, char *err)
{
    if (!s)
        return 0;
    int (*hook)(Strategy *, Model *, int, Pass, char *) =
        before ? s->before_layer : s->after_layer;
    return hook ? hook(s, m, l, pass, err) : 0;
}

#line 2700 "chapters/A1-support.nw"
static void layer_pass(Model *m, int B, int l, Pass pass)
{
    double t0 = trace_on() ? now_seconds() : 0;
    if (pass == PASS_BACKWARD)
        model_backward_layer(m, B, l);
    else
        model_forward_layer(m, B, l);
    if (trace_on()) {
        m->dev->sync();
        trace_span(LANE_TRAIN, t0, now_seconds(), "%s %d",
                   pass == PASS_BACKWARD ? "backward"
                   : pass == PASS_EVAL   ? "evaluate"
                                         : "forward",
                   l);
    }
}

#line 4722 "chapters/01-mlp.nw"
static int forward_layers(Model *m, Strategy *s, int B, Pass pass, char *err)
{
    m->rows = B; /* chapter 11's hooks read it */
    for (int l = 0; l < m->n_layers; l++) {
        if (around_layer(s, m, l, pass, true, err))
            return -1;
        if (B > 0)
            layer_pass(m, B, l, pass);
        if (around_layer(s, m, l, pass, false, err))
            return -1;
    }
    return 0;
}

#line 4680 "chapters/01-mlp.nw"
int evaluate(Model *m, Strategy *s, const Dataset *d, int world, int rank, double *right,
             char *err)
{
    const long lo = d->n * rank / world, hi = d->n * (rank + 1) / world;
    const long largest = (d->n + world - 1) / world;
    const long batches = (largest + m->max_batch - 1) / m->max_batch;
    m->dev->zero(m->stats, 2 * sizeof(float));
    for (long k = 0; k < batches; k++) {
        long i = lo + k * m->max_batch;
        int B = i >= hi ? 0 : (int)(hi - i < m->max_batch ? hi - i : m->max_batch);
        if (B > 0)
            model_set_batch(m, d->x + (size_t)i * d->features, d->y + i, B);
        if (forward_layers(m, s, B, PASS_EVAL, err))
            return -1;
        if (B > 0)
            model_loss(m, B, false);
    }
    float st[2];
    m->dev->download(st, m->stats, sizeof st);
    *right += st[1];
    m->dev->zero(m->stats, 2 * sizeof(float));
    return 0;
}
#line 882 "chapters/A2-failure.nw"
/** The generator that shuffles @p epoch: a resumed run's first from its checkpoint. */
static void train_shuffle_rng(Rng *r, const TrainConfig *cfg, int epoch, int first)
{
    if (cfg->resume && epoch == first)
        *r = cfg->resume->rng;
    else
        rng_seed(r, cfg->seed, STREAM_SHUFFLE + (uint64_t)epoch);
}

#line 857 "chapters/A2-failure.nw"
/** Save @p m after @p epoch into cfg->checkpoint (rank 0 of @p world ranks does this). */
static int train_checkpoint(const TrainConfig *cfg, const Model *m, int world, long n_train,
                            int epoch, char *err)
{
    Checkpoint ck = {.n_layers = m->n_layers,
                     .epoch = epoch,
                     .epochs = cfg->epochs,
                     .seed = cfg->seed,
                     .global_batch = (uint64_t)cfg->batch_size * world,
                     .n_train = (uint64_t)n_train,
                     .lr = cfg->lr,
                     .n_params = m->n_params};
#line 865 "chapters/A2-failure.nw"
    for (int l = 0; l <= m->n_layers; l++)
        ck.width[l] = m->width[l];
    rng_seed(&ck.rng, cfg->seed, STREAM_SHUFFLE + (uint64_t)epoch + 1);
    ck.params = xcalloc(m->n_params, sizeof(float));
    m->dev->download(ck.params, m->params, m->n_params * sizeof(float));
    int rc = checkpoint_write(cfg->checkpoint, &ck, err);
    free(ck.params);
    return rc;
}

#line 4332 "chapters/01-mlp.nw"
void train_report_end(FILE *f, const TrainResult *res, bool quiet)
{
    if (quiet) {
        fprintf(f, "final: loss %.4f train_acc %.4f test_acc %.4f", res->last.loss,
                res->last.train_acc, res->last.test_acc);
#line 2097 "chapters/10-compress.nw"
        if (res->last_scale > 0)
            fprintf(f, " skipped %ld", res->skipped);
#line 4338 "chapters/01-mlp.nw"
        fprintf(f, "\n");
    } else {
        report_breakdown(f, &res->timers);
#line 571 "chapters/07-zero.nw"
        char all[32], p[32], g[32], optimizer[32];
        fprintf(f, "state: %s on rank 0 (parameters %s, gradients %s, optimizer %s)\n",
                format_bytes(all, res->state_bytes), format_bytes(p, res->param_bytes),
                format_bytes(g, res->grad_bytes),
                format_bytes(optimizer, res->optimizer_bytes));
#line 2102 "chapters/10-compress.nw"
        if (res->last_scale > 0)
            fprintf(f, "loss scale: %ld steps skipped (overflow), scale %g at the end\n",
                    res->skipped, (double)res->last_scale);
#line 4343 "chapters/01-mlp.nw"
    }
}

#line 592 "chapters/10-compress.nw"
void loss_scale_init(LossScale *ls, float first, int window)
{
    *ls = (LossScale){.scale = first > 0 ? first : 1.0f, .window = window, .on = first > 0};
#line 596 "chapters/10-compress.nw"
}

bool loss_scale_check(LossScale *ls, const Device *dev, float *grads, size_t n)
{
    if (!ls->on)
        return false;
    if (dev->count_nonfinite(n, grads) > 0) {
        ls->skipped++;
        ls->clean = 0;
        ls->scale = ls->scale > 1.0f ? ls->scale / 2 : 1.0f;
        return true;
    }
    dev->scale(n, 1.0f / ls->scale, grads);
    if (++ls->clean >= ls->window) {
        ls->clean = 0;
        if (ls->scale < 0x1p100f)
            ls->scale *= 2;
    }
    return false;
}

#line 4355 "chapters/01-mlp.nw"
int train_run(const TrainConfig *cfg, Model *m, const Dataset *train, const Dataset *test,
              Strategy *s, TrainResult *res, char *err)
{
    const Device *dev = m->dev;
    const int b = cfg->batch_size, rank = s ? s->rank : 0, world = s ? s->world : 1;
    const int K = cfg->accum > 1 ? cfg->accum : 1; /* micro-batches per step (chapter 7) */
    const long global = (long)b * world * K,
               steps = train_steps_per_epoch(train->n, b * K, world);
#line 4404 "chapters/01-mlp.nw"
    if (steps < 1)
        return error_set(err,
                         "a global batch of %ld samples is larger than the training set "
                         "(%ld samples)",
                         global, train->n);
#line 4407 "chapters/01-mlp.nw"
    if (b > m->max_batch)
        return error_set(err, "batch %d exceeds the model's buffers (%d)", b, m->max_batch);
#line 4424 "chapters/01-mlp.nw"
    memset(res, 0, sizeof *res);
    res->steps = steps;
    res->dropped = train->n - steps * global;
    int32_t *perm = dev->host_alloc ? dev->host_alloc((size_t)train->n * sizeof *perm)
                                    : xcalloc((size_t)train->n, sizeof *perm);
    const size_t set_floats = (size_t)train->n * (size_t)train->features;
    const float *x_dev = dev->resident(train->x, set_floats * sizeof(float));
    const int32_t *y_dev = dev->resident(train->y, (size_t)train->n * sizeof(int32_t));
    int *rows_dev = dev->alloc((size_t)b * sizeof(int));
    const bool speaks = rank == 0 && !(s && s->mute); /* chapter 11: one rank of a row */
#line 555 "chapters/07-zero.nw"
    Optimizer opt;
    optimizer_init(&opt, &cfg->optimizer, cfg->lr, dev,
                   s && s->shards_state ? s->state_hi - s->state_lo : m->n_params);
    res->optimizer_bytes = optimizer_state_bytes(&opt);
    res->param_bytes = s && s->param_bytes ? s->param_bytes : m->n_params * sizeof(float);
    res->grad_bytes = s && s->grad_bytes ? s->grad_bytes : m->n_params * sizeof(float);
    res->state_bytes = res->param_bytes + res->grad_bytes + res->optimizer_bytes;
#line 642 "chapters/10-compress.nw"
    LossScale ls;
    loss_scale_init(&ls, cfg->loss_scale, cfg->scale_window > 0 ? cfg->scale_window : 2000);
#line 4367 "chapters/01-mlp.nw"
    int rc = 0, first = 1;
#line 897 "chapters/A2-failure.nw"
    if (cfg->resume) {
        if (checkpoint_restore(cfg->resume, m, err))
            rc = -1;
        first = cfg->resume->epoch + 1;
        if (speaks && cfg->out && !cfg->quiet)
            fprintf(cfg->out, "resume: %s holds epoch %d; training epochs %d to %d\n",
                    cfg->checkpoint, cfg->resume->epoch, first, cfg->epochs);
    }
#line 4369 "chapters/01-mlp.nw"
    for (int epoch = first; epoch <= cfg->epochs && rc == 0; epoch++) {
#line 4451 "chapters/01-mlp.nw"
        for (long i = 0; i < train->n; i++)
            perm[i] = (int32_t)i;
        Rng r;
        train_shuffle_rng(&r, cfg, epoch, first);
        rng_shuffle(&r, perm, train->n);
#line 4477 "chapters/01-mlp.nw"
        Progress bar;
        progress_begin(&bar, cfg->out ? cfg->out : stdout, cfg->quiet || !cfg->out || !speaks,
                       epoch, cfg->epochs, steps);
        dev->zero(m->stats, 2 * sizeof(float));
        double epoch_start = now_seconds(), t = epoch_start, t1;
        for (long step = 0; step < steps && rc == 0; step++) {
            if (cfg->phase)
                cfg->phase("epoch %d, step %ld of %ld", epoch, step + 1, steps);
            for (int micro = 0; micro < K && rc == 0; micro++) { /* K > 1: chapter 7 */
#line 4509 "chapters/01-mlp.nw"
                const int32_t *mine = perm + step * global + ((long)micro * world + rank) * b;
                if (dev->upload_async) /* perm is pinned: the copy is queued, not waited for */
                    dev->upload_async(rows_dev, mine, (size_t)b * sizeof *mine);
                else
                    dev->upload(rows_dev, mine, (size_t)b * sizeof *mine);
                model_gather_batch(m, x_dev, y_dev, rows_dev, b);
                dev->sync();
                timers_add(&res->timers, "data", (t1 = now_seconds()) - t);
                t = t1;
#line 4545 "chapters/01-mlp.nw"
                rc = forward_layers(m, s, b, PASS_FORWARD, err);
                if (rc == 0)
                    model_loss(m, b, true);
#line 852 "chapters/07-zero.nw"
                if (K > 1 || ls.on) /* ls: chapter 10's loss scale, 1 unless it is on */
                    dev->scale((size_t)b * (size_t)m->width[m->n_layers], ls.scale / (float)K,
                               m->dact[m->n_layers]);
                m->accumulate = micro > 0;
#line 4549 "chapters/01-mlp.nw"
                for (int l = m->n_layers - 1; l >= 0 && rc == 0; l--) {
                    if (around_layer(s, m, l, PASS_BACKWARD, true, err))
                        rc = -1;
                    if (rc == 0)
                        layer_pass(m, b, l, PASS_BACKWARD);
                    if (rc == 0 && micro == K - 1 && s && s->grads_ready &&
                        s->grads_ready(s, m, l, err))
                        rc = -1;
#line 4556 "chapters/01-mlp.nw"
                    if (rc == 0 && around_layer(s, m, l, PASS_BACKWARD, false, err))
                        rc = -1;
                }
                m->accumulate = false;
                dev->sync();
                timers_add(&res->timers, "compute", (t1 = now_seconds()) - t);
                t = t1;
#line 4488 "chapters/01-mlp.nw"
            }
#line 4578 "chapters/01-mlp.nw"
            if (rc == 0 && s && s->sync_gradients && s->sync_gradients(s, m, &res->timers, err))
                rc = -1;
#line 647 "chapters/10-compress.nw"
            bool skip = rc == 0 && loss_scale_check(&ls, dev, m->grads, m->n_params);
#line 4581 "chapters/01-mlp.nw"
            t = now_seconds();
            if (s && s->update) {
                if (rc == 0 && s->update(s, m, &opt, &res->timers, err))
                    rc = -1;
            } else if (!skip) {
                optimizer_step(&opt, m->params, m->grads);
                dev->sync();
                timers_add(&res->timers, "update", now_seconds() - t);
            }
#line 4490 "chapters/01-mlp.nw"
            t = now_seconds();
            progress_update(&bar, step + 1, global);
        }
        double train_seconds = now_seconds() - epoch_start;
        progress_end(&bar);
#line 4617 "chapters/01-mlp.nw"
        if (rc == 0) {
            float st[2];
            dev->download(st, m->stats, sizeof st);
            double t_eval = now_seconds();
            double v[TRAIN_STATS] = {st[0], st[1], 0};
            rc = evaluate(m, s, test, world, rank, &v[2], err);
            timers_add(&res->timers, "eval", now_seconds() - t_eval);
            if (rc == 0 && s && s->sum_stats && s->sum_stats(s, v, TRAIN_STATS, err))
                rc = -1;
            double seen = (double)steps * global;
            EpochStats *e = &res->last;
            e->epoch = epoch;
            e->epochs = cfg->epochs;
            e->loss = v[0] / seen;
            e->train_acc = v[1] / seen;
            e->test_acc = test->n ? v[2] / test->n : 0;
            e->seconds = train_seconds;
            e->samples_per_s = seen / train_seconds;
            e->step_ms = 1e3 * train_seconds / steps;
#line 4649 "chapters/01-mlp.nw"
            e->state_bytes = res->state_bytes; /* chapter 7 */
#line 711 "chapters/10-compress.nw"
            e->half = (HalfCensus){.measured = false};
            float *g = rank == 0 && cfg->log && m->grads && !(s && s->update)
                           ? malloc(m->n_params * sizeof *g)
                           : NULL;
            if (g) {
                dev->download(g, m->grads, m->n_params * sizeof *g);
                half_census(g, m->n_params, &e->half);
                free(g);
            }
#line 4637 "chapters/01-mlp.nw"
            if (rc == 0 && speaks && cfg->out && !cfg->quiet)
                report_epoch(cfg->out, e);
            if (rc == 0 && rank == 0 && cfg->log)
                report_csv_row(cfg->log, e);
        }
#line 916 "chapters/A2-failure.nw"
        if (rc == 0 && cfg->checkpoint && rank == 0) {
            double t_ck = now_seconds();
            if (cfg->phase)
                cfg->phase("writing the checkpoint of epoch %d", epoch);
            if (train_checkpoint(cfg, m, world, train->n, epoch, err))
                rc = -1;
            timers_add(&res->timers, "checkpoint", now_seconds() - t_ck);
        }
#line 4374 "chapters/01-mlp.nw"
    }
#line 1482 "chapters/07-zero.nw"
    if (rc == 0 && s && s->unshard && s->unshard(s, m, err))
        rc = -1;
#line 651 "chapters/10-compress.nw"
    res->skipped = ls.skipped;
    res->last_scale = ls.on ? ls.scale : 0;
#line 4383 "chapters/01-mlp.nw"
    optimizer_free(&opt);
    if (dev->host_alloc)
        dev->host_release(perm);
    else
        free(perm);
    dev->release_resident(x_dev);
    dev->release_resident(y_dev);
    dev->release(rows_dev);
#line 4378 "chapters/01-mlp.nw"
    return rc;
}
