/**
 * @file banner.c
 * @brief The run layer: the banner of a training run (chapters 3, 7, 8).
 */
#line 3342 "chapters/02-shm.nw"
#include "run.h"

#include "report.h"
#include "util.h"

#line 1069 "chapters/03-ps.nw"
void run_banner(const Rank *r, const Model *m, const Strategy *s)
{
    const Run *run = r->run;
    const StrategyDef *def = run->strategy;
    char line[ERR_LEN], shared[64] = ""; /* written only when ranks share a GPU */
    bool sharing = r->c && run_gpu_sharing(r, shared, sizeof shared);
    printf("%s: %s (--strategy %s), %d %s\n", program_name(),
           s && s->runs ? s->runs : def->title, def->name, r->size,
           r->size == 1 ? "rank" : "ranks");
#line 1077 "chapters/03-ps.nw"
    printf("  ranks    %d (%s%s%s%s%s)\n", r->size,
           def->shape == SHAPE_THREADS  ? "threads of one process"
           : !r->c                      ? "one process"
           : run->mpi                   ? "MPI processes"
           : r->dev->kind == DEVICE_CPU ? "processes standing in for GPUs"
                                        : "GPUs",
           sharing ? ": " : "", shared, def->servers ? (sharing ? "; " : ": ") : "",
           def->servers ? "rank 0 serves" : "");
    train_banner(stdout, &run->o, m, &run->train, &run->test, r->dev, r->note,
                 s && s->world > 0 ? s->world : r->size - def->servers, def->trainer);
    state_banner(&run->o, s, m->n_params);
    exercises_banner("  exercise ");
#line 1094 "chapters/03-ps.nw"
    if (def->traffic && r->size > 1) {
        def->traffic(line, sizeof line, r->size, m->n_params * sizeof(float));
        printf("  traffic  %s\n", line);
    }
#line 2084 "chapters/10-compress.nw"
    GradCodec g = run_codec(&run->o);
    if (grad_codec_active(&g) && (def->needs & CARRIES_CODEC) && r->size > 1) {
        char b[32];
        grad_codec_describe(&g, line, sizeof line);
        printf("  codec    %s: %s sent per rank and step\n", line,
               format_bytes(b, grad_codec_bytes(&g, m, r->size, 0)));
    }
#line 1090 "chapters/03-ps.nw"
}
#line 1114 "chapters/03-ps.nw"
void train_banner(FILE *f, const Options *o, const Model *m, const Dataset *train,
                  const Dataset *test, const Device *dev, const char *note, int trainers,
                  const char *each)
{
    char shape[128], n1[32], n2[32], n3[32], b1[32];
    model_describe(m, shape, sizeof shape);
    fprintf(f, "  device   %s: %s\n", note, dev->description);
    fprintf(f, "  model    %s, %s parameters (%s), ReLU, softmax cross-entropy\n", shape,
            format_count(n1, (long long)m->n_params), format_bytes(b1, m->n_params * 4));
    fprintf(f, "  data     %s: %s train, %s test, %dx%d, %d classes\n", train->source,
            format_count(n2, train->n), format_count(n3, test->n), train->rows, train->cols,
            train->classes);
#line 1142 "chapters/03-ps.nw"
    int step_b = o->batch_size * o->accum; /* a rank's samples per step (chapter 7) */
    long steps = train_steps_per_epoch(train->n, step_b, trainers);
    long dropped = train->n - steps * step_b * trainers;
    fprintf(f, "  training %d epochs, batch %d", o->epochs, o->batch_size);
    if (trainers > 1)
        fprintf(f, " per %s (global %d)", each, step_b * trainers);
    fprintf(f, ", %s, lr %g, %ld steps/epoch", o->optimizer, options_lr(o), steps);
    if (dropped > 0)
        fprintf(f, " (last %ld samples dropped)", dropped);
    fprintf(f, "\n");
#line 1128 "chapters/03-ps.nw"
    if (o->accum > 1)
        fprintf(f, "  accum    %d micro-batches of %d per %s and step, synced once\n", o->accum,
                o->batch_size, each);
}
#line 3006 "chapters/02-shm.nw"
bool run_gpu_sharing(const Rank *r, char *line, size_t len)
{
    char pipe[ERR_LEN];
    line[0] = '\0';
    if (r->run->mpi || !device_sharing(r->dev, r->size, line, len))
        return false;
    if (!r->run->o.quiet && !device_mps_running(pipe, sizeof pipe))
        fprintf(stderr,
                "%s: %s, and CUDA MPS is not running (no %s): each handshake "
                "between two of them waits for a context switch, about 150 us on an "
                "H100 against 11 us with MPS; start it with: nvidia-cuda-mps-control -d\n",
                program_name(), line, pipe);
    return true;
}
#line 585 "chapters/07-zero.nw"
void state_banner(const Options *o, const Strategy *s, size_t n_params)
{
    OptimizerConfig cfg;
    optimizer_config(&cfg, o->optimizer, o->momentum, o->weight_decay);
    bool sharded = s && s->shards_state;
    size_t floats = (size_t)optimizer_state_floats(cfg.kind);
    size_t opt = floats * (sharded ? s->state_hi - s->state_lo : n_params) * sizeof(float);
    size_t full = n_params * sizeof(float);
    size_t params = s && s->param_bytes ? s->param_bytes : full;
    size_t grads = s && s->grad_bytes ? s->grad_bytes : full;
    char all[32], p[32], g[32], optimizer[32];
    printf("  state    %s on rank 0: parameters %s, gradients %s, %s %s%s\n",
           format_bytes(all, params + grads + opt), format_bytes(p, params),
           format_bytes(g, grads), o->optimizer, format_bytes(optimizer, opt),
           sharded ? " (its chunk of the state)" : "");
    if (sharded) {
#line 614 "chapters/07-zero.nw"
        size_t chunk = (s->state_hi - s->state_lo) * sizeof(float);
        size_t p_fly = params != full && params > chunk ? params - chunk : 0;
        size_t g_fly = grads != full && grads > chunk ? grads - chunk : 0;
        char c[32], pf[32], gf[32];
        format_bytes(c, chunk), format_bytes(pf, p_fly), format_bytes(gf, g_fly);
        if (p_fly)
            printf("  in flight %s of parameters and %s of gradients: two layers at a time, "
                   "gathered or reduce-scattered, beside a chunk of %s of each\n",
                   pf, gf, c);
        else if (g_fly)
            printf("  in flight %s of gradients: two layers at a time, reduce-scattered, "
                   "beside a chunk of %s\n",
                   gf, c);
    }
#line 602 "chapters/07-zero.nw"
}
